package review

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// IssueLog is an issue's story as td log tells it: the entries of its
// ledger and the commits that touched its file or its ledger, merged by
// time, oldest first.
type IssueLog struct {
	ID      string
	Title   string
	Entries []LogEntry
	// InGit is false when the tree is not in a git repository (or git mode
	// is off and there is none): the log is then the ledger alone.
	InGit bool
}

// LogEntry is one entry of an issue's log: a ledger entry or a commit,
// exactly one of which is set. Time is the entry's ts or the commit's
// committer date.
type LogEntry struct {
	Time   time.Time
	Ledger *audit.Entry
	Commit *LogCommit
	// LostIn is, for a ledger entry, the merge commit that did not keep
	// the change it records (see LogCommit.Merge): the entry tells what
	// was done on one branch, not what the issue file says since.
	LostIn string
}

// LogCommit is a commit that changed an issue's file or ledger, with what
// it changed there.
type LogCommit struct {
	Hash     string
	Time     time.Time // the committer date, which orders the log
	Author   gitrepo.Signature
	Subject  string
	Trailers []gitrepo.Trailer
	// Files are the issue's files the commit changed, repository-relative.
	Files []string
	// Changes is what changed in the issue file, as DescribeIssueChange
	// reads the two versions; LedgerAdded the actions of the ledger lines
	// the commit added, LedgerRemoved how many lines it took away (an
	// append-only ledger never loses one).
	Changes       []IssueEvent
	LedgerAdded   []string
	LedgerRemoved int
	// Unreadable says why a version of the issue file could not be read;
	// Changes is then empty.
	Unreadable string
	// Merge is a merge commit's account of the issue file against both
	// parents and their merge base (DescribeMerge): what it resolved
	// between the two sides' edits, and what it lost. Changes are still
	// against the first parent.
	Merge []MergeOutcome

	ledgerLines []audit.Entry // the readable ledger lines it added
	lostLedger  []string      // ledger lines (ledgerKey) recording a change this merge lost
}

// Summary is the commit's change to the issue in one line: the issue
// file's events, then the ledger's growth.
func (c *LogCommit) Summary() string {
	var parts []string
	switch {
	case c.Unreadable != "":
		parts = append(parts, "issue file unreadable: "+c.Unreadable)
	case len(c.Changes) > 0 || len(c.Merge) > 0:
		// A change an outcome accounts for is told once, by the outcome.
		told := map[string]bool{}
		for _, o := range c.Merge {
			told[o.key] = true
		}
		var events []string
		for _, e := range c.Changes {
			if !told[facetKey(e)] {
				events = append(events, e.String())
			}
		}
		if len(events) > 0 {
			parts = append(parts, strings.Join(events, "; "))
		}
		if len(c.Merge) > 0 {
			parts = append(parts, mergeSummary(c.Merge))
		}
	case c.touches(repo.IssuesDir):
		parts = append(parts, "issue file touched, nothing td tracks changed")
	}
	if n := len(c.LedgerAdded); n > 0 {
		parts = append(parts, fmt.Sprintf("ledger +%d: %s", n, strings.Join(c.LedgerAdded, ", ")))
	}
	if c.LedgerRemoved > 0 {
		parts = append(parts, fmt.Sprintf("ledger -%d (lines removed from an append-only ledger)", c.LedgerRemoved))
	}
	if len(parts) == 0 {
		return "no change td tracks"
	}
	return strings.Join(parts, "; ")
}

// touches reports whether the commit changed the issue's file in dir
// (IssuesDir or HistoryDir).
func (c *LogCommit) touches(dir string) bool {
	for _, f := range c.Files {
		if strings.HasPrefix(f, repo.TodosDir+"/"+dir+"/") {
			return true
		}
	}
	return false
}

// Log returns the issue's ledger entries and the commits reachable from
// HEAD that changed .todos/issues/ID.md or .todos/history/ID.jsonl, merged
// by time (an entry's ts, a commit's committer date), oldest first. Within
// one second, commits keep the order of history and each ledger entry
// comes just before the commit that added its line, so a session's actions
// read in the order they happened even when they share a timestamp; ledger
// entries no commit added yet come last. limit > 0 keeps the limit most
// recent entries. Ledger lines td cannot read, and an issue file td cannot
// read, become warnings.
func Log(s *repo.Store, ref string, limit int) (*IssueLog, error) {
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, err
	}
	out := &IssueLog{ID: id}
	// A file td cannot read still has a history worth reading.
	if is, err := s.ReadIssueFile(id); err == nil {
		out.Title = is.Title
	} else {
		s.Warnf("%v", err)
	}
	ledger, lerrs, err := s.Ledger(id)
	if err != nil {
		return nil, err
	}
	for _, le := range lerrs {
		s.Warnf("%v", le)
	}
	var commits []*LogCommit
	var committed []audit.Entry
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g != nil {
		out.InGit = true
		if commits, err = issueCommits(s, g, id, limit); err != nil {
			return nil, err
		}
		head, err := g.FileAt("HEAD", repo.TodosDir+"/"+repo.HistoryDir+"/"+id+".jsonl")
		if err == nil {
			committed, _ = audit.ParseLedger(head)
		}
	}
	out.Entries = mergeLog(ledger, commits, committed)
	lostIn := map[string]string{}
	for _, c := range commits {
		for _, k := range c.lostLedger {
			lostIn[k] = c.Hash
		}
	}
	for i, e := range out.Entries {
		if e.Ledger != nil {
			out.Entries[i].LostIn = lostIn[ledgerKey(*e.Ledger)]
		}
	}
	if limit > 0 && len(out.Entries) > limit {
		out.Entries = out.Entries[len(out.Entries)-limit:]
	}
	return out, nil
}

// mergeLog orders ledger entries (in file order) and commits (oldest first
// in history's order) as Log describes. Each ledger entry is matched to the
// first commit that added a line reading the same; entries are then sorted
// by time, then by the commit that recorded them, and a commit follows its
// own entries. An entry no listed commit recorded comes before the
// second's commits when HEAD's ledger has it (an older commit, beyond the
// limit, recorded it) and after them otherwise (nobody committed it yet).
func mergeLog(ledger []audit.Entry, commits []*LogCommit, committed []audit.Entry) []LogEntry {
	type keyed struct {
		e      LogEntry
		commit int // the recording commit; -1 before any, len(commits) after all
		second int // 0 for a ledger entry, 1 for the commit after it
	}
	keys := make([]string, len(ledger))
	recordedBy := make([]int, len(ledger))
	for i := range ledger {
		keys[i] = ledgerKey(ledger[i])
		recordedBy[i] = len(commits)
	}
	inHead := map[string]int{}
	for _, e := range committed {
		inHead[ledgerKey(e)]++
	}
	for k, c := range commits {
		for _, added := range c.ledgerLines {
			key := ledgerKey(added)
			for i := range ledger {
				if recordedBy[i] == len(commits) && keys[i] == key {
					recordedBy[i] = k
					inHead[key]--
					break
				}
			}
		}
	}
	for i := range ledger {
		if recordedBy[i] == len(commits) && inHead[keys[i]] > 0 {
			recordedBy[i] = -1
			inHead[keys[i]]--
		}
	}
	all := make([]keyed, 0, len(ledger)+len(commits))
	for i := range ledger {
		all = append(all, keyed{e: LogEntry{Time: ledger[i].TS, Ledger: &ledger[i]}, commit: recordedBy[i]})
	}
	for k, c := range commits {
		all = append(all, keyed{e: LogEntry{Time: c.Time, Commit: c}, commit: k, second: 1})
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		ta, tb := a.e.Time.Truncate(time.Second), b.e.Time.Truncate(time.Second)
		switch {
		case !ta.Equal(tb):
			return ta.Before(tb)
		case a.commit != b.commit:
			return a.commit < b.commit
		}
		return a.second < b.second
	})
	out := make([]LogEntry, len(all))
	for i, k := range all {
		out[i] = k.e
	}
	return out
}

// ledgerKey identifies a ledger entry by its canonical encoding, so that
// the same line read from two versions of the ledger matches.
func ledgerKey(e audit.Entry) string {
	b, err := e.MarshalJSON()
	if err != nil {
		return fmt.Sprint(e)
	}
	return string(b)
}

// issueCommits lists the commits that changed the issue's file or ledger,
// oldest first in history's order, each with what it changed. With
// limit > 0, only the limit newest are read.
func issueCommits(s *repo.Store, g *gitrepo.Repo, id string, limit int) ([]*LogCommit, error) {
	file := repo.TodosDir + "/" + repo.IssuesDir + "/" + id + ".md"
	ledger := repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl"
	history, err := g.PathsHistory([]string{file, ledger}, limit)
	if err != nil {
		return nil, repo.Errorf(repo.CodeInternal, "read the git history of %s: %v", id, err)
	}
	out := make([]*LogCommit, len(history))
	for i, h := range history {
		gc := h.Commit
		subject, _, _ := strings.Cut(strings.TrimSpace(gc.Message), "\n")
		c := &LogCommit{Hash: gc.Hash, Time: gc.Committer.When, Author: gc.Author, Subject: subject, Trailers: gc.Trailers, Files: h.Paths}
		parent := ""
		if len(gc.Parents) > 0 {
			parent = gc.Parents[0]
		}
		if c.touches(repo.IssuesDir) {
			before, after, err := fileVersions(g, parent, gc.Hash, file)
			if err != nil {
				return nil, err
			}
			if c.Changes, err = DescribeIssueChange(before, after); err != nil {
				c.Unreadable = err.Error()
			}
		}
		// A merge is told against both sides even when its issue file is
		// the first parent's (a resolution that kept ours): what it kept
		// of the other side's edits is the story.
		if len(gc.Parents) == 2 && c.Unreadable == "" {
			if c.Merge, c.lostLedger, err = describeMergeCommit(g, gc, file, ledger); err != nil {
				return nil, err
			}
		}
		if c.touches(repo.HistoryDir) {
			before, after, err := fileVersions(g, parent, gc.Hash, ledger)
			if err != nil {
				return nil, err
			}
			c.ledgerDelta(before, after)
		}
		out[len(history)-1-i] = c
	}
	return out, nil
}

// fileVersions reads path in the parent commit ("" for none) and in the
// commit; a version that does not exist is nil.
func fileVersions(g *gitrepo.Repo, parent, commit, path string) (before, after []byte, err error) {
	read := func(rev string) ([]byte, error) {
		if rev == "" {
			return nil, nil
		}
		b, err := g.FileAt(rev, path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, repo.Errorf(repo.CodeInternal, "read %s at %.7s: %v", path, rev, err)
		}
		if b == nil {
			b = []byte{}
		}
		return b, nil
	}
	if before, err = read(parent); err != nil {
		return nil, nil, err
	}
	after, err = read(commit)
	return before, after, err
}

// ledgerDelta compares two versions of the issue's ledger line by line:
// the lines after has and before had not are the commit's additions (in
// file order, each once; "?" names a line td cannot read), and the lines
// before had that after lacks altogether are removals. A line before had
// that arrives again (a union merge after a squash merge) is neither: it
// is the same entry.
func (c *LogCommit) ledgerDelta(before, after []byte) {
	had := map[string]bool{}
	for _, l := range audit.UniqueLines(before) {
		had[l] = true
	}
	for _, l := range audit.ReadLedgerLines(after) {
		if l.Repeat {
			continue
		}
		if had[l.Text] {
			delete(had, l.Text)
			continue
		}
		if l.Err != nil {
			c.LedgerAdded = append(c.LedgerAdded, "?")
			continue
		}
		c.LedgerAdded = append(c.LedgerAdded, l.Entry.Action)
		c.ledgerLines = append(c.ledgerLines, l.Entry)
	}
	c.LedgerRemoved = len(had)
}
