package command

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
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
	// Issue is the ID (argument or --issue) whose whole history to show;
	// "" for the repository's log.
	Issue string
	Limit int
	// Since is --since for the repository's log: "1w", "3d", "12h", a
	// date or a time; "" for a week.
	Since string
	// Author is --author for the repository's log.
	Author string
}

func (r *runner) logCommand(runF func(*LogOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "what changed: an issue's history, or every issue's since a time",
		ArgsUsage: "[ID]",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "show only the `N` most recent entries"},
			&cli.StringFlag{Name: "issue", Usage: "the issue whose history to show (the same as giving its `ID`)"},
			&cli.StringFlag{Name: "since", Usage: "without an ID: what happened since `WHEN` (1w, 3d, 12h, today, yesterday, 2026-11-01 or a time; default 1w)"},
			&cli.StringFlag{Name: "author", Usage: "without an ID: only what `NAME` did (a session's or person's name or email, or part of one)"},
		},
		Description: `With an ID, merges the issue's ledger (.todos/history/ID.jsonl) with the
commits reachable from HEAD that changed its file or its ledger, oldest
first. Each commit shows its short hash, author, subject and trailers
(Td-Session, Td-Action, Td-Issue and any others), then what it changed in
the issue in one line: status, fields, labels, links, criteria and todos,
and the ledger lines it added. A ledger entry and the commit that recorded
it in the same second come in that order. A merge commit says what it
resolved between its two parents' edits and what it lost; a ledger entry
whose change a merge did not keep is marked "(lost in merge HASH)".
Outside git, the ledger alone.

Without an ID, td log is what changed in the repository: every issue's
ledger entries and the commits that changed .todos, merged by time, since
--since (a week by default), optionally only --author's.

Examples:
   td log td-k3x9qa
   td log k3x --limit 5
   td log --since 3d
   td log --since yesterday
   td log --since 2026-11-01 --author bob
   td log k3x --json`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, 1, "[ID]")
			if err != nil {
				return err
			}
			limit := c.Int("limit")
			if limit < 0 {
				return usagef("--limit %d must be a positive number of entries (or 0 for all)", limit)
			}
			o := &LogOptions{Issue: c.String("issue"), Limit: limit, Since: c.String("since"), Author: c.String("author")}
			if len(a) == 1 {
				if o.Issue != "" {
					return usagef("give the issue as ID or as --issue, not both")
				}
				o.Issue = a[0]
			}
			if o.Issue != "" && (o.Since != "" || o.Author != "") {
				return usagef("--since and --author are for the repository's log; td log %s shows the issue's whole history", o.Issue)
			}
			if runF != nil {
				return runF(o)
			}
			return r.runLog(o)
		},
	}
}

func (r *runner) runLog(o *LogOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	if o.Issue == "" {
		return r.runRepoLog(s, o)
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
// key order, then its reason. Values read as a person writes them: a word
// bare, text quoted, a change of one value as old->new (none for empty),
// lists joined by commas.
func ledgerDetails(e *audit.Entry) string {
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+detailValue(e.Details[k]))
	}
	if e.Reason != "" {
		parts = append(parts, "reason="+detailText(e.Reason))
	}
	return strings.Join(parts, " ")
}

// detailValue renders one ledger detail value for the terminal.
func detailValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "none"
	case string:
		return detailText(x)
	case bool, float64, int, int64:
		return fmt.Sprint(x)
	case []any:
		if len(x) == 0 {
			return "none"
		}
		items := make([]string, len(x))
		for i, it := range x {
			items[i] = detailValue(it)
		}
		return strings.Join(items, ",")
	case map[string]any:
		from, okF := x["from"]
		to, okT := x["to"]
		if okF && okT && len(x) == 2 {
			return detailValue(from) + "->" + detailValue(to)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		items := make([]string, len(keys))
		for i, k := range keys {
			items[i] = k + ":" + detailValue(x[k])
		}
		return "{" + strings.Join(items, ",") + "}"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// detailText renders a text value: bare when it is one plain word, quoted
// when it is empty or holds spaces, quotes or separators.
func detailText(s string) string {
	if s == "" {
		return "none"
	}
	if strings.ContainsAny(s, " \t\n\"'=,{}:>") {
		return strconv.Quote(s)
	}
	return s
}

// runRepoLog prints what changed in the repository since o.Since.
func (r *runner) runRepoLog(s *repo.Store, o *LogOptions) error {
	spec := o.Since
	if spec == "" {
		spec = "1w"
	}
	since, err := parseSince(spec, s.Now())
	if err != nil {
		return err
	}
	entries, errs, err := review.RepoLog(s, review.RepoLogOptions{Since: since, Author: o.Author, Limit: o.Limit})
	if err != nil {
		return err
	}
	for _, e := range errs {
		r.st.warnf("%v", e)
	}
	return r.st.export(func() any {
		type entryJSON struct {
			TS string `json:"ts"`
			review.RepoLogEntry
		}
		out := struct {
			Since   string      `json:"since"`
			Entries []entryJSON `json:"entries"`
		}{Since: jsonTime(since), Entries: []entryJSON{}}
		for _, e := range entries {
			out.Entries = append(out.Entries, entryJSON{TS: jsonTime(e.Time), RepoLogEntry: e})
		}
		return out
	}, func() error {
		if len(entries) == 0 {
			r.st.printf("Nothing changed since %s.\n", jsonTime(since))
			return nil
		}
		for _, e := range entries {
			ts := e.Time.UTC().Format(time.RFC3339)
			if c := e.Commit; c != nil {
				r.st.printf("%s  commit  %s  %s  %s\n", ts, r.st.paint(ansiYellow, shortHash(c.Hash)), safe(c.Author), safe(c.Subject))
				continue
			}
			le := e.Ledger
			who := le.Session
			if e.Who != "" {
				who = e.Who + " (" + le.Session + ")"
			}
			line := fmt.Sprintf("%s  %s  %s  %s  %s", ts, e.Issue, orDash(who), le.Action, e.Title)
			if d := ledgerDetails(le); d != "" {
				line += "  " + d
			}
			r.st.printf("%s\n", safe(line))
		}
		return nil
	})
}

// parseSince reads --since: a duration back from now ("1w", "3d",
// "12h", "30m"), today or yesterday (from the start of that UTC day), a date (taken as its start, UTC) or an RFC 3339 time.
func parseSince(v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if n := len(v); n >= 2 {
		if k, err := strconv.Atoi(v[:n-1]); err == nil && k >= 0 {
			unit := map[byte]time.Duration{'w': 7 * 24 * time.Hour, 'd': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[v[n-1]]
			if unit != 0 {
				return now.Add(-time.Duration(k) * unit), nil
			}
		}
	}
	day := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	switch strings.ToLower(v) {
	case "today":
		return day, nil
	case "yesterday":
		return day.AddDate(0, 0, -1), nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, &usageError{fmt.Sprintf("--since %q is not a time: give 1w, 3d, 12h, 30m, today, yesterday, a date (2026-11-01) or a time (2026-11-01T09:00:00Z)", v)}
}
