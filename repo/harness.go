package repo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
)

// An agent harness (Claude Code, for one) runs hooks at the moments of a
// conversation: it starts, resumes, is cleared or compacted, ends a turn,
// finishes a tool call. td maps each conversation the harness names to one
// td agent session, kept in .todos/local (never committed: the
// conversation belongs to this checkout), and each moment to the session
// lifecycle.

// HarnessClaude names Claude Code among harnesses.
const HarnessClaude = "claude"

// How HarnessSession found the td session of a harness conversation.
const (
	// HarnessKnown: the conversation was seen before.
	HarnessKnown = "known"
	// HarnessStarted: a new agent session was started for it.
	HarnessStarted = "started"
	// HarnessFromEnv: TD_SESSION named the agent session it acts as (the
	// operator ran td send and started the harness with its export line).
	HarnessFromEnv = "env"
	// HarnessAdopted: the harness gave a resumed or cleared conversation a
	// new id, and it continues the checkout's last harness session.
	HarnessAdopted = "adopted"
)

// HarnessOptions says which harness conversation to look up, and what to
// do when td has not seen it yet.
type HarnessOptions struct {
	Harness string // HarnessClaude
	ID      string // the harness's own session id
	// Agent and Category are the new session's agent path (primary when
	// empty) and scope (project when empty).
	Agent    domain.AgentPath
	Category domain.Category
	// Create starts (or takes over) a session for an unknown conversation;
	// without it an unknown conversation gives a nil result.
	Create bool
	// Adopt lets an unknown conversation continue the checkout's last
	// harness session: a harness that resumes or clears a conversation may
	// give it a new id.
	Adopt bool
}

// HarnessResult is the td session a harness conversation acts as.
type HarnessResult struct {
	Session *Session
	// How is HarnessKnown, HarnessStarted, HarnessFromEnv or HarnessAdopted.
	How string
}

// harnessLink is .todos/local/harness/<harness>/sessions/<key>.json.
type harnessLink struct {
	Session        string    `json:"session"`
	HarnessSession string    `json:"harness_session"`
	LinkedAt       time.Time `json:"linked_at"`
	How            string    `json:"how"`
}

// maxHarnessID bounds a harness session id td accepts.
const maxHarnessID = 200

// HarnessSession returns the td session of a harness conversation. A
// conversation seen before keeps its session. An unknown one, with
// o.Create, takes the agent session TD_SESSION names, else (with o.Adopt)
// the checkout's last harness session, else a new agent session; the
// choice is made under the store lock, so hooks running at once agree.
func (s *Store) HarnessSession(o HarnessOptions) (*HarnessResult, error) {
	if strings.TrimSpace(o.ID) == "" {
		return nil, errorf(CodeInvalid, "the hook payload has no session_id; td maps each harness conversation to a td session by it")
	}
	if len(o.ID) > maxHarnessID {
		return nil, errorf(CodeInvalid, "the hook payload's session_id is over %d characters", maxHarnessID)
	}
	if o.Harness == "" || !domain.AgentPath(o.Harness).Valid() {
		return nil, errorf(CodeInvalid, "harness name %q must be a lowercase word such as claude", o.Harness)
	}
	if o.Agent == "" {
		o.Agent = "primary"
	}
	se, err := s.linkedSession(o)
	if err != nil {
		return nil, err
	}
	if se != nil {
		s.noteLastHarness(o.Harness, se.ID)
		return &HarnessResult{Session: se, How: HarnessKnown}, nil
	}
	if !o.Create {
		return nil, nil
	}
	res := &HarnessResult{}
	err = s.Update(func(tx *Tx) error {
		if se, err := s.linkedSession(o); err != nil || se != nil {
			res.Session, res.How = se, HarnessKnown
			return err
		}
		var last *Session
		if o.Adopt {
			last = s.lastHarnessSession(o.Harness)
		}
		if se := s.envAgentSession(); se != nil {
			res.Session, res.How = se, HarnessFromEnv
		} else if last != nil {
			res.Session, res.How = last, HarnessAdopted
		} else {
			short := o.ID
			if len(short) > 8 {
				short = short[:8]
			}
			se, err := s.startSession(tx, StartOptions{Name: o.Harness + " " + short, Agent: o.Agent, Category: o.Category})
			if err != nil {
				return err
			}
			res.Session, res.How = se, HarnessStarted
		}
		link := harnessLink{Session: res.Session.ID, HarnessSession: o.ID, LinkedAt: s.Now(), How: res.How}
		b, _ := json.MarshalIndent(link, "", "  ")
		return s.writeLocal(harnessLinkName(o.Harness, o.ID), string(b)+"\n")
	})
	if err != nil {
		return nil, err
	}
	if res.How == HarnessStarted {
		if err := s.markStarted(res.Session); err != nil {
			return nil, err
		}
	}
	s.noteLastHarness(o.Harness, res.Session.ID)
	return res, nil
}

// linkedSession reads the conversation's link; nil when there is none, or
// when the session it names has gone (the link is then made again).
func (s *Store) linkedSession(o HarnessOptions) (*Session, error) {
	data, err := s.readLocal(harnessLinkName(o.Harness, o.ID))
	if err != nil || data == "" {
		return nil, err
	}
	var link harnessLink
	if err := json.Unmarshal([]byte(data), &link); err != nil || link.HarnessSession != o.ID {
		s.warnf("ignoring unreadable .todos/local/%s", harnessLinkName(o.Harness, o.ID))
		return nil, nil
	}
	se, err := s.Session(link.Session)
	if CodeOf(err) == CodeNotFound || CodeOf(err) == CodeInvalid {
		return nil, nil
	}
	return se, err
}

// envAgentSession is the agent session TD_SESSION names, if it names one.
// An operator session is not handed to a harness: the harness is an agent.
func (s *Store) envAgentSession() *Session {
	id := s.Env("TD_SESSION")
	if id == "" {
		return nil
	}
	se, err := s.Session(id)
	if err != nil {
		s.warnf("TD_SESSION: %v; the harness gets a session of its own", err)
		return nil
	}
	if !se.IsAgent() {
		s.warnf("TD_SESSION names %s, an operator session; the harness is an agent, so it gets an agent session of its own", se.ID)
		return nil
	}
	return se
}

// lastHarnessSession is the session the checkout's harness used last.
func (s *Store) lastHarnessSession(harness string) *Session {
	id, err := s.readLocal("harness/" + harness + "/last")
	if err != nil || id == "" {
		return nil
	}
	se, err := s.Session(id)
	if err != nil {
		return nil
	}
	return se
}

// noteLastHarness remembers the session the harness used last, for a
// conversation it resumes or clears under a new id. Losing it costs only
// that guess, so a failure is a warning.
func (s *Store) noteLastHarness(harness, id string) {
	name := "harness/" + harness + "/last"
	if cur, _ := s.readLocal(name); cur == id {
		return
	}
	if err := s.writeLocal(name, id+"\n"); err != nil {
		s.warnf("could not remember the harness's last session: %v", err)
	}
}

// harnessLinkName is the link file of a conversation under .todos/local: the
// id itself when it is a plain file name, else a hash of it.
func harnessLinkName(harness, id string) string {
	key := id
	if !plainFileName(id) {
		sum := sha256.Sum256([]byte(id))
		key = "h-" + hex.EncodeToString(sum[:16])
	}
	return "harness/" + harness + "/sessions/" + key + ".json"
}

func plainFileName(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Restart begins a session again after its harness cleared the
// conversation: the agent remembers nothing, so the session is back at
// beginning with its recent actions and counters cleared, its binding
// kept, and the start prefix to read.
func (s *Store) Restart(se *Session) (*Context, error) {
	now := s.Now()
	err := s.updateRuntime(se.ID, func(rt *Runtime) error {
		*rt = Runtime{BoundIssue: rt.BoundIssue, State: StateBeginning, LastActivity: now}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.SessionContext(se, ContextStart)
}

// ToolFailure is a harness tool call that failed, as stall detection
// counts it.
type ToolFailure struct {
	// Tool is the tool's name, such as Bash or Edit.
	Tool string
	// Error is the error the harness reported, whole.
	Error string
	// Target is what the call acted on: the command of a shell tool, the
	// file of a file tool; "" when the tool names neither.
	Target string
}

// maxTargetText bounds the target a recorded error keeps.
const maxTargetText = 80

// Message is the failure as td records it: the tool's name and the first
// line of its error that says something. A line that only gives an exit
// status ("Exit code 1") says the same for every failing command, so the
// next line comes with it.
func (f ToolFailure) Message() string {
	var lines []string
	for _, l := range strings.Split(f.Error, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	msg := "failed"
	if len(lines) > 0 {
		msg = lines[0]
		if len(lines) > 1 && onlyExitStatus(lines[0]) {
			msg += " — " + lines[1]
		}
	}
	tool := strings.TrimSpace(f.Tool)
	if tool == "" {
		tool = "tool"
	}
	return tool + ": " + msg
}

// onlyExitStatus reports whether a line says nothing but that a command
// failed with some status.
func onlyExitStatus(l string) bool {
	generic := map[string]bool{"error": true, "exit": true, "exited": true, "code": true, "status": true,
		"command": true, "with": true, "non-zero": true, "nonzero": true, "process": true, "failed": true, "returned": true}
	for _, w := range strings.Fields(strings.ToLower(l)) {
		w = strings.Trim(w, ":.,;()[]")
		if w == "" || generic[w] || strings.Trim(w, "0123456789-") == "" {
			continue
		}
		return false
	}
	return true
}

// RecordToolFailure records a failed tool call as a session error, as td
// session error does: the message is Message(), the location the target,
// so the same call failing the same way three times in a row is a stall,
// whatever digits its output carries.
func (s *Store) RecordToolFailure(se *Session, f ToolFailure) (*ErrorReport, error) {
	return s.RecordError(se, f.Message(), clip(f.Target, maxTargetText))
}

// ToolResponseFailure reads a harness's tool_response and reports whether
// it describes a failed call, with the error text. A response fails when
// it says so (is_error or isError true, success false, a non-empty error)
// or carries a non-zero exit code (exit_code, exitCode, returnCode,
// return_code). A call the user interrupted (interrupted true) is not a
// failure of the agent's, and anything else, a plain string included, is
// a success.
func ToolResponseFailure(resp json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp, &m); err != nil || m == nil {
		return "", false
	}
	if isTrue(m["interrupted"]) {
		return "", false
	}
	errText := jsonText(m["error"])
	code := ""
	for _, k := range []string{"exit_code", "exitCode", "returnCode", "return_code"} {
		var n json.Number
		if json.Unmarshal(m[k], &n) == nil && n != "" && n != "0" {
			code = string(n)
			break
		}
	}
	failed := isTrue(m["is_error"]) || isTrue(m["isError"]) || isFalse(m["success"]) || errText != "" || code != ""
	if !failed {
		return "", false
	}
	for _, k := range []string{"message", "stderr", "content", "stdout"} {
		if errText != "" {
			break
		}
		errText = jsonText(m[k])
	}
	if code != "" {
		errText = strings.TrimSpace("Exit code " + code + "\n" + errText)
	}
	return errText, true
}

func isTrue(raw json.RawMessage) bool {
	var b bool
	return json.Unmarshal(raw, &b) == nil && b
}

func isFalse(raw json.RawMessage) bool {
	var b bool
	return len(raw) > 0 && json.Unmarshal(raw, &b) == nil && !b
}

// jsonText is the text a JSON value carries: a string, an object's
// "message" or "text", or the text parts of a content list.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return strings.TrimSpace(str)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for _, k := range []string{"message", "text"} {
			if t := jsonText(obj[k]); t != "" {
				return t
			}
		}
		return ""
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, it := range list {
			if t := jsonText(it); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// ToolTarget reads what a tool call acted on from its tool_input: the
// first line of a command, or a file path (relative to the work tree when
// inside it).
func (s *Store) ToolTarget(input json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	if cmd := jsonText(m["command"]); cmd != "" {
		first, _, _ := strings.Cut(cmd, "\n")
		return strings.TrimSpace(first)
	}
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		p := jsonText(m[k])
		if p == "" {
			continue
		}
		if filepath.IsAbs(p) {
			if r, err := filepath.Rel(s.Root, p); err == nil && filepath.IsLocal(r) {
				return filepath.ToSlash(r)
			}
		}
		return p
	}
	return ""
}

// SetEnvFileVar makes an env file a harness sources before each shell
// command export key=value: td's earlier line for key is replaced, every
// other line is kept, and the file is replaced atomically. value must need
// no quoting (a session id).
func SetEnvFileVar(path, key, value string) error {
	line := "export " + key + "=" + value
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read the env file %s: %w", path, err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		t := strings.TrimSpace(l)
		if t == line {
			return nil
		}
		if l == "" || strings.HasPrefix(t, "export "+key+"=") {
			continue
		}
		if !strings.HasSuffix(l, "\n") {
			l += "\n"
		}
		kept = append(kept, l)
	}
	out := strings.Join(kept, "") + line + "\n"
	return WriteFileAtomic(path, []byte(out))
}

// ErrorText is the text an error value in a hook payload carries: a
// string, an object's message or text, or the text parts of a list.
func ErrorText(raw json.RawMessage) string { return jsonText(raw) }
