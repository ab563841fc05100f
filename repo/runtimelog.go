package repo

import (
	"strings"

	"github.com/tdproject/td/policy"
)

func (rt *Runtime) AddAction(a ActionRecord) {
	rt.Actions = append(rt.Actions, a)
	if n := len(rt.Actions); n > MaxActions {
		rt.Actions = append([]ActionRecord(nil), rt.Actions[n-MaxActions:]...)
	}
}

// Clip folds runs of white space and cuts s to n bytes with an ellipsis,
// on a rune boundary: how a session's runtime record keeps commands and
// errors short. Harness adapters cut what they record the same way.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n - 1
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// LastActions returns the session's most recent actions, newest last.
func (rt *Runtime) LastActions(n int) []ActionRecord {
	if len(rt.Actions) <= n {
		return rt.Actions
	}
	return rt.Actions[len(rt.Actions)-n:]
}

// noteTodoChange counts todo mutations that complete nothing, for stall
// detection: progress resets the run.
func (s *Store) NoteTodoChange(se *Session, progress bool) ([]policy.Stall, error) {
	var stalls []policy.Stall
	err := s.UpdateRuntime(se.ID, func(rt *Runtime) error {
		if progress {
			rt.NoProgressRun = 0
		} else {
			rt.NoProgressRun++
		}
		stalls = policy.Stalls(rt.StallFacts())
		return nil
	})
	return stalls, err
}

// markStarted records a new session's first state.
func (s *Store) markStarted(se *Session) error {
	return s.UpdateRuntime(se.ID, func(rt *Runtime) error {
		rt.State = StateBeginning
		rt.LastActivity = se.CreatedAt
		return nil
	})
}
