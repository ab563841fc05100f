package issues

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

func TestStartBindsAnUnboundSession(t *testing.T) {
	runtimeFile := func(s *repo.Store, se *repo.Session) string {
		return s.Path(repo.LocalDir, "sessions", se.ID+".json")
	}
	tests := []struct {
		name string
		// prepare runs before td start; it returns what the session is
		// bound to before the start ("" for nothing).
		prepare   func(t *testing.T, s *repo.Store, se *repo.Session, started, other string)
		wantBound bool
		wantIssue string // "started" or "other"
		wantWarn  string
	}{
		{name: "unbound", wantBound: true, wantIssue: "started"},
		{name: "bound elsewhere stays", wantIssue: "other",
			prepare: func(t *testing.T, s *repo.Store, se *repo.Session, _, other string) {
				if err := s.SetBinding(se.ID, other); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "started before, binding lost: bound again", wantBound: true, wantIssue: "started",
			prepare: func(t *testing.T, s *repo.Store, se *repo.Session, started, _ string) {
				// As if td was killed between writing the issue and the
				// binding: the issue is started, the session is not bound.
				if _, err := start(s, se, started); err != nil {
					t.Fatal(err)
				}
			}},
		// td never overwrites a runtime it cannot parse: the issue is
		// started, the binding refused with a warning naming the file,
		// and the file is kept as it was.
		{name: "hand-edited runtime is kept, with a warning", wantIssue: "kept", wantWarn: "not valid JSON (invalid character 'n' looking for beginning of object key string), and td will not overwrite it; repair it, or delete it",
			prepare: func(t *testing.T, s *repo.Store, se *repo.Session, _, _ string) {
				p := runtimeFile(s, se)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := repotest.NewStore(t)
			se := repotest.Actor(t, s)
			started, err := Create(s, se, CreateOptions{Title: "Sign in"})
			if err != nil {
				t.Fatal(err)
			}
			other, err := Create(s, se, CreateOptions{Title: "Sign out"})
			if err != nil {
				t.Fatal(err)
			}
			ref := map[string]string{"started": started.ID, "other": other.ID}
			if tt.prepare != nil {
				tt.prepare(t, s, se, started.ID, other.ID)
			}
			res, err := Start(s, se, started.ID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Issue.Status != domain.StatusInProgress || res.Bound != tt.wantBound {
				t.Errorf("status %s, bound %v; want in_progress, %v", res.Issue.Status, res.Bound, tt.wantBound)
			}
			if tt.wantWarn != "" {
				if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, tt.wantWarn) {
					t.Errorf("warnings %q, want one saying %q", w, tt.wantWarn)
				}
			}
			if tt.wantIssue == "kept" {
				if b, _ := os.ReadFile(runtimeFile(s, se)); string(b) != "{not json" {
					t.Errorf("runtime rewritten: %q", b)
				}
				return
			}
			rt, err := s.Runtime(se.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rt.BoundIssue != ref[tt.wantIssue] {
				t.Errorf("bound to %q, want %q", rt.BoundIssue, ref[tt.wantIssue])
			}
		})
	}
}
