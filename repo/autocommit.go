package repo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/repo/gitrepo"
)

// Git mode auto: a transaction that wrote files ends with one commit of
// exactly those files, on top of HEAD, whose trailers say who acted
// (Td-Session), what they did (Td-Action, one per action) and to which
// issues (Td-Issue). The review policy reads those trailers back.

// Td-Action values of transactions the ledger has no entry for.
const (
	actionTodosChanged   = "todos_changed"   // steps of a checklist: routine churn, kept out of the ledger
	actionSessionStarted = "session_started" // a session's identity file
	actionConfigChanged  = "config_changed"  // .todos/config.yaml
	actionSecurityEvent  = "security_event"  // a line of security_events.jsonl
	actionUpdated        = "updated"         // any other file td wrote, such as td fmt's
)

// Trailer keys of td's commits.
const (
	TrailerSession = "Td-Session"
	TrailerAction  = "Td-Action"
	TrailerIssue   = "Td-Issue"
)

// commitNote is what a transaction tells its commit: the session acting,
// the ledger actions in the order recorded, the issues they concern.
type commitNote struct {
	session string
	actions []string
	issues  []string
}

// describe tells the transaction's commit who acted, what they did and on
// which issue; empty values add nothing. The first session named is the
// one recorded.
func (tx *Tx) describe(session, action, issue string) {
	n := &tx.note
	if n.session == "" {
		n.session = session
	}
	if action != "" && !slices.Contains(n.actions, action) {
		n.actions = append(n.actions, action)
	}
	if issue != "" && !slices.Contains(n.issues, issue) {
		n.issues = append(n.issues, issue)
	}
}

// commitMessage is the message of the commit of a transaction that wrote
// paths (relative to the work tree root): a subject from the first action
// that is not routine, a blank line, then the trailers. The session is the
// one the transaction named, else actor (the session the command acts as).
// Files the transaction did not describe speak for themselves: a session
// file says a session started, an issue or ledger file names its issue.
func commitMessage(note commitNote, actor string, paths []string) string {
	n := commitNote{session: note.session, issues: append([]string(nil), note.issues...)}
	if n.session == "" {
		n.session = actor
	}
	for _, a := range note.actions {
		if a != actionTodosChanged || len(note.actions) == 1 {
			n.actions = append(n.actions, a)
		}
	}
	inferred := len(n.actions) == 0
	started := ""
	for _, p := range paths {
		rel, ok := strings.CutPrefix(p, TodosDir+"/")
		if !ok {
			continue
		}
		dir, name, _ := strings.Cut(rel, "/")
		switch {
		case dir == SessionsDir && strings.HasSuffix(name, ".yaml"):
			if started == "" {
				started = strings.TrimSuffix(name, ".yaml")
			}
			if inferred {
				n.actions = AppendNew(n.actions, actionSessionStarted)
			}
		case rel == ConfigFile && inferred:
			n.actions = AppendNew(n.actions, actionConfigChanged)
		case rel == SecurityEvents && inferred:
			n.actions = AppendNew(n.actions, actionSecurityEvent)
		case dir == IssuesDir || dir == HistoryDir:
			id := strings.TrimSuffix(strings.TrimSuffix(name, ".md"), ".jsonl")
			if ValidIssueID(id) {
				n.issues = AppendNew(n.issues, id)
			}
			if inferred {
				n.actions = AppendNew(n.actions, actionUpdated)
			}
		}
	}
	if n.session == "" {
		n.session = started
	}
	if len(n.actions) == 0 {
		n.actions = []string{actionUpdated}
	}
	var b strings.Builder
	b.WriteString("td: " + commitSubject(n, started) + "\n\n")
	if n.session != "" {
		b.WriteString(TrailerSession + ": " + n.session + "\n")
	}
	for _, a := range n.actions {
		b.WriteString(TrailerAction + ": " + a + "\n")
	}
	for _, id := range n.issues {
		b.WriteString(TrailerIssue + ": " + id + "\n")
	}
	return b.String()
}

// commitPhrase says what an action did to an issue (%s), for commit
// subjects; false for an action it does not know.
func commitPhrase(action string) (string, bool) {
	switch action {
	case "created":
		return "create %s", true
	case "edited":
		return "edit %s", true
	case "started":
		return "start %s", true
	case "unstarted":
		return "unstart %s", true
	case "approved":
		return "approve %s", true
	case "rejected":
		return "reject %s", true
	case "closed":
		return "close %s", true
	case "reopened":
		return "reopen %s", true
	case "blocked":
		return "block %s", true
	case "unblocked":
		return "unblock %s", true
	case "linked":
		return "link %s", true
	case "unlinked":
		return "unlink %s", true
	case "commented":
		return "comment on %s", true
	case "submitted":
		return "submit %s for review", true
	case "bound":
		return "bind a session to %s", true
	case "unbound":
		return "unbind a session from %s", true
	case "criterion_added":
		return "add a criterion to %s", true
	case "criterion_completed":
		return "complete a criterion of %s", true
	case "criterion_dropped":
		return "drop a criterion of %s", true
	case "criterion_reopened":
		return "reopen a criterion of %s", true
	case "closed_against_criteria":
		return "close %s against its criteria", true
	case "todo_proposed":
		return "propose todos for %s", true
	case "sublist_accepted":
		return "accept a sublist into %s", true
	case "sublist_rejected":
		return "reject a sublist for %s", true
	case "anchor_added":
		return "add an anchor to %s", true
	case "anchor_removed":
		return "remove an anchor from %s", true
	case actionTodosChanged:
		return "update the todos of %s", true
	case actionUpdated:
		return "update %s", true
	case actionSecurityEvent:
		return "record a security event on %s", true
	}
	return "", false
}

// commitSubject is the subject of a commit, after "td: ": "close
// td-k3x9qa", "start session ses_qmt3y9ft", "update td-a and 2 more issues".
// started is the session whose identity file the commit adds, if any.
func commitSubject(n commitNote, started string) string {
	action := n.actions[0]
	switch {
	case action == actionSessionStarted:
		return "start session " + started
	case action == actionConfigChanged:
		return "change the configuration"
	case len(n.issues) == 0 && action == actionSecurityEvent:
		return "record a security event"
	case len(n.issues) == 0:
		return strings.ReplaceAll(action, "_", " ")
	}
	issues := n.issues[0]
	if len(n.issues) == 2 {
		issues += " and " + n.issues[1]
	} else if len(n.issues) > 2 {
		issues += fmt.Sprintf(" and %d more issues", len(n.issues)-1)
	}
	if phrase, ok := commitPhrase(action); ok {
		return fmt.Sprintf(phrase, issues)
	}
	return strings.ReplaceAll(action, "_", " ") + " " + issues
}

// gitPaths turns absolute paths td wrote into the slash-separated paths
// relative to the work tree that git records, each once, skipping any
// outside the work tree.
func gitPaths(g *gitrepo.Repo, paths []string) []string {
	seen := map[string]bool{}
	var rels []string
	for _, p := range paths {
		r, err := filepath.Rel(g.Root(), p)
		if err != nil || strings.HasPrefix(r, "..") || seen[r] {
			continue
		}
		seen[r] = true
		rels = append(rels, filepath.ToSlash(r))
	}
	return rels
}

// txGit is what a transaction in git mode auto keeps for its commit: HEAD
// when it began and the content of each file it replaced, so that the
// commit records what td wrote on the branch td read from.
type txGit struct {
	head     *gitrepo.HeadState
	contents map[string][]byte // by absolute path
}

// beginGit starts a transaction's git side, before anything is read or
// written: in a repository whose object format td cannot write it refuses
// (unless git.mode is off), and in git mode auto it records HEAD. Other git
// errors are the commit's or the stage's to report.
func (tx *Tx) beginGit() error {
	s := tx.s
	if s.Config.Git.Mode == GitModeOff {
		return nil
	}
	g, err := s.GitRepo()
	if errors.Is(err, gitrepo.ErrUnsupportedFormat) {
		return &Error{Code: CodeRefused, Msg: err.Error(), Err: err}
	}
	if err != nil || g == nil {
		return nil
	}
	if h, err := g.Head(); err == nil {
		tx.git.head = &h
	}
	return nil
}

// remember keeps what the transaction wrote to path, for its commit; nil
// (an append) means the content is read from disk when committing.
func (tx *Tx) remember(path string, data []byte) {
	if tx.git.head == nil || tx.s.Config.Git.Mode != GitModeAuto {
		return
	}
	if data == nil {
		delete(tx.git.contents, path)
		return
	}
	if tx.git.contents == nil {
		tx.git.contents = map[string][]byte{}
	}
	tx.git.contents[path] = data
}

// clearStaleGitLocks removes the git locks a killed td process left, with
// a warning, when the work tree's .git directory holds td's lock records:
// every command, reading or writing, leaves git usable again. Without
// records it costs one failed directory read and opens nothing.
func (s *Store) clearStaleGitLocks() {
	ents, err := os.ReadDir(filepath.Join(s.Root, ".git", "td-locks"))
	if err != nil || len(ents) == 0 {
		return
	}
	if g, err := s.GitRepo(); err == nil && g != nil {
		s.takeGitWarnings(g)
	}
}

// takeGitWarnings moves the warnings of td's git (stale locks it removed)
// to the store's.
func (s *Store) takeGitWarnings(g *gitrepo.Repo) {
	for _, w := range g.TakeWarnings() {
		s.warnf("%s", w)
	}
}

// commit ends a transaction in git mode auto: the files it wrote are
// committed with the transaction's trailers, with the content td wrote, on
// the branch HEAD named when the transaction began, and their index entries
// are set to the committed content; nothing else of the user's is staged,
// unstaged or committed. It returns what the index recorded, nil when
// nothing was staged. The files are the source of truth, so a commit that
// cannot be made is a warning saying how to commit them by hand; but when
// HEAD moved to another branch during the transaction, what td read may be
// that branch's, so nothing is staged or committed and the error says so.
func (s *Store) commit(tx *Tx) ([]gitrepo.StagedBlob, error) {
	g, err := s.GitRepo()
	if err != nil {
		s.warnf("written but not committed: %v", err)
		return nil, nil
	}
	if g == nil {
		return nil, nil
	}
	defer s.takeGitWarnings(g)
	if s.Config.Git.Batch {
		return s.pend(tx, g), nil
	}
	paths := gitPaths(g, tx.written)
	msg := commitMessage(tx.note, s.actor, paths)
	author, committer, err := s.commitIdentities()
	if err != nil {
		s.warnf("written but not committed: %v", err)
		return s.stage(tx.written), nil
	}
	req := gitrepo.CommitRequest{Paths: paths, Message: msg, Author: author, Committer: committer, Since: tx.git.head}
	if len(tx.git.contents) > 0 {
		req.Contents = make(map[string][]byte, len(tx.git.contents))
		for p, data := range tx.git.contents {
			req.Contents[p] = data
		}
	}
	res, err := g.Commit(req)
	if err == nil {
		return res.Blobs, nil
	}
	subject, _, _ := strings.Cut(msg, "\n")
	files := strings.Join(paths, " ")
	by := fmt.Sprintf("git commit -m %q -- %s", subject, files)
	switch {
	case errors.Is(err, gitrepo.ErrHeadMoved):
		if saved := s.undoWrites(g, tx.written); len(saved) > 0 {
			return nil, &Error{Code: CodeConflict, Msg: fmt.Sprintf("not committed: %v; td's change to %s is saved under %s/%s/%s, and the work tree has the checked-out version again; nothing was staged or committed", err, strings.Join(saved, " "), TodosDir, LocalDir, unsavedDir), Err: err}
		}
		return nil, &Error{Code: CodeConflict, Msg: fmt.Sprintf("not committed: %v; td's change is in the work tree, neither staged nor committed (%s)", err, files), Err: err}
	case errors.Is(err, gitrepo.ErrMissingTip):
		s.warnf("not committed: %v", err)
	case errors.Is(err, gitrepo.ErrOperationInProgress) && res.Staged:
		s.warnf("td did not commit, since %v: its files are staged, so the commit that concludes it records them (after an abort, commit them with %s)", err, by)
	case res.Staged:
		s.warnf("written and staged but not committed: %v; commit them with %s", err, by)
	default:
		s.warnf("written but neither staged nor committed: %v; commit them with git add %s && %s", err, files, by)
	}
	return res.Blobs, nil
}

// unsavedDir, under .todos/local, keeps the writes of a transaction that a
// checkout overtook.
const unsavedDir = "unsaved"

// undoWrites puts back the checked-out version of the files a transaction
// wrote after HEAD moved to another branch under it: td's write was made
// from what it read before, so it may be the old branch's content, and
// leaving it would have the next commit on the new branch carry it (and
// drop that branch's own changes). A file whose content differs from its
// index entry, which a checkout has just written, is saved under
// .todos/local/unsaved with its path and replaced by the indexed content;
// a file the index does not have is left alone. It returns the paths
// saved, relative to the work tree.
func (s *Store) undoWrites(g *gitrepo.Repo, written []string) []string {
	var saved []string
	for _, p := range written {
		indexed, ok, err := g.IndexedFile(p)
		if err != nil || !ok {
			continue
		}
		disk, err := readRegular(p, maxLedgerSize)
		if err != nil || bytes.Equal(disk, indexed) {
			continue
		}
		rel := s.rel(p)
		keep := s.Path(LocalDir, unsavedDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
			continue
		}
		if writeFileAtomic(keep, disk) != nil || writeFileAtomic(p, indexed) != nil {
			continue
		}
		saved = append(saved, rel)
	}
	return saved
}

// commitIdentities returns the author and committer of td's commits: the
// git identity td records for sessions, with GIT_COMMITTER_NAME and
// GIT_COMMITTER_EMAIL overriding the committer as in git, dated by td's
// clock (TD_NOW pins it) in its own time zone.
func (s *Store) commitIdentities() (author, committer gitrepo.Signature, err error) {
	ident, err := s.Author()
	if err != nil {
		return author, committer, err
	}
	name, email := SplitIdentity(ident)
	when := s.opts.Now().Truncate(time.Second)
	author = gitrepo.Signature{Name: name, Email: email, When: when}
	committer = author
	if v := s.Env("GIT_COMMITTER_NAME"); v != "" {
		committer.Name = v
	}
	if v := s.Env("GIT_COMMITTER_EMAIL"); v != "" {
		committer.Email = v
	}
	return author, committer, nil
}
