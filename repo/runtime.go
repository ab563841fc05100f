package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tdproject/td/policy"
)

// Session lifecycle states (spec section 8).
const (
	StateBeginning   = "beginning"
	StateBetweenTurn = "between_turn"
	StateCompacted   = "compacted"
	StateInterrupted = "interrupted"
	StateResumed     = "resumed"
)

// maxActions is how many recent actions a runtime keeps: enough for the
// post-compaction reminder's last three and a little history.
const MaxActions = 10

// Runtime is a session's local state in .todos/local/sessions/<id>.json:
// never committed, because it describes this checkout's conversation, not
// the project: the bound issue, the lifecycle state, the recent actions and
// the counters stall detection reads.
type Runtime struct {
	BoundIssue string `json:"bound_issue,omitempty"`
	// BoundBy says how the binding was made: BoundByStart when td start or
	// td reclaim bound a session that had none; "" for td session bind,
	// td send and td promote. A person's td start (or reclaim, which
	// starts the work anew) binds only for the checklist's sake:
	// it does not make later issues the person files children of it.
	BoundBy      string         `json:"bound_by,omitempty"`
	State        string         `json:"state,omitempty"`
	LastActivity time.Time      `json:"last_activity"`
	StoppedAt    time.Time      `json:"stopped_at"`
	Actions      []ActionRecord `json:"actions,omitempty"`
	Compactions  int            `json:"compactions,omitempty"`
	Errors       int            `json:"errors,omitempty"`
	LastErrorSig string         `json:"last_error_signature,omitempty"`
	LastError    string         `json:"last_error,omitempty"`
	SameErrorRun int            `json:"same_error_run,omitempty"`
	// NoProgressRun counts todo changes in a row that completed nothing.
	NoProgressRun int `json:"no_progress_run,omitempty"`
	// WorkTree is the root of the work tree the session last acted in:
	// runtimes are the clone's, and what a subagent reports to is found
	// among the root sessions of its own work tree.
	WorkTree string `json:"work_tree,omitempty"`
	// ClaimExpires is when the session's claim on its bound issue expired
	// as a harness hook last read it (claims.RenewBound): until a renewal
	// is due by it, a hook need not open git to look again. Zero when the
	// session held no claim then, or after the conversation's end cut the
	// lease short.
	ClaimExpires time.Time `json:"claim_expires,omitzero"`
	// Via is the harness a hook-driven session works in, as its hooks
	// last reported it: every ledger entry the session writes names it
	// (Attribution). Empty for a session no harness hook has acted as.
	Via Attribution `json:"via,omitzero"`
}

// Attribution names what made a change: the agent harness (claude,
// codex), the model where the harness reports one, and the harness's
// subagent (its id and kind) when a subagent's own session acted. It
// travels with git as details of the ledger entries a hook-driven
// session writes; policy never reads it.
type Attribution struct {
	Harness   string `json:"harness,omitempty"`
	Model     string `json:"model,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
}

// IsZero reports whether a names nothing.
func (a Attribution) IsZero() bool { return a == Attribution{} }

// The ledger details an attribution is written as.
const (
	DetailHarness   = "harness"
	DetailModel     = "model"
	DetailAgentID   = "agent_id"
	DetailAgentType = "agent_type"
)

// AttributionKeys are the ledger details that only say what made an
// entry: readers that compare entries by what they did skip them.
var AttributionKeys = []string{DetailHarness, DetailModel, DetailAgentID, DetailAgentType}

// Details adds a's fields to an entry's details, the fields a names only,
// and returns them (a new map when d is nil and a names something).
func (a Attribution) Details(d map[string]any) map[string]any {
	if a.IsZero() {
		return d
	}
	out := make(map[string]any, len(d)+4)
	for k, v := range d {
		out[k] = v
	}
	for k, v := range map[string]string{DetailHarness: a.Harness, DetailModel: a.Model, DetailAgentID: a.AgentID, DetailAgentType: a.AgentType} {
		if _, taken := out[k]; v != "" && !taken {
			out[k] = v
		}
	}
	return out
}

// AttributionOf reads the attribution an entry's details carry.
func AttributionOf(d map[string]any) Attribution {
	str := func(k string) string { v, _ := d[k].(string); return v }
	return Attribution{Harness: str(DetailHarness), Model: str(DetailModel), AgentID: str(DetailAgentID), AgentType: str(DetailAgentType)}
}

// Words is the attribution for people: "claude (claude-opus-4-5),
// subagent Explore".
func (a Attribution) Words() string {
	s := a.Harness
	if a.Model != "" {
		if s == "" {
			s = a.Model
		} else {
			s += " (" + a.Model + ")"
		}
	}
	if a.AgentID != "" || a.AgentType != "" {
		sub := a.AgentType
		if sub == "" {
			sub = a.AgentID
		}
		if s != "" {
			s += ", "
		}
		s += "subagent " + sub
	}
	return s
}

// Reset is the runtime a session starts over with after its harness
// cleared the conversation or a long pause: the binding and the harness
// it works in are kept, everything else is cleared.
func (rt *Runtime) Reset(state string, now time.Time) {
	*rt = Runtime{BoundIssue: rt.BoundIssue, State: state, LastActivity: now, Via: rt.Via}
}

// ActionRecord is one td command a session ran.
type ActionRecord struct {
	At      time.Time `json:"at"`
	Command string    `json:"command"`
	Issue   string    `json:"issue,omitempty"`
	Failed  bool      `json:"failed,omitempty"`
}

// StallFacts are the runtime's counters as the stall rules read them.
func (rt *Runtime) StallFacts() policy.StallFacts {
	return policy.StallFacts{SameErrorRun: rt.SameErrorRun, LastError: rt.LastError, NoProgressRun: rt.NoProgressRun, Errors: rt.Errors}
}

// LastActive is when the session last did anything td saw: its last
// command, its stop, or its start.
func (rt *Runtime) LastActive(se *Session) time.Time {
	t := se.CreatedAt
	if rt.LastActivity.After(t) {
		t = rt.LastActivity
	}
	if rt.StoppedAt.After(t) {
		t = rt.StoppedAt
	}
	return t
}

func runtimeName(id string) string { return "sessions/" + id + ".json" }

// Runtime reads a session's local state; a session that never bound
// anything has the zero Runtime.
func (s *Store) Runtime(id string) (*Runtime, error) { return s.runtime(id, true) }

// runtime reads a session's runtime; cached allows the Store's copy when
// the file has not been replaced since. UpdateRuntime reads the file
// itself under its lock: a read-modify-write must not start from a copy.
func (s *Store) runtime(id string, cached bool) (*Runtime, error) {
	if id == "" { // the session a reading command stands in with has no runtime yet
		return &Runtime{}, nil
	}
	if !ValidSessionID(id) {
		return nil, Errorf(CodeInvalid, "%q is not a session ID", id)
	}
	// A harness hook asks for the same runtime three or four times; the
	// file is read and decoded again only when it is another file (a
	// write replaces it by rename, so its inode changes).
	p := s.SharedPath(runtimeName(id))
	stamp, stamped := fileStampOf(p)
	c := &s.runtimes
	c.mu.Lock()
	prev, hit := c.m[id]
	c.mu.Unlock()
	if cached && stamped && hit && prev.stamp == stamp {
		return prev.rt.clone(), nil
	}
	data, found, err := s.readSharedFile(p)
	if err != nil {
		return nil, err
	}
	if !found && s.sharedInGit() {
		// Written by a td that kept runtimes per work tree: read here,
		// moved to the shared directory by the next write.
		stamped = false
		if data, _, err = s.readSharedFile(s.legacyPath(runtimeName(id))); err != nil {
			return nil, err
		}
		p = s.legacyPath(runtimeName(id))
	}
	rt := &Runtime{}
	if data != "" {
		if err := json.Unmarshal([]byte(data), rt); err != nil {
			return nil, s.stateParseError(p, []byte(data), err, "the session's binding and counters")
		}
	}
	if stamped {
		c.keep(id, stamp, rt)
	}
	return rt, nil
}

// runtimeCache holds the runtimes a Store has read, with the stamp of the
// file each came from.
type runtimeCache struct {
	mu sync.Mutex
	m  map[string]cachedRuntime
}

type cachedRuntime struct {
	stamp [3]int64
	rt    *Runtime
}

// keep makes a copy of rt the Store's runtime of id, read from or written
// to the file stamp stamps.
func (c *runtimeCache) keep(id string, stamp [3]int64, rt *Runtime) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedRuntime{}
	}
	c.m[id] = cachedRuntime{stamp: stamp, rt: rt.clone()}
}

// clone copies rt, its actions included.
func (rt *Runtime) clone() *Runtime {
	c := *rt
	c.Actions = append([]ActionRecord(nil), rt.Actions...)
	return &c
}

// stateParseError refuses a state file at p (under .todos/local or in the
// shared directory) td cannot parse, naming its line and the fix: td never
// overwrites a file it could not read, since what is in it would be lost
// unseen. what says what deleting the file forgets.
func (s *Store) stateParseError(p string, data []byte, err error, what string) error {
	rel := s.shown(p)
	line := 0
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line = lineAt(data, se.Offset)
	case errors.As(err, &te):
		line = lineAt(data, te.Offset)
	}
	return &ParseError{Path: rel, Line: line, Msg: fmt.Sprintf("not valid JSON (%v), and td will not overwrite it; repair it, or delete it to forget %s", err, what)}
}

// lineAt is the 1-based line holding byte offset off (as encoding/json
// counts: the bytes read so far).
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 {
		off--
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// updateRuntime is a read-modify-write of one session's runtime under that
// session's own lock, so that recording activity never waits for the
// store lock. Callers that also hold the store lock take it first.
func (s *Store) UpdateRuntime(id string, fn func(rt *Runtime) error) error {
	if !ValidSessionID(id) {
		return Errorf(CodeInvalid, "%q is not a session ID", id)
	}
	dir := s.SharedPath("sessions")
	lock := filepath.Join(dir, id+s.lockSuffix())
	if err := s.refuseSharedLinks(lock); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.shown(dir), err)
	}
	unlock, err := lockFile(lock)
	if err != nil {
		return err
	}
	defer unlock()
	rt, err := s.runtime(id, false)
	if err != nil {
		return err
	}
	if err := fn(rt); err != nil {
		return err
	}
	rt.WorkTree = s.Root
	b, err := json.MarshalIndent(rt, "", "  ")
	if err != nil {
		return err
	}
	// Local to the clone, rebuilt by the next command if lost: no fsync.
	p := s.SharedPath(runtimeName(id))
	if err := s.writeSharedFile(p, append(b, '\n'), false); err != nil {
		return err
	}
	if s.sharedInGit() {
		// Moved: a copy an older td left in this work tree is stale now.
		s.removeLegacyRuntime(id)
	}
	// The next read in this command finds what was written without
	// reading it back: stamped while the session's lock is still held,
	// so no other td can have replaced it in between.
	if stamp, ok := fileStampOf(p); ok {
		s.runtimes.keep(id, stamp, rt)
	}
	return nil
}

// BoundIssue returns the issue the session is bound to, or "" when none.
// A binding to an issue whose file has gone is reported as unbound.
func (s *Store) BoundIssue(se *Session) (string, error) {
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return "", err
	}
	return rt.BoundIssue, nil
}

// setBinding points a session's runtime at an issue ("" for none).
func (s *Store) SetBinding(sessionID, issueID string) error {
	return s.UpdateRuntime(sessionID, func(rt *Runtime) error {
		rt.BoundIssue, rt.BoundBy = issueID, ""
		return nil
	})
}

// BoundByStart marks a binding td start or td reclaim made (Runtime.BoundBy).
const BoundByStart = "start"

// boundIssueID returns the issue the session works on, refusing with a
// message an agent can act on when there is none.
func (s *Store) BoundIssueID(se *Session) (string, error) {
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return "", err
	}
	if rt.BoundIssue == "" {
		if se.ID == "" {
			return "", Errorf(CodeRefused, "no session has started here yet, so no issue is bound; bind one with td session bind ID, or name one with --issue ID")
		}
		if s.EffectiveRole(se).Person() {
			return "", Errorf(CodeRefused, "session %s is not bound to an issue; bind one with td session bind ID, or name one with --issue ID", se.ID)
		}
		return "", Errorf(CodeRefused, "session %s is not bound to an issue; ask the operator to bind one (td session bind ID), or file your work as one with td promote TITLE", se.ID)
	}
	return rt.BoundIssue, nil
}

// RuntimeIDs lists the sessions that have local state in this checkout
// (.todos/local/sessions/<id>.json), sorted.
func (s *Store) RuntimeIDs() ([]string, error) {
	dirs := []string{s.SharedPath("sessions")}
	if s.sharedInGit() {
		dirs = append(dirs, s.legacyPath("sessions")) // an older td's, not moved yet
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.shown(dir), err)
		}
		for _, e := range ents {
			if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && ValidSessionID(id) && e.Type().IsRegular() {
				seen[id] = true
			}
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// RuntimePath is the file holding a session's runtime, for a caller that
// reports its modification time; the one an older td left in this work
// tree when the shared one does not exist yet.
func (s *Store) RuntimePath(id string) string {
	p := s.SharedPath(runtimeName(id))
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) && s.sharedInGit() {
		if _, err := os.Lstat(s.legacyPath(runtimeName(id))); err == nil {
			return s.legacyPath(runtimeName(id))
		}
	}
	return p
}

// removeLegacyRuntime deletes the runtime (and lock) an older td kept for
// id in this work tree: the shared one replaces it.
func (s *Store) removeLegacyRuntime(id string) {
	for _, name := range []string{id + ".json", id + ".lock"} {
		p := s.legacyPath("sessions/" + name)
		if s.refuseLinks(p) != nil {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.warnf("could not remove %s, which the shared runtime replaces: %v", s.rel(p), err)
		}
	}
}

// RemoveRuntime deletes a session's local state (its runtime file and its
// lock) under the session's lock: what td prunes of a session that has
// gone quiet. The session's identity file is committed and stays.
func (s *Store) RemoveRuntime(id string) error {
	if !ValidSessionID(id) {
		return Errorf(CodeInvalid, "%q is not a session ID", id)
	}
	dir := s.SharedPath("sessions")
	lock := filepath.Join(dir, id+s.lockSuffix())
	if err := s.refuseSharedLinks(lock); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.shown(dir), err)
	}
	unlock, err := lockFile(lock)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, id+".json")
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		unlock()
		return fmt.Errorf("%s: %w", s.shown(p), err)
	}
	if s.sharedInGit() {
		s.removeLegacyRuntime(id)
	}
	unlock()
	// The lock file goes last: a writer that took it meanwhile recreates
	// the runtime, which is what it asked for.
	if err := os.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w", s.shown(lock), err)
	}
	return nil
}
