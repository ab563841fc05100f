package review

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/people"
)

// RepoLogOptions narrow the repository's log.
type RepoLogOptions struct {
	// Since keeps what happened at or after it; zero for everything.
	Since time.Time
	// Author keeps the ledger entries of sessions whose name or person
	// matches it and the commits whose author's name or email does
	// (case-insensitive, part of a word is enough); "" for all.
	Author string
	// Limit keeps the most recent; 0 for all.
	Limit int
}

// RepoLogEntry is one line of the repository's log: a ledger entry of an
// issue, or a commit that changed .todos.
type RepoLogEntry struct {
	Time   time.Time    `json:"-"`
	Kind   string       `json:"kind"` // "ledger" or "commit"
	Issue  string       `json:"issue,omitempty"`
	Title  string       `json:"title,omitempty"`
	Ledger *audit.Entry `json:"ledger,omitempty"`
	// Who names a ledger entry's session for people ("Bob"), "" when
	// unknown.
	Who    string         `json:"who,omitempty"`
	Commit *RepoLogCommit `json:"commit,omitempty"`
}

// RepoLogCommit is a commit in the repository's log.
type RepoLogCommit struct {
	Hash    string `json:"hash"`
	Author  string `json:"author"`
	Subject string `json:"subject"`
}

// RepoLog is what changed in the repository's issues: every issue's ledger
// entries and the commits reachable from HEAD that changed .todos, merged
// by time, oldest first.
func RepoLog(s *repo.Store, o RepoLogOptions) ([]RepoLogEntry, []error, error) {
	all, errs, err := s.LoadAll()
	if err != nil {
		return nil, nil, err
	}
	titles := map[string]string{}
	ids := make([]string, 0, len(all))
	for _, is := range all {
		titles[is.ID] = is.Title
		ids = append(ids, is.ID)
	}
	author := strings.ToLower(strings.TrimSpace(o.Author))
	names := map[string]string{} // session ID -> "Name" and its person, for --author
	who := func(session string) string {
		n, ok := names[session]
		if !ok {
			n = people.NameOf(s, session)
			if se, err := s.Session(session); err == nil {
				n += "\x00" + se.Author
			}
			names[session] = n
		}
		name, _, _ := strings.Cut(n, "\x00")
		return name
	}
	perIssue := make([][]RepoLogEntry, len(ids))
	readErrs := make([]error, len(ids))
	repo.ForEach(len(ids), repo.IOWorkers(), 64, func(i int) {
		data, err := s.ReadRaw(repo.HistoryDir, ids[i]+".jsonl")
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				readErrs[i] = err
			}
			return
		}
		entries, _ := audit.ParseLedger(data)
		for j := range entries {
			e := entries[j]
			if !o.Since.IsZero() && e.TS.Before(o.Since) {
				continue
			}
			perIssue[i] = append(perIssue[i], RepoLogEntry{Time: e.TS, Kind: "ledger", Issue: ids[i], Title: titles[ids[i]], Ledger: &e})
		}
	})
	var out []RepoLogEntry
	for i := range perIssue {
		if readErrs[i] != nil {
			errs = append(errs, readErrs[i])
		}
		for _, e := range perIssue[i] {
			e.Who = who(e.Ledger.Session)
			if author != "" && !strings.Contains(strings.ToLower(names[e.Ledger.Session]), author) {
				continue
			}
			out = append(out, e)
		}
	}
	g, err := s.GitRepo()
	if err != nil {
		return nil, nil, err
	}
	if g != nil {
		prefix, err := s.TodosInRepo(g)
		if err != nil {
			return nil, nil, err
		}
		changes, err := g.PathHistory(prefix, 0)
		if err != nil {
			return nil, nil, err
		}
		for _, ch := range changes {
			c := ch.Commit
			when := c.Committer.When
			if !o.Since.IsZero() && when.Before(o.Since) {
				continue
			}
			if author != "" && !strings.Contains(strings.ToLower(c.Author.String()), author) {
				continue
			}
			subject, _, _ := strings.Cut(c.Message, "\n")
			out = append(out, RepoLogEntry{Time: when, Kind: "commit", Commit: &RepoLogCommit{Hash: c.Hash, Author: c.Author.String(), Subject: subject}})
		}
	}
	// By time; in one second, an issue's entries before the commit that
	// recorded them, as td log ID orders them.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		return a.Kind == "ledger" && b.Kind == "commit"
	})
	if o.Limit > 0 && len(out) > o.Limit {
		out = out[len(out)-o.Limit:]
	}
	return out, errs, nil
}
