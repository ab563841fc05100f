// Package review holds what td does with pull requests and history: td
// check (every rule over the committed files and ledgers, re-deciding the
// review policy from the base's config), td diff (what a range changed in
// issues and todos), td log (an issue's ledger and commits merged) and
// td audit verify (the security log's chain against a base).
package review
