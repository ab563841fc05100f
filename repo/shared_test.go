package repo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/gitrepo"
)

// twoWorkTrees makes a git repository with a linked work tree, as git
// worktree add makes one (a .git file naming .git/worktrees/wt, whose
// commondir leads back), initialises td in both, and opens a store in
// each: the main checkout's and the linked work tree's.
func twoWorkTrees(t *testing.T) (main, wt *Store) {
	t.Helper()
	dir := t.TempDir()
	mainDir, wtDir := filepath.Join(dir, "app"), filepath.Join(dir, "wt")
	if _, err := gitrepo.Init(mainDir); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(mainDir, ".git", "worktrees", "wt")
	for _, f := range []struct{ path, data string }{
		{filepath.Join(link, "HEAD"), "ref: refs/heads/wt\n"},
		{filepath.Join(link, "commondir"), "../..\n"},
		{filepath.Join(link, "gitdir"), filepath.Join(wtDir, ".git") + "\n"},
		{filepath.Join(wtDir, ".git"), "gitdir: " + link + "\n"},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	opts := Options{
		Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) },
		Env: func(k string) string { return env[k] },
	}
	open := func(d string) *Store {
		if _, err := Init(d, InitOptions{NoGit: true, Options: opts}); err != nil {
			t.Fatal(err)
		}
		s, err := Open(d, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	main, wt = open(mainDir), open(wtDir)
	if main.sharedDir() != wt.sharedDir() || main.sharedDir() != filepath.Join(mainDir, ".git", SharedDirName) {
		t.Fatalf("shared directories %s and %s; want both %s", main.sharedDir(), wt.sharedDir(), filepath.Join(mainDir, ".git", SharedDirName))
	}
	return main, wt
}

// TestSessionsAreTheClones: a session started in one work tree is found
// in the other, bound as it was bound there; the first change it makes in
// the other writes its identity file there, byte for byte, and a change
// that names no session of another work tree writes none.
func TestSessionsAreTheClones(t *testing.T) {
	main, wt := twoWorkTrees(t)
	se, err := main.StartSession(StartOptions{Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	if err := main.SetBinding(se.ID, "td-aaaaaa"); err != nil {
		t.Fatal(err)
	}
	got, err := wt.Session(se.ID)
	if err != nil || got.ID != se.ID || got.Agent != "primary" {
		t.Fatalf("the other work tree reads %+v, %v; want the agent session %s", got, err, se.ID)
	}
	if rt, err := wt.Runtime(se.ID); err != nil || rt.BoundIssue != "td-aaaaaa" {
		t.Fatalf("the other work tree's runtime is %+v, %v; want bound to td-aaaaaa", rt, err)
	}
	file := func(s *Store) string { return s.Path(SessionsDir, se.ID+".yaml") }
	if _, err := os.Lstat(file(wt)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the identity file is in the other work tree before the session acted there: %v", err)
	}

	// A change naming another session writes nothing of this one.
	other := actor(t, wt)
	if _, err := createIssue(wt, other, "Unrelated"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(file(wt)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a change by %s wrote the identity file of %s", other.ID, se.ID)
	}

	// The session's own change writes its identity file with it.
	if _, err := createIssue(wt, se, "Sign in"); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(file(main))
	if data, err := os.ReadFile(file(wt)); err != nil || !bytes.Equal(data, want) {
		t.Fatalf("the identity file written in the other work tree is %q, %v; want %q", data, err, want)
	}
	ids := wt.SessionIDs()
	if !ids[se.ID] || !ids[other.ID] {
		t.Errorf("SessionIDs = %v; want both sessions", ids)
	}
	if shared := main.SharedSessionIDs(); len(shared) != 1 || shared[0] != other.ID {
		t.Errorf("the main checkout's SharedSessionIDs = %v; want only %s, whose file it lacks", shared, other.ID)
	}
}

// TestDefaultSessionIsTheClones: a person's default session, made by the
// first change in either work tree, is theirs in the other too; two work
// trees making it at once agree on one.
func TestDefaultSessionIsTheClones(t *testing.T) {
	main, wt := twoWorkTrees(t)
	var wg sync.WaitGroup
	made := make([]*Session, 2)
	for i, s := range []*Store{main, wt} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			se, _, err := s.CurrentSession("", true)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := createIssue(s, se, "First"); err != nil {
				t.Error(err)
			}
			made[i] = se
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var ids []string
	for _, d := range []string{main.Root, wt.Root} {
		s, err := Open(d, main.opts)
		if err != nil {
			t.Fatal(err)
		}
		se, src, err := s.CurrentSession("", false)
		if err != nil || se == nil || src != SourceDefault {
			t.Fatalf("%s: CurrentSession = %v, %q, %v; want the default", d, se, src, err)
		}
		ids = append(ids, se.ID)
	}
	if ids[0] != ids[1] || ids[0] != made[0].ID && ids[0] != made[1].ID {
		t.Fatalf("the work trees' defaults are %s and %s; want one of the sessions made, %s or %s", ids[0], ids[1], made[0].ID, made[1].ID)
	}
}

// TestLegacyStateMoves: a runtime and a default an older td kept in a work
// tree's .todos/local are read while the clone has none; the next write of
// the runtime moves it, and the default becomes the clone's.
func TestLegacyStateMoves(t *testing.T) {
	main, wt := twoWorkTrees(t)
	se, err := wt.StartSession(StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// As an older td left it: the runtime in the work tree alone.
	if err := os.Rename(wt.SharedPath(runtimeName(se.ID)), filepath.Join(t.TempDir(), "moved")); err != nil {
		t.Fatal(err)
	}
	legacyRT := wt.legacyPath(runtimeName(se.ID))
	if err := os.MkdirAll(filepath.Dir(legacyRT), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(legacyRT, []byte(`{"bound_issue": "td-aaaaaa", "errors": 2}`+"\n"), 0o644)
	os.WriteFile(wt.legacyPath(defaultsName), []byte(`{"Op <op@example.com>": "`+se.ID+`"}`+"\n"), 0o644)

	fresh, err := Open(wt.Root, wt.opts)
	if err != nil {
		t.Fatal(err)
	}
	if rt, err := fresh.Runtime(se.ID); err != nil || rt.BoundIssue != "td-aaaaaa" || rt.Errors != 2 {
		t.Fatalf("the legacy runtime reads %+v, %v", rt, err)
	}
	if ids, _ := fresh.RuntimeIDs(); len(ids) != 1 || ids[0] != se.ID {
		t.Errorf("RuntimeIDs = %v; want the legacy one", ids)
	}
	if got, src, err := fresh.CurrentSession("", false); err != nil || got == nil || got.ID != se.ID || src != SourceDefault {
		t.Fatalf("the legacy default reads %v, %q, %v", got, src, err)
	}
	// Adopted: the main checkout, which never had it, acts as it too.
	if got, _, err := main.CurrentSession("", false); err != nil || got == nil || got.ID != se.ID {
		t.Fatalf("the main checkout's default is %v, %v; want the adopted %s", got, err, se.ID)
	}

	if err := fresh.UpdateRuntime(se.ID, func(rt *Runtime) error { rt.Errors++; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(legacyRT); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the legacy runtime is still there after a write: %v", err)
	}
	if rt, err := main.Runtime(se.ID); err != nil || rt.Errors != 3 || rt.BoundIssue != "td-aaaaaa" {
		t.Errorf("the moved runtime reads %+v, %v in the other work tree", rt, err)
	}
}

// TestSharedRecordTdCannotRead: a copy of an identity file td cannot read
// (its id is not its name's) is refused where it is read, and never
// written into a work tree.
func TestSharedRecordTdCannotRead(t *testing.T) {
	main, wt := twoWorkTrees(t)
	const id = "ses_aaaaaaaa"
	p := main.SharedPath(sharedRecordName(id))
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("id: ses_bbbbbbbb\nname: x\nrole: agent\nagent: primary\nauthor: Op <op@example.com>\n"), 0o644)
	var pe *ParseError
	if _, err := wt.Session(id); !errors.As(err, &pe) || !strings.Contains(pe.Msg, "does not match the file name") {
		t.Fatalf("Session = %v; want a parse error naming the mismatch", err)
	}
	err := wt.Update(func(tx *Tx) error {
		return wt.AppendLedger(tx, "td-aaaaaa", audit.Entry{TS: wt.Now(), Session: id, Action: audit.ActionCommented})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(wt.Path(SessionsDir, id+".yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a copy td cannot read was written into the work tree: %v", err)
	}
	if w := wt.Warnings(); len(w) != 1 || !strings.Contains(w[0], "the identity file of session "+id+" is not written here") {
		t.Errorf("warnings %q; want one saying the file is not written", w)
	}
}

// TestSharedStateOutsideGit: outside git the shared state is .todos/local,
// as it always was.
func TestSharedStateOutsideGit(t *testing.T) {
	s := newTestStore(t)
	if s.sharedDir() != s.Path(LocalDir) || s.sharedInGit() {
		t.Fatalf("shared directory %s outside git; want %s", s.sharedDir(), s.Path(LocalDir))
	}
	se := actor(t, s)
	if _, err := os.Stat(s.Path(LocalDir, defaultsName)); err != nil {
		t.Errorf("the default is not in .todos/local: %v", err)
	}
	if se.Role != domain.RoleOperator {
		t.Errorf("default session role %s", se.Role)
	}
}
