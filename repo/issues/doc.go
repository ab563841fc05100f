// Package issues holds td's use cases on issues: create, edit and comment,
// and the workflow (start, review, approve, reject, close, reopen, block)
// under the review policy, which it asks policy to decide from facts it
// gathers from the store (the ledger, git history). Every function takes
// the store, the acting session and a plain request, and returns what
// changed; the command line words its output.
package issues
