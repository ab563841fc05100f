// Package resolve finishes a git merge that stopped on conflicts under
// .todos: it reads each conflicted file's three stages from the index,
// merges them as td's merge driver would have (issue files field by field
// and todo by todo, ledgers by union), writes and stages the clean results
// and names what both sides changed where a person must decide.
//
// It is its own use case rather than part of review: review reads history
// and judges it, while resolve writes the work tree and the index in the
// middle of a merge, the one time td must not commit (so it writes outside
// the store's transactions, under the store's lock).
package resolve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// File is what td resolve did with one conflicted path.
type File struct {
	// Path is relative to the git work tree root, slash-separated.
	Path string `json:"path"`
	// Merged is true when the file was merged cleanly, written and staged.
	Merged bool `json:"merged"`
	// Conflicts name what both sides changed, one phrase each ("the field
	// title"), when the file is left marked for a person.
	Conflicts []string `json:"conflicts"`
	// Note says why a file was left as it was without a merge (a side
	// deleted, markers already edited away by hand), or, where both sides
	// changed the status, which one td check --base accepts and whether
	// the merge kept it.
	Note string `json:"note,omitempty"`
}

// Result is every conflicted path td resolve looked at, in index order.
type Result struct {
	Files []File `json:"files"`
}

// Merged counts the files merged and staged.
func (r *Result) Merged() int {
	n := 0
	for _, f := range r.Files {
		if f.Merged {
			n++
		}
	}
	return n
}

// Resolve re-merges the conflicted files under .todos, or only those at or
// below paths (relative to the work tree root, slash-separated). It refuses
// outside a git repository and for a path outside .todos or without a
// conflict.
func Resolve(s *repo.Store, paths []string) (*Result, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "td resolve finishes a git merge, and %s is not in a git repository", repo.TodosDir)
	}
	todos, err := s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	res := &Result{Files: []File{}}
	err = s.Locked(func() error {
		all, err := g.Unmerged(todos)
		if err != nil {
			return err
		}
		chosen, err := choose(all, paths, todos)
		if err != nil {
			return err
		}
		var stage []string
		for _, u := range chosen {
			f, write, err := mergeOne(g.Root(), u, all)
			if err != nil {
				return err
			}
			if write != nil {
				if err := repo.WriteFileAtomic(filepath.Join(g.Root(), filepath.FromSlash(u.Path)), write); err != nil {
					return fmt.Errorf("write %s: %w", u.Path, err)
				}
				stage = append(stage, u.Path)
			}
			res.Files = append(res.Files, f)
		}
		if len(stage) > 0 {
			if err := g.Stage(stage...); err != nil {
				return fmt.Errorf("the merged files are written, but %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// choose keeps the unmerged paths the caller named: each name must be
// under .todos and match at least one unmerged path, itself or below it.
func choose(all []gitrepo.Unmerged, paths []string, todos string) ([]gitrepo.Unmerged, error) {
	if len(paths) == 0 {
		return all, nil
	}
	keep := make([]bool, len(all))
	for _, p := range paths {
		p = strings.TrimSuffix(p, "/")
		if p != todos && !strings.HasPrefix(p, todos+"/") {
			return nil, repo.Errorf(repo.CodeRefused, "%s is not under %s; td resolve merges only td's files: resolve it with git", p, todos)
		}
		found := false
		for i, u := range all {
			if u.Path == p || strings.HasPrefix(u.Path, p+"/") {
				keep[i], found = true, true
			}
		}
		if !found {
			return nil, repo.Errorf(repo.CodeNotFound, "%s has no unfinished merge; git status lists the conflicted files", p)
		}
	}
	var out []gitrepo.Unmerged
	for i, u := range all {
		if keep[i] {
			out = append(out, u)
		}
	}
	return out, nil
}

// mergeOne merges one path's stages. It returns what to report and the
// bytes to write and stage, nil when the file is left as it is. all are
// every unmerged path under .todos, where an issue's ledger may be.
func mergeOne(root string, u gitrepo.Unmerged, all []gitrepo.Unmerged) (File, []byte, error) {
	f := File{Path: u.Path, Conflicts: []string{}}
	if !u.HasOurs || !u.HasTheirs {
		side := "ours"
		if u.HasOurs {
			side = "theirs"
		}
		f.Conflicts = append(f.Conflicts, "the file's existence ("+side+" deleted it, the other side changed it)")
		f.Note = "keep it with git add or delete it with git rm"
		return f, nil, nil
	}
	cur, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(u.Path)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cur = nil
	case err != nil:
		return f, nil, fmt.Errorf("read %s: %w", u.Path, err)
	}
	// A file whose markers are gone was resolved by hand (or checked out
	// from one side) but not staged: td does not overwrite a person's
	// resolution.
	if cur != nil && len(markdown.Conflicts(cur)) == 0 {
		f.Note = "holds no conflict markers, so it was resolved by hand: td leaves it; stage it with git add"
		return f, nil, nil
	}
	var merged []byte
	var conflicts []string
	switch {
	case strings.HasSuffix(u.Path, ".jsonl"):
		merged = markdown.UnionLines(u.Base, u.Ours, u.Theirs)
	case isIssueFile(u.Path):
		m := markdown.MergeIssueWith(u.Base, u.Ours, u.Theirs, markdown.MergeOptions{})
		if slices.Contains(m.Conflicts, StatusConflict) {
			v, err := statusVerdict(root, u, all)
			if err != nil {
				return f, nil, err
			}
			kept := false
			if v.side != 0 {
				prefer := map[string]markdown.Preference{}
				for _, k := range statusBlock {
					prefer[k] = v.side
				}
				// Only a file that then merges whole is written: one
				// still marked stays as git left it, status included.
				if p := markdown.MergeIssueWith(u.Base, u.Ours, u.Theirs, markdown.MergeOptions{Prefer: prefer}); len(p.Conflicts) == 0 {
					m, kept = p, true
				}
			}
			f.Note = v.note(kept)
		}
		merged, conflicts = m.Data, m.Conflicts
		if len(conflicts) == 0 && len(m.Demoted) > 0 {
			f.Note = strings.TrimPrefix(f.Note+"; ", "; ") + DemotedNote(m.Demoted)
		}
	default:
		var conflict bool
		merged, conflict = markdown.MergeLines(u.Base, u.Ours, u.Theirs, "ours", "theirs")
		if conflict {
			conflicts = []string{"the same lines"}
		}
	}
	if len(conflicts) > 0 {
		f.Conflicts = conflicts
		return f, nil, nil // git's markers stay as git wrote them
	}
	f.Merged = true
	return f, merged, nil
}

// isIssueFile reports whether p (slash-separated) is an issue file.
func isIssueFile(p string) bool {
	dir, name := filepath.ToSlash(filepath.Dir(filepath.FromSlash(p))), filepath.Base(p)
	return strings.HasSuffix(dir, repo.TodosDir+"/"+repo.IssuesDir) && strings.HasSuffix(name, ".md")
}

// StatusConflict is the phrase of a status both sides changed; td resolve
// says which status td check --base accepts, and keeps it when it is one
// side's.
const StatusConflict = "the field status"

// statusBlock are the fields that change with the status (start sets the
// implementer and assignee, close the resolution): where both sides
// changed one, it takes the side whose status is kept.
var statusBlock = []string{"status", "implementer", "assignee", "resolution"}

// verdict is the status td check --base accepts after a merge where both
// sides changed an issue's status.
type verdict struct {
	status string              // "" when the ledger records no transition
	last   audit.Entry         // the transition that set it
	side   markdown.Preference // the side whose status it is; 0 for neither
	ours   string
	theirs string
}

// note says what td resolve did about the status, or what to do.
func (v verdict) note(kept bool) string {
	if v.status == "" {
		return fmt.Sprintf("the ledger records no transition to either status (ours %s, theirs %s): keep the status the issue had before the merge", v.ours, v.theirs)
	}
	why := fmt.Sprintf("the last transition in the merged ledger (%s by %s at %s)", v.last.Action, v.last.Session, v.last.TS.UTC().Format("2006-01-02T15:04:05Z"))
	switch {
	case v.side == 0:
		return fmt.Sprintf("td check --base accepts status: %s, %s, which neither side has (ours %s, theirs %s)", v.status, why, v.ours, v.theirs)
	case kept:
		return fmt.Sprintf("status: kept %s (%s) over %s, %s, which td check --base accepts", v.status, sideName(v.side), v.other(), why)
	}
	return fmt.Sprintf("td check --base accepts status: %s (%s), %s", v.status, sideName(v.side), why)
}

// other is the status of the side not kept.
func (v verdict) other() string {
	if v.side == markdown.PreferOurs {
		return v.theirs
	}
	return v.ours
}

func sideName(p markdown.Preference) string {
	if p == markdown.PreferOurs {
		return "ours"
	}
	return "theirs"
}

// statusVerdict decides which status td check --base accepts for the issue
// file u, whose status both sides changed: the one the last transition of
// the issue's merged ledger, by time, moved it to. The ledger is the work
// tree's when git merged it (the union driver), else the union of its
// stages.
func statusVerdict(root string, u gitrepo.Unmerged, all []gitrepo.Unmerged) (verdict, error) {
	v := verdict{ours: frontStatus(u.Ours), theirs: frontStatus(u.Theirs)}
	id := strings.TrimSuffix(filepath.Base(u.Path), ".md")
	ledger := repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl"
	var data []byte
	if i := slices.IndexFunc(all, func(x gitrepo.Unmerged) bool { return x.Path == ledger }); i >= 0 {
		data = markdown.UnionLines(all[i].Base, all[i].Ours, all[i].Theirs)
	} else {
		var err error
		data, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(ledger)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return v, fmt.Errorf("read %s: %w", ledger, err)
		}
	}
	entries, _ := audit.ParseLedger(data)
	last, ok := audit.LastTransition(entries)
	if !ok {
		return v, nil
	}
	v.last = last
	_, v.status, _ = last.Transition()
	switch v.status {
	case v.ours:
		v.side = markdown.PreferOurs
	case v.theirs:
		v.side = markdown.PreferTheirs
	}
	return v, nil
}

// frontStatus is the status an issue file's frontmatter gives, "" when it
// cannot be read.
func frontStatus(data []byte) string {
	f, err := markdown.Parse(data)
	if err != nil {
		return ""
	}
	var fields struct {
		Status string `yaml:"status"`
	}
	if f.Front.Decode(&fields) != nil {
		return ""
	}
	if fields.Status == "" {
		return "open"
	}
	return fields.Status
}

// DemotedNote says which todos a merge put back to pending.
func DemotedNote(texts []string) string {
	return fmt.Sprintf("%s back to pending: each side started a todo, and the first in the file stays the one in progress", domain.QuoteList(texts))
}
