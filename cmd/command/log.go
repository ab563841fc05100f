package command

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo/review"
	"github.com/urfave/cli/v2"
)

// issueLogJSON is td log --json.
type issueLogJSON struct {
	ID      string         `json:"id"`
	Title   string         `json:"title"`
	InGit   bool           `json:"in_git"`
	Entries []logEntryJSON `json:"entries"`
}

// logEntryJSON is one entry: kind "ledger" with the ledger line as written,
// or kind "commit" with the commit.
type logEntryJSON struct {
	Kind   string         `json:"kind"`
	TS     string         `json:"ts"`
	Ledger *audit.Entry   `json:"ledger,omitempty"`
	Commit *logCommitJSON `json:"commit,omitempty"`
	// LostIn is, for a ledger entry, the merge commit that did not keep
	// the change the entry records.
	LostIn string `json:"lost_in,omitempty"`
}

type logCommitJSON struct {
	Hash          string              `json:"hash"`
	Short         string              `json:"short"`
	Author        logAuthorJSON       `json:"author"`
	Subject       string              `json:"subject"`
	Trailers      []logTrailerJSON    `json:"trailers"`
	Files         []string            `json:"files"`
	Changes       []review.IssueEvent `json:"changes"`
	LedgerAdded   []string            `json:"ledger_added"`
	LedgerRemoved int                 `json:"ledger_removed"`
	Unreadable    string              `json:"unreadable,omitempty"`
	// Merge is a merge commit's account of the issue: what it resolved
	// between its parents' edits, and what it lost.
	Merge   []review.MergeOutcome `json:"merge,omitempty"`
	Summary string                `json:"summary"`
}

type logAuthorJSON struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"` // RFC 3339, in the zone the commit recorded
}

type logTrailerJSON struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// LogOptions are td log's inputs, as parsed from the command line.
type LogOptions struct {
	// Issue is the issue whose history to show, as typed (an ID or a prefix).
	Issue string
	// Limit is --limit: the most recent entries to show, 0 for all.
	Limit int
}

// logCommand is td log. runF, when not nil, replaces runLog.
func (r *runner) logCommand(runF func(*LogOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "an issue's history: its ledger and the commits that touched it",
		ArgsUsage: "ID",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "show only the `N` most recent entries"},
		},
		Description: `Merges the issue's ledger (.todos/history/ID.jsonl) with the commits
reachable from HEAD that changed its file or its ledger, oldest first. Each
commit shows its short hash, author, subject and trailers (Td-Session,
Td-Action, Td-Issue and any others), then what it changed in the issue in
one line: status, fields, labels, links, criteria and todos, and the
ledger lines it added. A ledger entry and the commit that recorded it in
the same second come in that order. A merge commit says what it resolved
between its two parents' edits and what it lost; a ledger entry whose
change a merge did not keep is marked "(lost in merge HASH)". Outside git,
the ledger alone.

Examples:
   td log td-k3x9qa
   td log k3x --limit 5
   td log k3x --json`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			limit := c.Int("limit")
			if limit < 0 {
				return usagef("--limit %d must be a positive number of entries (or 0 for all)", limit)
			}
			o := &LogOptions{Issue: a[0], Limit: limit}
			if runF != nil {
				return runF(o)
			}
			return r.runLog(o)
		},
	}
}

// runLog prints the issue's ledger and commits, merged by time.
func (r *runner) runLog(o *LogOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	l, err := review.Log(s, o.Issue, o.Limit)
	if err != nil {
		return err
	}
	return r.st.export(func() any { return toIssueLogJSON(l) }, func() error {
		r.printLog(l)
		return nil
	})
}

func toIssueLogJSON(l *review.IssueLog) issueLogJSON {
	out := issueLogJSON{ID: l.ID, Title: l.Title, InGit: l.InGit, Entries: []logEntryJSON{}}
	for _, e := range l.Entries {
		j := logEntryJSON{TS: jsonTime(e.Time), Ledger: e.Ledger, LostIn: e.LostIn}
		if e.Ledger != nil {
			j.Kind = "ledger"
		} else {
			j.Kind = "commit"
			c := e.Commit
			cj := &logCommitJSON{Hash: c.Hash, Short: shortHash(c.Hash), Subject: c.Subject,
				Author:   logAuthorJSON{Name: c.Author.Name, Email: c.Author.Email, Date: c.Author.When.Format(time.RFC3339)},
				Trailers: []logTrailerJSON{}, Files: c.Files, Changes: c.Changes, LedgerAdded: c.LedgerAdded,
				LedgerRemoved: c.LedgerRemoved, Unreadable: c.Unreadable, Merge: c.Merge, Summary: c.Summary()}
			for _, t := range c.Trailers {
				cj.Trailers = append(cj.Trailers, logTrailerJSON{Key: t.Key, Value: t.Value})
			}
			if cj.Changes == nil {
				cj.Changes = []review.IssueEvent{}
			}
			if cj.LedgerAdded == nil {
				cj.LedgerAdded = []string{}
			}
			j.Commit = cj
		}
		out.Entries = append(out.Entries, j)
	}
	return out
}

// printLog prints the log, one line per ledger entry and a block per
// commit:
//
//	2026-11-21T10:00:00Z  ledger  Lead Operator (ses_eohe8m2y)  created  title="Sign in"
//	2026-11-21T10:00:00Z  commit  4f1c2d3  Lead Operator <lead@example.com>  td: create td-qkm5oz
//	    Td-Session: Lead Operator (ses_eohe8m2y)
//	    changed: opened: "Sign in"; ledger +1: created
func (r *runner) printLog(l *review.IssueLog) {
	r.st.printf("%s  %s\n", r.st.paint(ansiBold, l.ID), safe(l.Title))
	if len(l.Entries) == 0 {
		r.st.printf("\nno history yet\n")
		return
	}
	r.st.printf("\n")
	for _, e := range l.Entries {
		ts := e.Time.UTC().Format(time.RFC3339)
		if le := e.Ledger; le != nil {
			line := fmt.Sprintf("%s  ledger  %s  %s", ts, orDash(r.who(le.Session)), le.Action)
			if le.Type != "" {
				line += " [" + le.Type + "]"
			}
			if d := ledgerDetails(le); d != "" {
				line += "  " + d
			}
			if e.LostIn != "" {
				line += "  (lost in merge " + shortHash(e.LostIn) + ")"
			}
			r.st.printf("%s\n", safe(line))
			continue
		}
		c := e.Commit
		r.st.printf("%s  commit  %s  %s  %s\n", ts, r.st.paint(ansiYellow, shortHash(c.Hash)), safe(c.Author.String()), safe(c.Subject))
		for _, t := range c.Trailers {
			v := t.Value
			if strings.EqualFold(t.Key, "Td-Session") {
				v = r.who(v)
			}
			r.st.printf("    %s: %s\n", safe(t.Key), safe(v))
		}
		r.st.printf("    changed: %s\n", safe(c.Summary()))
	}
}

// ledgerDetails renders a ledger entry's details as key=value pairs in
// key order, values as JSON, then its reason.
func ledgerDetails(e *audit.Entry) string {
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		v, err := json.Marshal(e.Details[k])
		if err != nil {
			v = []byte(fmt.Sprint(e.Details[k]))
		}
		parts = append(parts, k+"="+string(v))
	}
	if e.Reason != "" {
		r, _ := json.Marshal(e.Reason)
		parts = append(parts, "reason="+string(r))
	}
	return strings.Join(parts, " ")
}
