package command

import "github.com/tdproject/td/repo/exchange"

// marcusTDSource is td import marcus-td: marcus/td's SQLite database.
func marcusTDSource() importSource {
	return importSource{
		name:  "marcus-td",
		usage: "import marcus/td's SQLite database (.todos/issues.db)",
		args:  "FILE",
		description: `FILE is marcus/td's database, usually .todos/issues.db. td opens it read-only
and never writes it; it needs no sqlite3 program. Statuses, types and
priorities are the same words as td's; parent_id becomes child_of and a
depends_on dependency blocked_by; acceptance becomes criteria; comments, logs
and handoffs go to the ledger with their sessions and times; a deleted issue is
closed as wontfix. Other columns (points, sprint, sessions, due dates, linked
files) are kept under imported:. A database whose latest changes are still in
its -wal or -journal file beside it is refused: run marcus/td once first.

Examples:
   td import marcus-td .todos/issues.db --dry-run
   td import marcus-td .todos/issues.db`,
		read: func(r *runner, o *ImportOptions) (*exchange.Parsed, error) {
			return exchange.ReadMarcusTD(r.path(o.Path), o.Path)
		},
	}
}
