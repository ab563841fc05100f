// Package exchange brings other trackers' issues into td and takes td's
// issues out again: the import and export mapping.
//
// Every source has one file that reads it into a neutral list of Records
// and nothing more: beads.go (beads' JSONL export), backlog.go (a
// Backlog.md folder), github.go (the JSON gh issue list --json writes),
// marcustd.go (marcus/td's SQLite database, through the file-format
// reader in repo/exchange/sqlite) and jsonl.go
// (td's own JSONL export, the way back in). A reader reports what it cannot
// read as a BadInput naming path:line and why, and keeps going, so that
// one run lists every problem.
//
// Mapping onto td's words:
//
//   - statuses, priorities and types go to the nearest of td's
//     (mapping.go has each source's table); a value td has no word for
//     maps to the default and is kept under imported:;
//   - dependencies and parents become links (blocked_by, child_of,
//     relates_to, duplicate_of) once every record has an ID;
//   - acceptance criteria become criteria, checklists and task lists
//     become todos (steps);
//   - comments and history go into the ledger with their original
//     author and time, each entry marked with the source it came from;
//   - the source's ID is kept in the frontmatter key imported_from
//     (beads:bd-a1b2), which is how a second import finds the issue it
//     made and updates it instead of making another;
//   - every field td has no place for is kept under the one frontmatter
//     key imported:, never dropped.
//
// Apply writes a whole import in one store transaction (one commit in git
// mode auto): every file lands or none does. New issues get IDs from the
// store's allocator, which never hands out an ID a file already has. A
// source with bad rows writes nothing unless the caller skips them.
//
// ExportEach (export.go) reads td's issues a batch at a time, every field
// with its todos and ledger, for td export to write as JSONL or as the
// JSON GitHub's REST API takes to create and close issues (GitHubForm).
package exchange
