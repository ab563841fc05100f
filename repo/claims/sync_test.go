package claims

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
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
		// Offline teams: each clone takes the issue without publishing,
		// and td sync settles it.
		off := false
		s.Config.Claims.Publish = &off
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
			_, c, _ := current(s, g, issue)
			holders[c.Session] = true
		}
		lost := len(results[0].Lost) + len(results[1].Lost)
		if len(holders) != 1 || lost != 1 {
			t.Fatalf("round %d: holders %v, %d lost claims reported; want one holder and one loss", round, holders, lost)
		}
	}
}

// reconcile releases a claim the issue's ledger made stale wherever it
// is, and never pushes it; a claim that stands beside it is kept.
func TestReconcileStaleClaims(t *testing.T) {
	g := repotest.NewGitStore(t)
	now := repotest.Clock
	s := clockStore(t, g, &now)
	gr, err := s.GitRepo()
	if err != nil {
		t.Fatal(err)
	}
	op, err := s.StartSession(repo.StartOptions{Name: "op"})
	if err != nil {
		t.Fatal(err)
	}
	const issue = "td-aaaaaa"
	record := func(session string, claimed, heartbeat time.Time) string {
		t.Helper()
		h, err := write(gr, &domain.Claim{Issue: issue, Session: session, Actor: domain.Actor{Identity: "Op <op@example.com>"},
			Claimed: claimed, Heartbeat: heartbeat, Expires: heartbeat.Add(2 * time.Hour), EndsSeen: 0, Published: claimed})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// The agent's claim, and the same claim renewed later.
	stale, staleRenewed := record("ses_agent000", now, now), record("ses_agent000", now, now.Add(30*time.Minute))
	now = now.Add(10 * time.Minute)
	appendEnd(t, s, op, issue, audit.ActionApproved)
	now = now.Add(10 * time.Minute)
	fresh := record("ses_bob00000", now, now)

	for _, c := range []struct {
		name             string
		l, r, b          string
		wantLocal        string
		wantPush         bool
		pushNew          string
		staleHere, stale bool // a stale claim reported here; one there
		adopted          bool
	}{
		{"stale on both sides", stale, stale, stale, "", true, "", true, true, false},
		{"renewed here, stale on both", staleRenewed, stale, stale, "", true, "", true, true, false},
		{"a claim of this clone over the remote's stale one", fresh, stale, stale, fresh, true, fresh, false, true, false},
		{"stale here, none there", stale, "", stale, "", false, "", true, false, false},
		{"stale here, taken there since", stale, fresh, stale, fresh, false, "", true, false, true},
		{"stale here, the one there as last seen", staleRenewed, fresh, fresh, fresh, false, "", true, false, true},
		{"released here, unchanged there: an ordinary release", "", stale, stale, "", true, "", false, false, false},
		{"stale there, taken there since the last sync", "", stale, fresh, "", true, "", false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur, _ := gr.ReadRef(RefName(issue))
			if err := gr.UpdateRef(RefName(issue), cur, c.l); err != nil {
				t.Fatal(err)
			}
			local, there, base := map[string]string{}, map[string]string{}, map[string]string{}
			for m, h := range map[*map[string]string]string{&local: c.l, &there: c.r, &base: c.b} {
				if h != "" {
					(*m)[issue] = h
				}
			}
			res := &SyncResult{}
			pushes, _, err := reconcile(s, gr, local, there, base, nil, res)
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := gr.ReadRef(RefName(issue)); h != c.wantLocal {
				t.Errorf("local claim %q, want %q", h, c.wantLocal)
			}
			if (len(pushes) == 1) != c.wantPush || c.wantPush && pushes[0].update.New != c.pushNew {
				t.Errorf("pushes %+v", pushes)
			}
			// What is released there is reported once the push lands.
			staleThere := len(pushes) == 1 && pushes[0].stale != nil
			staleHere := len(res.Stale) == 1 && res.Stale[0].Here || staleThere && pushes[0].stale.Here
			if staleHere != c.staleHere || staleThere != c.stale {
				t.Errorf("stale here %v (%+v), there %v", staleHere, res.Stale, staleThere)
			}
			if (len(res.Adopted) == 1) != c.adopted {
				t.Errorf("adopted %+v", res.Adopted)
			}
		})
	}
}
