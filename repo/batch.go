package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tdproject/td/repo/gitrepo"
)

// Git mode auto with git.batch: true makes one commit of many commands:
// each transaction stages the files it wrote, as git mode stage does, and
// notes its trailers in .todos/local/pending-commit.jsonl; td commit (or a
// harness's Stop hook) then commits exactly those files, with every
// trailer the transactions noted, in one new commit on top of HEAD. No
// commit is ever amended, so nothing already pushed is rewritten.

// pendingFile holds the notes of the transactions td commit has yet to
// commit, one JSON object a line, under .todos/local.
const pendingFile = "pending-commit.jsonl"

// pendingNote is one transaction waiting for td commit.
type pendingNote struct {
	Ref     string   `json:"ref"` // the branch HEAD named when the transaction began
	Session string   `json:"session,omitempty"`
	Actions []string `json:"actions,omitempty"`
	Issues  []string `json:"issues,omitempty"`
	Paths   []string `json:"paths"` // relative to the work tree, slash-separated
}

// pend ends a transaction in batched auto mode: its files are staged and
// its trailers noted for td commit. It returns what the index recorded.
func (s *Store) pend(tx *Tx, g *gitrepo.Repo) []gitrepo.StagedBlob {
	blobs := s.stage(tx.written)
	if blobs == nil {
		return nil
	}
	n := pendingNote{Session: tx.note.session, Actions: tx.note.actions, Issues: tx.note.issues, Paths: gitPaths(g, tx.written)}
	if n.Session == "" {
		n.Session = s.actor
	}
	for _, p := range n.Paths {
		// A transaction that only starts a session speaks for that one.
		if name, ok := strings.CutPrefix(p, TodosDir+"/"+SessionsDir+"/"); ok && n.Session == "" && strings.HasSuffix(name, ".yaml") {
			n.Session = strings.TrimSuffix(name, ".yaml")
		}
	}
	if tx.git.head != nil {
		n.Ref = tx.git.head.Ref
	}
	line, err := json.Marshal(n)
	if err == nil {
		var warn string
		warn, err = appendLine(s.Path(LocalDir, pendingFile), line, nil)
		if warn != "" {
			s.warnf("%s%s", s.rel(s.Path(LocalDir, pendingFile)), warn)
		}
	}
	if err != nil {
		s.warnf("staged, but td commit will not know of it: %v; commit with git commit", err)
	}
	return blobs
}

// readPending reads the notes td commit has to commit; a line it cannot
// read (cut short by a crash) is skipped, as its files are staged anyway.
func (s *Store) readPending() ([]pendingNote, error) {
	data, err := readRegular(s.Path(LocalDir, pendingFile), maxLedgerSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.FileError(s.Path(LocalDir, pendingFile), err)
	}
	var notes []pendingNote
	for _, line := range bytes.Split(data, []byte("\n")) {
		var n pendingNote
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &n) != nil {
			continue
		}
		notes = append(notes, n)
	}
	return notes, nil
}

// PendingCommit is what td commit committed.
type PendingCommit struct {
	Hash     string   // the new commit; "" when there was nothing to commit
	Subject  string   // its subject
	Paths    []string // the files it recorded
	Sessions []string // its Td-Session trailers
	Actions  []string // its Td-Action trailers
	Issues   []string // its Td-Issue trailers
}

// CommitPending makes one commit of the writes td's transactions left
// staged in batched auto mode, with all their trailers: sessions, actions
// and issues in the order first noted. Nothing else the person staged is
// part of it. With nothing pending, or when the pending files already are
// as HEAD has them (the person committed them), it commits nothing and
// forgets the notes. When HEAD names another branch than the one the
// writes were made on, it refuses and keeps them.
func (s *Store) CommitPending() (PendingCommit, error) {
	var out PendingCommit
	err := s.Update(func(*Tx) error {
		notes, err := s.readPending()
		if err != nil || len(notes) == 0 {
			return err
		}
		g, err := s.GitRepo()
		if err != nil {
			return err
		}
		if g == nil {
			return Errorf(CodeRefused, "td commit needs a git repository")
		}
		head, err := g.Head()
		if err != nil {
			return err
		}
		var note commitNote
		var sessions []string
		ref := ""
		for _, n := range notes {
			if ref == "" {
				ref = n.Ref
			}
			if n.Session != "" {
				sessions = AppendNew(sessions, n.Session)
			}
			for _, a := range n.Actions {
				note.actions = AppendNew(note.actions, a)
			}
			for _, id := range n.Issues {
				note.issues = AppendNew(note.issues, id)
			}
			for _, p := range n.Paths {
				out.Paths = AppendNew(out.Paths, p)
			}
		}
		if ref != "" && head.Ref != ref {
			return Errorf(CodeConflict, "td's pending writes were made on %s, and HEAD is now %s: check out %s and run td commit again", shortBranch(ref), shortBranch(head.Ref), shortBranch(ref))
		}
		if len(sessions) > 0 {
			note.session = sessions[0]
		}
		msg := withSessions(commitMessage(note, s.actor, out.Paths), sessions)
		author, committer, err := s.commitIdentities()
		if err != nil {
			return err
		}
		res, err := g.Commit(gitrepo.CommitRequest{Paths: out.Paths, Message: msg, Author: author, Committer: committer, Since: &head})
		s.takeGitWarnings(g)
		if err != nil {
			return fmt.Errorf("commit td's pending writes: %w", err)
		}
		out.Hash = res.Hash
		out.Subject, _, _ = strings.Cut(msg, "\n")
		for _, line := range strings.Split(msg, "\n") {
			if v, ok := strings.CutPrefix(line, TrailerSession+": "); ok {
				out.Sessions = append(out.Sessions, v)
			} else if v, ok := strings.CutPrefix(line, TrailerAction+": "); ok {
				out.Actions = append(out.Actions, v)
			} else if v, ok := strings.CutPrefix(line, TrailerIssue+": "); ok {
				out.Issues = append(out.Issues, v)
			}
		}
		if err := os.Remove(s.Path(LocalDir, pendingFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.warnf("committed, but %s stays: %v", s.rel(s.Path(LocalDir, pendingFile)), err)
		}
		return nil
	})
	if out.Hash == "" {
		out.Paths = nil
	}
	return out, err
}

// withSessions adds a Td-Session trailer for each session after the first,
// which commitMessage wrote.
func withSessions(msg string, sessions []string) string {
	if len(sessions) < 2 {
		return msg
	}
	first := TrailerSession + ": " + sessions[0] + "\n"
	i := strings.Index(msg, first)
	if i < 0 {
		return msg
	}
	var more strings.Builder
	for _, se := range sessions[1:] {
		more.WriteString(TrailerSession + ": " + se + "\n")
	}
	at := i + len(first)
	return msg[:at] + more.String() + msg[at:]
}

// shortBranch names a branch as people do: main, not refs/heads/main.
func shortBranch(ref string) string {
	return strings.TrimPrefix(ref, "refs/heads/")
}
