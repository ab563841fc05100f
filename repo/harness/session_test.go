package harness

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// newTestStore initialises a store without git in a temp directory.
func newTestStore(t testing.TB) *repo.Store {
	t.Helper()
	dir := t.TempDir()
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: testOptions(nil)}); err != nil {
		t.Fatal(err)
	}
	return openAt(t, dir, nil)
}

// testOptions is a fixed clock and an environment holding env and a git
// identity.
func testOptions(env map[string]string) repo.Options {
	if env == nil {
		env = map[string]string{}
	}
	env["GIT_AUTHOR_NAME"], env["GIT_AUTHOR_EMAIL"] = "Op", "op@example.com"
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	return repo.Options{Now: func() time.Time { return now }, Env: func(k string) string { return env[k] }}
}

func openAt(t testing.TB, dir string, env map[string]string) *repo.Store {
	t.Helper()
	s, err := repo.Open(dir, testOptions(env))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// reopen opens the store's tree again with its own environment, as another
// td process started by the harness would.
func reopen(t testing.TB, s *repo.Store, env map[string]string) *repo.Store {
	t.Helper()
	return openAt(t, s.Root, env)
}

// operator is the operator's default session, made on first use.
func operator(t testing.TB, s *repo.Store) *repo.Session {
	t.Helper()
	se, _, err := s.CurrentSession("", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSession(); err != nil {
		t.Fatal(err)
	}
	return se
}

func TestSessionMapsOneConversationToOneSession(t *testing.T) {
	s := newTestStore(t)
	o := Conversation{Harness: "claude", ID: "7f3c9a2e-1b4d-4e8f-9a0b-c1d2e3f4a5b6"}

	res, err := Session(s, o)
	if err != nil || res != nil {
		t.Fatalf("unknown conversation without Create: %+v, %v", res, err)
	}
	o.Create = true
	first, err := Session(s, o)
	if err != nil {
		t.Fatal(err)
	}
	se := first.Session
	if first.How != Started || se.Agent != "primary" || se.Category != domain.CategoryProject || se.Name != "claude 7f3c9a2e" || !se.IsAgent() {
		t.Fatalf("started: %+v %+v", first, se)
	}
	if rt, _ := s.Runtime(se.ID); rt.State != repo.StateBeginning {
		t.Errorf("a started session is at %q", rt.State)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "local", "harness", "claude", "sessions", o.ID+".json")); err != nil {
		t.Errorf("the link is not under .todos/local: %v", err)
	}

	again, err := Session(reopen(t, s, nil), o)
	if err != nil || again.How != Known || again.Session.ID != se.ID {
		t.Fatalf("the same conversation again: %+v, %v", again, err)
	}
	other, err := Session(s, Conversation{Harness: "claude", ID: "other", Create: true, Agent: "reviewer", Category: domain.CategoryMeta})
	if err != nil || other.How != Started || other.Session.ID == se.ID || other.Session.Agent != "reviewer" || other.Session.Category != domain.CategoryMeta {
		t.Fatalf("another conversation: %+v, %v", other, err)
	}
}

func TestSessionIDs(t *testing.T) {
	s := newTestStore(t)
	for _, id := range []string{"", "  "} {
		if _, err := Session(s, Conversation{Harness: "claude", ID: id, Create: true}); repo.CodeOf(err) != repo.CodeInvalid {
			t.Errorf("id %q: %v", id, err)
		}
	}
	if _, err := Session(s, Conversation{Harness: "claude", ID: strings.Repeat("x", 201), Create: true}); repo.CodeOf(err) != repo.CodeInvalid {
		t.Errorf("a long id: %v", err)
	}
	if _, err := Session(s, Conversation{Harness: "../x", ID: "a", Create: true}); repo.CodeOf(err) != repo.CodeInvalid {
		t.Errorf("a harness name with a path in it: %v", err)
	}
	// An id that is no plain file name is hashed: it never reaches a path.
	for _, id := range []string{"../../escape", ".hidden", "a/b", "-x"} {
		res, err := Session(s, Conversation{Harness: "claude", ID: id, Create: true})
		if err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
		name := linkName("claude", id)
		if !strings.HasPrefix(name, "harness/claude/sessions/h-") || strings.Count(name, "/") != 3 {
			t.Errorf("id %q gives the file %q", id, name)
		}
		again, _ := Session(s, Conversation{Harness: "claude", ID: id})
		if again == nil || again.Session.ID != res.Session.ID {
			t.Errorf("id %q is not found again", id)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Root, "escape.json")); err == nil {
		t.Error("a session id escaped .todos/local")
	}
}

func TestSessionAdoptsTheLastOnResumeAndClear(t *testing.T) {
	s := newTestStore(t)
	a, err := Session(s, Conversation{Harness: "claude", ID: "a", Create: true})
	if err != nil {
		t.Fatal(err)
	}
	// The harness resumed (or cleared) the conversation under a new id.
	b, err := Session(s, Conversation{Harness: "claude", ID: "b", Create: true, Adopt: true})
	if err != nil || b.How != Adopted || b.Session.ID != a.Session.ID {
		t.Fatalf("adopt: %+v, %v", b, err)
	}
	if k, _ := Session(s, Conversation{Harness: "claude", ID: "b"}); k == nil || k.How != Known || k.Session.ID != a.Session.ID {
		t.Fatalf("the adopted id is known afterwards: %+v", k)
	}
	// A new conversation (startup) is a new session.
	c, err := Session(s, Conversation{Harness: "claude", ID: "c", Create: true})
	if err != nil || c.How != Started || c.Session.ID == a.Session.ID {
		t.Fatalf("startup: %+v, %v", c, err)
	}
	// The last one is now c's.
	d, _ := Session(s, Conversation{Harness: "claude", ID: "d", Create: true, Adopt: true})
	if d.Session.ID != c.Session.ID {
		t.Fatalf("adopted %s, want the last session %s", d.Session.ID, c.Session.ID)
	}
}

func TestSessionTakesTheSentSession(t *testing.T) {
	s := newTestStore(t)
	sent, err := s.StartSession(repo.StartOptions{Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	op := operator(t, s)
	res, err := Session(reopen(t, s, map[string]string{"TD_SESSION": sent.ID}), Conversation{Harness: "claude", ID: "x", Create: true})
	if err != nil || res.How != FromEnv || res.Session.ID != sent.ID {
		t.Fatalf("TD_SESSION: %+v, %v", res, err)
	}
	// An operator session is not handed to a harness.
	o := reopen(t, s, map[string]string{"TD_SESSION": op.ID})
	res, err = Session(o, Conversation{Harness: "claude", ID: "y", Create: true})
	if err != nil || res.How != Started || res.Session.ID == op.ID {
		t.Fatalf("operator TD_SESSION: %+v, %v", res, err)
	}
	if w := o.Warnings(); len(w) != 1 || !strings.Contains(w[0], "operator session") {
		t.Errorf("warnings: %q", w)
	}
}

func TestSessionRemakesALinkToAGoneSession(t *testing.T) {
	s := newTestStore(t)
	o := Conversation{Harness: "claude", ID: "a", Create: true}
	first, _ := Session(s, o)
	if err := os.Remove(filepath.Join(s.Dir, repo.SessionsDir, first.Session.ID+".yaml")); err != nil {
		t.Fatal(err)
	}
	again, err := Session(s, o)
	if err != nil || again.How != Started || again.Session.ID == first.Session.ID {
		t.Fatalf("%+v, %v", again, err)
	}
}

// Hooks of one conversation may run at once (two tool calls failing
// together): they must agree on one session.
func TestSessionConcurrentHooksAgree(t *testing.T) {
	s := newTestStore(t)
	const n = 8
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := Session(reopen(t, s, nil), Conversation{Harness: "claude", ID: "same", Create: true})
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = res.Session.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("sessions %q", ids)
		}
	}
	list, _ := s.Sessions()
	if len(list) != 1 {
		t.Fatalf("%d sessions started", len(list))
	}
}

func TestSubagentPath(t *testing.T) {
	for _, c := range []struct {
		parent domain.AgentPath
		kind   string
		want   domain.AgentPath
	}{
		{"primary", "Explore", "primary.subagents.explore"},
		{"primary", "general-purpose", "primary.subagents.general-purpose"},
		{"primary", "  Code Reviewer! ", "primary.subagents.code-reviewer"},
		{"", "", "primary.subagents.agent"},
		{"primary", "***", "primary.subagents.agent"},
		{"primary", "-x", "primary.subagents.x"},
		{"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o", "deep", "a.subagents.deep"},
	} {
		if got := SubagentPath(c.parent, c.kind); got != c.want || !got.Valid() {
			t.Errorf("SubagentPath(%q, %q) = %q, want %q", c.parent, c.kind, got, c.want)
		}
	}
}
