package claims

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

// clones makes a bare remote and n clones of it, each a store with its
// own session and clock.
func clones(t *testing.T, n int, now *time.Time) (string, []*repo.Store, []*repo.Session) {
	t.Helper()
	g := repotest.NewGitStore(t)
	g.Commit("td init")
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	gitIn(t, g.Env, root, "init", "-q", "--bare", "-b", "main", bare)
	gitIn(t, g.Env, g.Dir, "push", "-q", bare, "HEAD:main")
	var stores []*repo.Store
	var sessions []*repo.Session
	for i := range n {
		dir := filepath.Join(root, string(rune('a'+i)))
		gitIn(t, g.Env, root, "clone", "-q", bare, dir)
		s, err := repo.Open(dir, repo.Options{Now: func() time.Time { return *now }, Env: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		se, err := s.StartSession(repo.StartOptions{Name: string(rune('a' + i))})
		if err != nil {
			t.Fatal(err)
		}
		stores, sessions = append(stores, s), append(sessions, se)
	}
	return bare, stores, sessions
}

// remoteRef reads the claim the bare remote holds for issue.
func remoteRef(t *testing.T, bare, issue string) string {
	t.Helper()
	out, err := os.ReadFile(filepath.Join(bare, "refs", "td", "claims", issue))
	if err != nil {
		return ""
	}
	return string(out[:40])
}

// Clones that take one issue at the same moment each publish with
// compare-and-swap: exactly one takes it, the others are refused naming
// it and keep its claim, and the remote holds it.
func TestTakePublishRace(t *testing.T) {
	now := repotest.Clock
	bare, stores, sessions := clones(t, 3, &now)
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	for round := range rounds {
		issue := "td-pub00" + string(rune('a'+round))
		var wg sync.WaitGroup
		results := make([]*TakeResult, len(stores))
		errs := make([]error, len(stores))
		for i := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = Take(stores[i], sessions[i], issue, "start", HandOver{})
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			if err == nil {
				if winner >= 0 {
					t.Fatalf("round %d: clones %d and %d both took %s", round, winner, i, issue)
				}
				winner = i
				continue
			}
			var re *repo.Error
			if !errors.As(err, &re) || re.Code != repo.CodeRefused {
				t.Fatalf("round %d: clone %d: %v", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody took %s: %v", round, issue, errs)
		}
		if results[winner].Unpublished || results[winner].Claim.Published.IsZero() {
			t.Fatalf("round %d: the winner's claim is not published: %+v", round, results[winner])
		}
		there := remoteRef(t, bare, issue)
		for i, s := range stores {
			g, _ := s.GitRepo()
			h, c, err := current(s, g, issue)
			if err != nil || h != there || c == nil || c.Session != sessions[winner].ID {
				t.Fatalf("round %d: clone %d holds %s (%+v), the remote %s", round, i, h, c, there)
			}
		}
	}
}

// A remote that cannot be reached leaves the claim here, unpublished and
// warned about; the holder's next work publishes it, and td sync then
// has nothing to do. A release reaches the remote.
func TestPublishOffline(t *testing.T) {
	now := repotest.Clock
	bare, stores, sessions := clones(t, 2, &now)
	s, se := stores[0], sessions[0]
	away := bare + ".away"
	if err := os.Rename(bare, away); err != nil {
		t.Fatal(err)
	}
	res, err := Take(s, se, "td-offlin", "start", HandOver{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Unpublished || !res.Claim.Published.IsZero() || len(s.Warnings()) != 1 {
		t.Fatalf("offline take: %+v, warnings %q", res, s.Warnings())
	}
	g, _ := s.GitRepo()
	if _, c, _ := current(s, g, "td-offlin"); c == nil || !c.Published.IsZero() {
		t.Fatalf("the record here says it was published: %+v", c)
	}
	if err := os.Rename(away, bare); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	// Work by the holder publishes the claim first.
	if err := CheckWork(s, se, "td-offlin", policy.WorkSubmit, false, "submit td-offlin"); err != nil {
		t.Fatal(err)
	}
	_, c, _ := current(s, g, "td-offlin")
	if c == nil || !c.Published.Equal(now) || remoteRef(t, bare, "td-offlin") == "" {
		t.Fatalf("after work: %+v, remote %q", c, remoteRef(t, bare, "td-offlin"))
	}
	// The other clone is refused now, and keeps the claim.
	if _, err := Take(stores[1], sessions[1], "td-offlin", "start", HandOver{}); err == nil {
		t.Fatal("the second clone took a published claim")
	}
	// The holder's close releases it there.
	appendEnd(t, s, se, "td-offlin", audit.ActionClosed)
	if held, err := Release(s, "td-offlin", se.ID, se.ID); err != nil || held == nil {
		t.Fatalf("release: %+v, %v", held, err)
	}
	if h := remoteRef(t, bare, "td-offlin"); h != "" {
		t.Fatalf("the remote still holds %s", h)
	}
}

// Work on an issue another clone claimed is refused as CI will refuse it,
// though this clone never synced: td asks the claims remote, and keeps
// the claim it found. An operator's criterion, which no claim bars, asks
// nothing.
func TestCheckWorkAsksTheRemote(t *testing.T) {
	now := repotest.Clock
	bare, stores, sessions := clones(t, 2, &now)
	if _, err := Take(stores[0], sessions[0], "td-remote", "start", HandOver{}); err != nil {
		t.Fatal(err)
	}
	agent, err := stores[1].StartSession(repo.StartOptions{Name: "agent", Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if err := CheckWork(stores[1], agent, "td-remote", policy.WorkCriterion, true, "tick"); err != nil {
		t.Fatalf("an operator's criterion: %v", err)
	}
	g, _ := stores[1].GitRepo()
	if h, _, _ := current(stores[1], g, "td-remote"); h != "" {
		t.Fatal("an operator's criterion asked the remote")
	}
	err = CheckWork(stores[1], agent, "td-remote", policy.WorkSubmit, false, "submit td-remote")
	var re *repo.Error
	if !errors.As(err, &re) || re.Code != repo.CodeRefused || !strings.Contains(err.Error(), "cannot submit td-remote: td-remote is claimed by") {
		t.Fatalf("submit under another clone's claim: %v", err)
	}
	if h, _, _ := current(stores[1], g, "td-remote"); h == "" || h != remoteRef(t, bare, "td-remote") {
		t.Fatalf("the remote's claim is not kept here: %q", h)
	}
}
