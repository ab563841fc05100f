package repo

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tdproject/td/repo/gitrepo"
)

// A partial snapshot is a commit's .todos with every file but the issue
// files and ledgers, and of those only the issues asked for: what td check
// --base reads of a range that changed a few issues out of 100,000. The
// issues and history directories are read once each as tree objects and
// searched by name (gitrepo.Dir), never listed into a map.
type partialTree struct {
	issues, history *gitrepo.Dir
	included        map[string]bool
}

// PartialSnapshotAt is the snapshot of the commit rev names holding the
// config, the security events, the anchors, every session, and the issue
// files and ledgers of ids only; Include adds more issues and IssueExists
// answers for any. An unknown revision is a not_found error saying so.
func (s *Store) PartialSnapshotAt(rev string, ids []string) (*Snapshot, error) {
	return s.partialSnapshotAt(rev, ids, false)
}

// IssueFilesAt is the partial snapshot of the commit rev names holding
// issue files alone, none included yet: what a reader of another
// revision's links needs, at the cost of one tree (no ledgers, sessions or
// config).
func (s *Store) IssueFilesAt(rev string) (*Snapshot, error) {
	return s.partialSnapshotAt(rev, nil, true)
}

func (s *Store) partialSnapshotAt(rev string, ids []string, issuesOnly bool) (*Snapshot, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, Errorf(CodeRefused, "comparing with revision %q needs a git repository, and %s is not in one", rev, s.Root)
	}
	prefix, err := s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	var commit string
	var dirs []*gitrepo.Dir
	if issuesOnly {
		var issues []*gitrepo.Dir
		commit, issues, err = g.ReadDirs(rev, prefix+"/"+IssuesDir)
		if err == nil {
			dirs = []*gitrepo.Dir{nil, nil, issues[0], nil}
		}
	} else {
		commit, dirs, err = g.ReadDirs(rev, prefix, prefix+"/"+SessionsDir, prefix+"/"+IssuesDir, prefix+"/"+HistoryDir)
	}
	if err != nil {
		return nil, RevisionError(rev, err)
	}
	sn := &Snapshot{Rev: rev, Commit: commit, files: map[string]*snapFile{},
		part: &partialTree{issues: dirs[2], history: dirs[3], included: map[string]bool{}}}
	for _, d := range dirs[:2] {
		for i := 0; d != nil && i < d.Len(); i++ {
			if f, ok := d.File(i); ok {
				sn.addTreeFile(prefix, f)
			}
		}
	}
	sn.read = func(f *snapFile) ([]byte, error) {
		data, err := g.ReadBlob(f.hash.String())
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", f.path, rev, err)
		}
		if limit := snapshotSizeLimit(f.path); int64(len(data)) > limit {
			return nil, &ParseError{Path: f.path, Msg: fmt.Sprintf("is %d bytes at %s, over the %d byte limit", len(data), rev, limit)}
		}
		return data, nil
	}
	sn.prefix = prefix
	sn.Include(ids...)
	return sn, nil
}

// addTreeFile adds a file of a commit's tree, if it is one of td's.
func (sn *Snapshot) addTreeFile(prefix string, tf gitrepo.TreeFile) {
	rel := strings.TrimPrefix(tf.Path, prefix+"/")
	if !snapshotWants(rel) {
		return
	}
	f := &snapFile{path: TodosDir + "/" + rel, hash: nameOf(tf.Hash)}
	if !tf.IsRegular() {
		f.problem = "is a symlink; td does not follow symlinks under .todos"
	}
	sn.files[f.path] = f
}

// Include adds the issue files and ledgers of ids that a partial snapshot
// lacks; other snapshots hold every file already.
func (sn *Snapshot) Include(ids ...string) {
	if sn.part == nil {
		return
	}
	added := false
	for _, id := range ids {
		if sn.part.included[id] {
			continue
		}
		sn.part.included[id] = true
		for _, f := range []struct {
			d    *gitrepo.Dir
			name string
		}{{sn.part.issues, id + ".md"}, {sn.part.history, id + ".jsonl"}} {
			if tf, ok := f.d.Lookup(f.name); ok {
				sn.addTreeFile(sn.prefix, tf)
				added = true
			}
		}
	}
	if added || sn.paths == nil {
		sn.sortPaths()
	}
}

// IssueExists reports whether the snapshot has the issue file of id,
// included or not.
func (sn *Snapshot) IssueExists(id string) bool {
	if sn.part != nil {
		_, ok := sn.part.issues.Lookup(id + ".md")
		return ok
	}
	return sn.Has(TodosDir + "/" + IssuesDir + "/" + id + ".md")
}

// CountFiles returns how many of td's files the snapshot's revision has
// and how many of them are issue files, included or not.
func (sn *Snapshot) CountFiles() (files, issues int) {
	if sn.part == nil {
		for _, p := range sn.paths {
			files++
			if id, ok := IssueIDOf(p); ok && strings.HasSuffix(p, ".md") && ValidIssueID(id) {
				issues++
			}
		}
		return files, issues
	}
	for p := range sn.files {
		if _, ok := IssueIDOf(p); !ok {
			files++
		}
	}
	count := func(d *gitrepo.Dir, ext string, isIssue bool) {
		for i := 0; d != nil && i < d.Len(); i++ {
			name := d.Name(i)
			if len(name) == 0 || name[0] == '.' || !bytes.HasSuffix(name, []byte(ext)) || !d.IsFile(i) {
				continue
			}
			files++
			if isIssue && ValidIssueID(string(name[:len(name)-len(ext)])) {
				issues++
			}
		}
	}
	count(sn.part.issues, ".md", true)
	count(sn.part.history, ".jsonl", false)
	return files, issues
}
