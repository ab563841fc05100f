package claims

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

// gitIn runs the git program in dir.
func gitIn(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Two clones take one issue and sync at the same moment, again and again:
// every time, exactly one claim survives, the same on both clones and on
// the remote, and the other clone reports its own lost.
func TestSyncConcurrentClones(t *testing.T) {
	g := repotest.NewGitStore(t)
	g.Commit("td init")
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	gitIn(t, g.Env, root, "init", "-q", "--bare", "-b", "main", bare)
	gitIn(t, g.Env, g.Dir, "push", "-q", bare, "HEAD:main")
	var stores [2]*repo.Store
	var sessions [2]*repo.Session
	now := repotest.Clock
	for i, name := range []string{"one", "two"} {
		dir := filepath.Join(root, name)
		gitIn(t, g.Env, root, "clone", "-q", bare, dir)
		s, err := repo.Open(dir, repo.Options{Now: func() time.Time { return now }, Env: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		se, err := s.StartSession(repo.StartOptions{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		stores[i], sessions[i] = s, se
	}
	rounds := 4
	if testing.Short() {
		rounds = 1 // -short: one race; the full run races four times
	}
	for round := range rounds {
		issue := "td-race0" + string(rune('a'+round))
		for i := range stores {
			if _, err := Take(stores[i], sessions[i], issue, "start", HandOver{}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var results [2]*SyncResult
		var errs [2]error
		for i := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = Sync(stores[i], "origin")
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: clone %d: %v", round, i, err)
			}
		}
		// The one that lost the race may have fetched before the
		// winner pushed: a second sync settles it, as a user would run.
		for i := range stores {
			r, err := Sync(stores[i], "origin")
			if err != nil {
				t.Fatal(err)
			}
			results[i].Lost = append(results[i].Lost, r.Lost...)
		}
		remote := gitIn(t, nil, bare, "rev-parse", RefName(issue))
		holders := map[string]bool{}
		for i, s := range stores {
			g, _ := s.GitRepo()
			h, _ := g.ReadRef(RefName(issue))
			if h != remote {
				t.Fatalf("round %d: clone %d holds %s, the remote %s", round, i, h, remote)
			}
			_, c, _ := current(g, issue)
			holders[c.Session] = true
		}
		lost := len(results[0].Lost) + len(results[1].Lost)
		if len(holders) != 1 || lost != 1 {
			t.Fatalf("round %d: holders %v, %d lost claims reported; want one holder and one loss", round, holders, lost)
		}
	}
}
