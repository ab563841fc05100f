package sessions

import (
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/repo"
)

// Activity is what this checkout knows of a session's recent work: its
// lifecycle state, bound issue and last activity, from its local state.
type Activity struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	State      string    `json:"state"`
	BoundIssue string    `json:"bound_issue"`
	LastActive time.Time `json:"last_active"`
}

// IdleActivity lists the sessions with local state in this checkout whose
// last activity is older than idle (before now - idle), oldest first. The
// session td acts as here (TD_SESSION, the checkout's current session, or
// the person's default session) is never idle: it is who acts next. A
// runtime file td cannot read counts from its modification time.
func IdleActivity(s *repo.Store, idle time.Duration) ([]Activity, error) {
	ids, err := s.RuntimeIDs()
	if err != nil {
		return nil, err
	}
	cutoff := s.Now().Add(-idle)
	cur := s.CurrentID()
	if se, _, err := s.CurrentSession("", false); err == nil && se != nil {
		cur = se.ID
	}
	var out []Activity
	for _, id := range ids {
		if id == cur {
			continue
		}
		a := activityOf(s, id)
		if a.LastActive.Before(cutoff) {
			out = append(out, a)
		}
	}
	sortByActivity(out)
	return out, nil
}

// activityOf reads a session's activity from its identity and runtime.
func activityOf(s *repo.Store, id string) Activity {
	a := Activity{ID: id}
	se, err := s.Session(id)
	if err != nil {
		se = &repo.Session{ID: id}
	}
	a.Name = se.Name
	rt, err := s.Runtime(id)
	if err != nil {
		if fi, serr := os.Stat(s.RuntimePath(id)); serr == nil {
			a.LastActive = fi.ModTime().UTC().Truncate(time.Second)
		}
		return a
	}
	a.State, a.BoundIssue, a.LastActive = rt.State, rt.BoundIssue, rt.LastActive(se)
	return a
}

func sortByActivity(list []Activity) {
	slices.SortFunc(list, func(a, b Activity) int {
		if c := a.LastActive.Compare(b.LastActive); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Prune removes the local state (runtime file and lock) of every session
// idle for longer than idle, and returns them. Their identity files are
// committed history and stay; a pruned session that acts again starts
// with a fresh local state (no binding, no counters).
func Prune(s *repo.Store, idle time.Duration) ([]Activity, error) {
	list, err := IdleActivity(s, idle)
	if err != nil {
		return nil, err
	}
	for i, a := range list {
		if err := s.RemoveRuntime(a.ID); err != nil {
			return list[:i], err
		}
	}
	return list, nil
}
