package sessions

import (
	"strings"
	"time"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
)

// maxCommandText bounds the text an action record keeps of a command line.
const maxCommandText = 120

// RecordAction notes that the session ran a td command: the action and its
// time, for the post-compaction reminder and for resume's idle time. The
// session is between turns afterwards.
func RecordAction(s *repo.Store, se *repo.Session, command string, failed bool) error {
	now := s.Now()
	return s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		rt.State = repo.StateBetweenTurn
		rt.LastActivity = now
		rt.AddAction(repo.ActionRecord{At: now, Command: repo.Clip(command, maxCommandText), Issue: rt.BoundIssue, Failed: failed})
		return nil
	})
}

// ErrorReport is what td session error recorded.
type ErrorReport struct {
	Signature string
	// Run is how many errors in a row had this signature.
	Run    int
	Errors int
	Stalls []policy.Stall
}

// RecordError notes an error the session hit (a failed build, a tool
// error): its signature, whether it repeats the last one, and the total,
// and returns the stall warnings that now apply.
func RecordError(s *repo.Store, se *repo.Session, msg, at string) (*ErrorReport, error) {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return nil, repo.Errorf(repo.CodeInvalid, "describe the error: td session error \"MESSAGE\" [--at file:line]")
	}
	sig := policy.ErrorSignature(msg, at)
	now := s.Now()
	rep := &ErrorReport{Signature: sig}
	err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		if rt.LastErrorSig == sig {
			rt.SameErrorRun++
		} else {
			rt.SameErrorRun = 1
		}
		rt.LastErrorSig = sig
		rt.LastError = repo.Clip(msg, 80)
		if at = strings.TrimSpace(at); at != "" {
			rt.LastError += " at " + at
		}
		rt.Errors++
		rt.State = repo.StateBetweenTurn
		rt.LastActivity = now
		rep.Run, rep.Errors = rt.SameErrorRun, rt.Errors
		rep.Stalls = policy.Stalls(rt.StallFacts())
		return nil
	})
	return rep, err
}

// Stop marks the session interrupted: the binding and everything else is
// kept, and the time is recorded so that resume can tell how long it idled.
func Stop(s *repo.Store, se *repo.Session) (*repo.Runtime, error) {
	now := s.Now()
	var out *repo.Runtime
	err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		rt.State = repo.StateInterrupted
		rt.StoppedAt = now
		out = rt
		return nil
	})
	return out, err
}

// Compact marks the session compacted (its memory was summarised) and
// returns the post-compaction reminder.
func Compact(s *repo.Store, se *repo.Session) (*Context, error) {
	err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		rt.State = repo.StateCompacted
		rt.Compactions++
		rt.LastActivity = s.Now()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ContextOf(s, se, ContextCompact)
}

// Resume brings a session back after a pause. Idle time is measured from
// its last activity or stop, and policy.ResumeMode decides: the plain
// context, a resume block before the prefix, or a fresh start (state
// beginning, counters and recent actions cleared) with the binding kept.
func Resume(s *repo.Store, se *repo.Session) (*Context, error) {
	now := s.Now()
	var info ResumeInfo
	err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		prev := rt.LastActive(se)
		info = ResumeInfo{Idle: now.Sub(prev), Previous: prev, PreviousState: rt.State}
		switch policy.ResumeMode(info.Idle) {
		case policy.ResumeFresh:
			info.Fresh = true
			rt.Reset(repo.StateBeginning, time.Time{})
		case policy.ResumeBlock:
			info.Block = true
			rt.State = repo.StateResumed
		default:
			rt.State = repo.StateResumed
		}
		rt.LastActivity = now
		return nil
	})
	if err != nil {
		return nil, err
	}
	kind := ContextResume
	if info.Fresh {
		kind = ContextStart
	}
	ctx, err := ContextOf(s, se, kind)
	if err != nil {
		return nil, err
	}
	ctx.Resume = &info
	return ctx, nil
}

// Restart begins a session again after its harness cleared the
// conversation: the agent remembers nothing, so the session is back at
// beginning with its recent actions and counters cleared, its binding
// kept, and the start prefix to read.
func Restart(s *repo.Store, se *repo.Session) (*Context, error) {
	now := s.Now()
	err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		rt.Reset(repo.StateBeginning, now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ContextOf(s, se, ContextStart)
}
