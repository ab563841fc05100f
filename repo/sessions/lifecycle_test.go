package sessions

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/todos"
)

// clockStore is a test store whose clock the test moves.
func clockStore(t *testing.T) (*repo.Store, *time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	base := repotest.NewStore(t)
	s, err := repo.Open(base.Root, repo.Options{Now: func() time.Time { return now }, Env: base.Env})
	if err != nil {
		t.Fatal(err)
	}
	return s, &now
}

func TestResumeFollowsIdleTime(t *testing.T) {
	s, now := clockStore(t)
	se, err := s.StartSession(repo.StartOptions{Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	is, err := issues.Create(s, se, issues.CreateOptions{Title: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(s, se, is.ID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		away         time.Duration
		block, fresh bool
		state        string
	}{
		{30 * time.Minute, false, false, repo.StateResumed},
		{3 * time.Hour, true, false, repo.StateResumed},
		{72 * time.Hour, false, true, repo.StateBeginning},
	}
	for _, tt := range tests {
		if err := RecordAction(s, se, "todo view", false); err != nil {
			t.Fatal(err)
		}
		if _, err := Stop(s, se); err != nil {
			t.Fatal(err)
		}
		*now = now.Add(tt.away)
		ctx, err := Resume(s, se)
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Resume.Block != tt.block || ctx.Resume.Fresh != tt.fresh || ctx.Resume.Idle != tt.away {
			t.Errorf("away %v: resume %+v", tt.away, *ctx.Resume)
		}
		rt, _ := s.Runtime(se.ID)
		if rt.State != tt.state || rt.BoundIssue != is.ID {
			t.Errorf("away %v: state %q, bound %q", tt.away, rt.State, rt.BoundIssue)
		}
		if tt.fresh && len(rt.Actions) != 0 {
			t.Errorf("a fresh start kept %d actions", len(rt.Actions))
		}
	}
}

func TestRecordActionKeepsTheLastTen(t *testing.T) {
	s, _ := clockStore(t)
	se := repotest.Actor(t, s)
	for i := 0; i < 15; i++ {
		if err := RecordAction(s, se, fmt.Sprintf("show td-%d", i), i == 14); err != nil {
			t.Fatal(err)
		}
	}
	rt, err := s.Runtime(se.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.Actions) != repo.MaxActions || rt.Actions[0].Command != "show td-5" || !rt.Actions[9].Failed {
		t.Errorf("actions %+v", rt.Actions)
	}
	last := rt.LastActions(3)
	if len(last) != 3 || last[2].Command != "show td-14" {
		t.Errorf("last three %+v", last)
	}
}

// Concurrent commands of one session (a harness running tools in
// parallel) must not lose each other's counts or tear the runtime file.
func TestRuntimeUpdatesAreSerialised(t *testing.T) {
	s, _ := clockStore(t)
	se := repotest.Actor(t, s)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				if _, err := RecordError(s, se, fmt.Sprintf("worker %c failed", 'a'+w), ""); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	rt, err := s.Runtime(se.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Errors != 200 {
		t.Errorf("errors counted %d, want 200", rt.Errors)
	}
}

func TestTodoProgressResetsTheStallCount(t *testing.T) {
	s, _ := clockStore(t)
	se := repotest.Actor(t, s)
	is, err := issues.Create(s, se, issues.CreateOptions{Title: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	req := func(op string, targets ...string) todos.TodoRequest {
		return todos.TodoRequest{Op: op, Issue: is.ID, Targets: targets}
	}
	if _, err := todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoSet, Issue: is.ID, Items: []string{"a", "b", "c"}}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		req   todos.TodoRequest
		run   int
		stall bool
	}{
		{req(todos.TodoStart, "b"), 2, false},
		{req(todos.TodoStart, "a"), 3, false},
		{todos.TodoRequest{Op: todos.TodoNote, Issue: is.ID, Targets: []string{"a"}, Text: "n"}, 4, false},
		{req(todos.TodoDrop, "c"), 5, true},
		{req(todos.TodoDone, "a"), 0, false},
		{todos.TodoRequest{Op: todos.TodoAdd, Issue: is.ID, Items: []string{"d"}}, 0, false},
	}
	for i, st := range steps {
		res, err := todos.Apply(s, se, st.req)
		if err != nil {
			t.Fatal(err)
		}
		rt, _ := s.Runtime(se.ID)
		if rt.NoProgressRun != st.run || (len(res.Stalls) > 0) != st.stall {
			t.Errorf("step %d (%s): run %d, stalls %v", i, st.req.Op, rt.NoProgressRun, res.Stalls)
		}
	}
}

func TestRestartKeepsTheBindingAndClearsTheRest(t *testing.T) {
	s := repotest.NewStore(t)
	se, _ := s.StartSession(repo.StartOptions{Agent: "primary"})
	err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		rt.BoundIssue, rt.State, rt.Errors, rt.SameErrorRun, rt.Compactions = "td-abc123", repo.StateCompacted, 4, 3, 2
		rt.Actions = []repo.ActionRecord{{Command: "todo done x"}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := Restart(s, se)
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := s.Runtime(se.ID)
	if rt.BoundIssue != "td-abc123" || rt.State != repo.StateBeginning || rt.Errors != 0 || rt.SameErrorRun != 0 || rt.Compactions != 0 || len(rt.Actions) != 0 {
		t.Fatalf("runtime after restart: %+v", rt)
	}
	if ctx.Kind != ContextStart || len(ctx.Stalls) != 0 {
		t.Fatalf("context: %+v", ctx)
	}
}
