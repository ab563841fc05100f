package repo_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
	"github.com/tdproject/td/repo/repotest"
)

// A checkout during an auto-mode transaction: what td read may be the other
// branch's, so td commits nothing, stages nothing, says so, and leaves its
// write in the work tree.
func TestAutoCommitRefusesWhenHeadMovedDuringTheTransaction(t *testing.T) {
	t.Parallel()
	for _, back := range []bool{false, true} {
		name := "to another branch"
		if back {
			name = "away and back"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := repotest.NewAutoStore(t)
			g.Git("branch", "other")
			mainTip := g.Git("rev-parse", "main")
			err := g.S.Update(func(tx *repo.Tx) error {
				if err := tx.WriteFile([]byte("td wrote this\n"), "notes.md"); err != nil {
					return err
				}
				g.Git("checkout", "-q", "other")
				if back {
					g.Git("checkout", "-q", "main")
				}
				return nil
			})
			if !errors.Is(err, gitrepo.ErrHeadMoved) {
				t.Fatalf("Update: %v, want HEAD moved", err)
			}
			want := "not committed: HEAD moved from main to other while td was writing; td's change is in the work tree, neither staged nor committed (.todos/notes.md)"
			if back {
				want = "not committed: HEAD was checked out away from main and back while td was writing; td's change is in the work tree, neither staged nor committed (.todos/notes.md)"
			}
			if err.Error() != want {
				t.Errorf("error:\n%s\nwant:\n%s", err, want)
			}
			if tip := g.Git("rev-parse", "main"); tip != mainTip {
				t.Errorf("main moved to %s", tip)
			}
			if tip := g.Git("rev-parse", "other"); tip != mainTip {
				t.Errorf("other moved to %s", tip)
			}
			if st := g.Git("status", "--porcelain", "--untracked-files=all"); st != "?? .todos/notes.md" {
				t.Errorf("git status: %q, want td's file untracked and unstaged", st)
			}
			if b, _ := os.ReadFile(filepath.Join(g.Dir, ".todos", "notes.md")); string(b) != "td wrote this\n" {
				t.Errorf("work tree file: %q", b)
			}
		})
	}
}

// The commit records what td wrote even when the file on disk was replaced
// after td wrote it.
func TestAutoCommitRecordsTheContentTdWrote(t *testing.T) {
	t.Parallel()
	g := repotest.NewAutoStore(t)
	err := g.S.Update(func(tx *repo.Tx) error {
		if err := tx.WriteFile([]byte("td's content\n"), "notes.md"); err != nil {
			return err
		}
		g.Write(".todos/notes.md", "swapped under td\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Git("show", "HEAD:.todos/notes.md"); got != "td's content" {
		t.Errorf("committed %q, want what td wrote", got)
	}
	if st := g.Git("status", "--porcelain"); st != "M .todos/notes.md" {
		t.Errorf("git status %q: the file on disk differs from the commit and git must see it", st)
	}
	g.Git("fsck", "--strict")
}

// Temporary files of a write under .todos live in .todos/local/tmp, which
// git add -A does not pick up; a killed process's are swept by the next
// transaction, a live process's are not.
func TestTemporaryFilesStayOutOfGitAndAreSwept(t *testing.T) {
	t.Parallel()
	g := repotest.NewAutoStore(t)
	tmpDir := filepath.Join(g.Dir, ".todos", "local", "tmp")
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := g.Command("--version")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	live := strconv.Itoa(os.Getppid())
	for _, n := range []string{dead + "-0a1b2c-x.md", live + "-0a1b2c-y.md", "notes"} {
		if err := os.WriteFile(filepath.Join(tmpDir, n), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.S.Update(func(tx *repo.Tx) error {
		return tx.WriteFile([]byte("x\n"), "issues", "td-abc123.md")
	}); err != nil {
		t.Fatal(err)
	}
	var left []string
	ents, _ := os.ReadDir(tmpDir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if got := strings.Join(left, " "); got != live+"-0a1b2c-y.md notes" {
		t.Errorf(".todos/local/tmp holds %q: want the live writer's file and the unknown one kept, the dead one's swept", got)
	}
	g.Git("add", "-A")
	if st := g.Git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git add -A picked up %q", st)
	}
	if ents, _ := os.ReadDir(filepath.Join(g.Dir, ".todos", "issues")); len(ents) != 1 {
		t.Errorf(".todos/issues holds %v", ents)
	}
}

// td's write that lands after a checkout overwrote the new branch's file
// with content made from the old branch's: left there, the next commit on
// the new branch would carry it and drop that branch's changes. td puts
// the checked-out version back and keeps its own under .todos/local/unsaved.
func TestAutoCommitPutsBackTheCheckedOutFileWhenHeadMoved(t *testing.T) {
	t.Parallel()
	g := repotest.NewAutoStore(t)
	g.Write(".todos/notes.md", "main's\n")
	g.Commit("notes on main")
	g.Git("checkout", "-q", "-b", "other")
	g.Write(".todos/notes.md", "other's\n")
	g.Commit("notes on other")
	g.Git("checkout", "-q", "main")
	err := g.S.Update(func(tx *repo.Tx) error {
		g.Git("checkout", "-q", "other")
		return tx.WriteFile([]byte("main's, and td's\n"), "notes.md")
	})
	want := "not committed: HEAD moved from main to other while td was writing; td's change to .todos/notes.md is saved under .todos/local/unsaved, and the work tree has the checked-out version again; nothing was staged or committed"
	if !errors.Is(err, gitrepo.ErrHeadMoved) || err.Error() != want {
		t.Fatalf("Update: %v\nwant: %s", err, want)
	}
	if b, _ := os.ReadFile(filepath.Join(g.Dir, ".todos", "notes.md")); string(b) != "other's\n" {
		t.Errorf("work tree file %q, want other's version back", b)
	}
	if b, _ := os.ReadFile(filepath.Join(g.Dir, ".todos", "local", "unsaved", ".todos", "notes.md")); string(b) != "main's, and td's\n" {
		t.Errorf("saved %q, want td's write", b)
	}
	if st := g.Git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status %q", st)
	}
}

// Git mode stage, as auto: a checkout during a transaction means what td
// read may be the other branch's, so nothing is staged, the work tree
// has the checked-out version of each file td wrote again (td's write is
// saved under .todos/local/unsaved), and the error says so.
func TestStageRefusesWhenHeadMovedDuringTheTransaction(t *testing.T) {
	t.Parallel()
	for _, back := range []bool{false, true} {
		t.Run(map[bool]string{false: "to another branch", true: "away and back"}[back], func(t *testing.T) {
			t.Parallel()
			g := repotest.NewGitStore(t)
			g.Write(".todos/notes.md", "main's\n")
			g.Commit("notes on main")
			g.Git("checkout", "-q", "-b", "other")
			g.Write(".todos/notes.md", "other's\n")
			g.Commit("notes on other")
			g.Git("checkout", "-q", "main")
			mainTip, otherTip := g.Git("rev-parse", "main"), g.Git("rev-parse", "other")
			err := g.S.Update(func(tx *repo.Tx) error {
				g.Git("checkout", "-q", "other")
				if back {
					g.Git("checkout", "-q", "main")
				}
				return tx.WriteFile([]byte("main's, and td's\n"), "notes.md")
			})
			want := "not staged: HEAD moved from main to other while td was writing; td's change to .todos/notes.md is saved under .todos/local/unsaved, and the work tree has the checked-out version again; nothing was staged"
			now := "other's\n"
			if back {
				want = "not staged: HEAD was checked out away from main and back while td was writing; td's change to .todos/notes.md is saved under .todos/local/unsaved, and the work tree has the checked-out version again; nothing was staged"
				now = "main's\n"
			}
			if !errors.Is(err, gitrepo.ErrHeadMoved) || err.Error() != want {
				t.Fatalf("Update: %v\nwant: %s", err, want)
			}
			if b, _ := os.ReadFile(filepath.Join(g.Dir, ".todos", "notes.md")); string(b) != now {
				t.Errorf("work tree file %q, want %q", b, now)
			}
			if b, _ := os.ReadFile(filepath.Join(g.Dir, ".todos", "local", "unsaved", ".todos", "notes.md")); string(b) != "main's, and td's\n" {
				t.Errorf("saved %q, want td's write", b)
			}
			if st := g.Git("status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Errorf("git status %q: nothing may be staged", st)
			}
			if g.Git("rev-parse", "main") != mainTip || g.Git("rev-parse", "other") != otherTip {
				t.Error("a branch moved")
			}
		})
	}
}
