package claude

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
)

func TestToolTarget(t *testing.T) {
	root := t.TempDir()
	cases := map[string]string{
		`{"command":"go test ./auth/...\necho done","description":"run tests"}`:            "go test ./auth/...",
		`{"file_path":"` + filepath.Join(root, "auth", "token.go") + `","old_string":"a"}`: "auth/token.go",
		`{"file_path":"/elsewhere/x.go"}`:                                                  "/elsewhere/x.go",
		`{"notebook_path":"nb.ipynb"}`:                                                     "nb.ipynb",
		`{"pattern":"TODO"}`:                                                               "",
		`not json`:                                                                         "",
	}
	for in, want := range cases {
		if got := toolTarget(root, json.RawMessage(in)); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// spaces is an endless payload of white space.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestReadCall(t *testing.T) {
	cases := []struct {
		name    string
		named   Event
		payload string
		event   Event
		acts    bool
		failure string // the failure's message, "" for none
		err     string
	}{
		{name: "the payload names it", payload: `{"hook_event_name":"Stop"}`, event: Stop, acts: true},
		{name: "the command names it", named: SessionStart, payload: `{"session_id":"a"}`, event: SessionStart, acts: true},
		{name: "both agree", named: SessionEnd, payload: `{"hook_event_name":"SessionEnd"}`, event: SessionEnd, acts: true},
		{name: "PreCompact writes the handoff", payload: `{"hook_event_name":"PreCompact"}`, event: PreCompact, acts: true},
		{name: "PostCompact does nothing", payload: `{"hook_event_name":"PostCompact","trigger":"auto","compact_summary":"s"}`, event: PostCompact},
		{name: "a prompt renews the claim", payload: `{"hook_event_name":"UserPromptSubmit","prompt":"go on"}`, event: UserPromptSubmit, acts: true},
		{name: "a turn ended by an API error", payload: `{"hook_event_name":"StopFailure","error":"rate_limit"}`, event: StopFailure, acts: true},
		{name: "a tool call that worked", named: PostToolUse, payload: `{"tool_name":"Bash","tool_response":{"stdout":"ok"}}`, event: PostToolUse},
		{name: "a tool call that failed", named: PostToolUse, payload: `{"tool_name":"Bash","tool_response":{"stderr":"boom","exit_code":2}}`,
			event: PostToolUse, acts: true, failure: "Bash: Exit code 2 — boom"},
		{name: "a failed call", named: PostToolUseFailure, payload: `{"tool_name":"Edit","error":"String to replace not found"}`,
			event: PostToolUseFailure, acts: true, failure: "Edit: String to replace not found"},
		{name: "an interrupted call", named: PostToolUseFailure, payload: `{"tool_name":"Bash","error":"x","is_interrupt":true}`, event: PostToolUseFailure},
		{name: "blank", payload: " \n", err: "no hook payload on standard input"},
		{name: "not JSON", payload: `{"a":}`, err: "the hook payload is not JSON (invalid character '}' looking for beginning of value at byte 6)"},
		{name: "a field of the wrong type", payload: `{"session_id":7}`, err: "the hook payload's session_id is a JSON number, where Claude Code sends a string"},
		{name: "not an object", payload: `[1]`, err: "not the JSON object Claude Code sends"},
		{name: "they disagree", named: Stop, payload: `{"hook_event_name":"SessionStart"}`, err: "the command names the event Stop but the payload is for SessionStart"},
		{name: "no event", payload: `{}`, err: "no event: name it"},
		{name: "an event td does not handle", payload: `{"hook_event_name":"WorktreeCreate"}`, err: "td does not handle the event WorktreeCreate"},
	}
	for _, c := range cases {
		call, err := ReadCall(strings.NewReader(c.payload), c.named)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		msg := ""
		if call.Failure != nil {
			msg = call.Failure.Message()
		}
		if call.Event != c.event || call.Acts() != c.acts || msg != c.failure {
			t.Errorf("%s: event %s, acts %v, failure %q; want %s, %v, %q", c.name, call.Event, call.Acts(), msg, c.event, c.acts, c.failure)
		}
	}
	if _, err := ReadCall(io.LimitReader(spaces{}, MaxPayload+1), Stop); err == nil || !strings.Contains(err.Error(), "is over") {
		t.Errorf("an oversized payload: %v", err)
	}
}

// hookStore is a store without git whose clock the test moves, with
// Claude Code's env file named by env.
func hookStore(t *testing.T, env map[string]string) (*repo.Store, *time.Time) {
	t.Helper()
	dir := t.TempDir()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	env["GIT_AUTHOR_NAME"], env["GIT_AUTHOR_EMAIL"] = "Op", "op@example.com"
	opts := repo.Options{Now: func() time.Time { return now }, Env: func(k string) string { return env[k] }}
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: opts}); err != nil {
		t.Fatal(err)
	}
	s, err := repo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, &now
}

func call(t *testing.T, s *repo.Store, payload string) *Outcome {
	t.Helper()
	c, err := ReadCall(strings.NewReader(payload), "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Handle(s, c, Options{})
	if err != nil {
		t.Fatalf("%s: %v", payload, err)
	}
	return out
}

func state(t *testing.T, s *repo.Store, id string) string {
	t.Helper()
	rt, err := s.Runtime(id)
	if err != nil {
		t.Fatal(err)
	}
	return rt.State
}

// Each event moves the conversation's session through the lifecycle.
func TestHandleMapsEventsOntoTheLifecycle(t *testing.T) {
	envFile := filepath.Join(t.TempDir(), "env")
	s, now := hookStore(t, map[string]string{EnvFileVar: envFile})

	start := call(t, s, `{"hook_event_name":"SessionStart","source":"startup","session_id":"conv-a","agent_type":"Reviewer"}`)
	se := start.Session
	if se == nil || se.Agent != "reviewer" || start.Context == nil || start.Context.Kind != sessions.ContextStart {
		t.Fatalf("startup: %+v", start)
	}
	if got, _ := os.ReadFile(envFile); string(got) != "export TD_SESSION="+se.ID+"\n" || start.EnvFile != envFile || start.EnvErr != nil {
		t.Errorf("env file %q (%s, %v)", got, start.EnvFile, start.EnvErr)
	}

	if out := call(t, s, `{"hook_event_name":"Stop","session_id":"conv-a"}`); out.Session.ID != se.ID || state(t, s, se.ID) != repo.StateInterrupted {
		t.Fatalf("stop: %+v, state %s", out, state(t, s, se.ID))
	}
	*now = now.Add(10 * time.Minute)
	// Resumed under a new id: the checkout's last harness session goes on.
	res := call(t, s, `{"hook_event_name":"SessionStart","source":"resume","session_id":"conv-b"}`)
	if res.Session.ID != se.ID || res.Context.Kind != sessions.ContextResume || state(t, s, se.ID) != repo.StateResumed {
		t.Fatalf("resume: %+v, state %s", res, state(t, s, se.ID))
	}
	cmp := call(t, s, `{"hook_event_name":"SessionStart","source":"compact","session_id":"conv-b"}`)
	if cmp.Session.ID != se.ID || cmp.Context.Kind != sessions.ContextCompact || state(t, s, se.ID) != repo.StateCompacted {
		t.Fatalf("compact: %+v, state %s", cmp, state(t, s, se.ID))
	}
	clr := call(t, s, `{"hook_event_name":"SessionStart","source":"clear","session_id":"conv-b"}`)
	if clr.Session.ID != se.ID || clr.Context.Kind != sessions.ContextStart || state(t, s, se.ID) != repo.StateBeginning {
		t.Fatalf("clear: %+v, state %s", clr, state(t, s, se.ID))
	}

	// The same failure three times in a row stalls; the third call says so.
	fail := `{"hook_event_name":"PostToolUseFailure","session_id":"conv-b","tool_name":"Bash","tool_input":{"command":"go test ./..."},"error":"Exit code 1\nFAIL: TestX (0.0%ds)"}`
	for i := 1; i <= 3; i++ {
		out := call(t, s, strings.Replace(fail, "%d", string(rune('0'+i)), 1))
		if (len(out.Stalls) > 0) != (i == 3) || out.Session.ID != se.ID {
			t.Fatalf("failure %d: %+v", i, out)
		}
	}
	if rt, _ := s.Runtime(se.ID); !strings.HasSuffix(rt.LastError, " at go test ./...") {
		t.Errorf("the failure's target: %q", rt.LastError)
	}

	// A conversation td never started has nothing to stop.
	if out := call(t, s, `{"hook_event_name":"SessionEnd","session_id":"never"}`); out.Session != nil {
		t.Errorf("session end of an unknown conversation: %+v", out)
	}
	if out := call(t, s, `{"hook_event_name":"PreCompact","session_id":"conv-b","trigger":"auto","custom_instructions":null}`); out.Session == nil || out.Session.ID != se.ID || out.Context != nil {
		t.Errorf("precompact: %+v", out)
	}
}

func TestHandleReportsAnEnvFileItCannotWrite(t *testing.T) {
	s, _ := hookStore(t, map[string]string{EnvFileVar: filepath.Join(t.TempDir(), "no-such-dir", "env")})
	out := call(t, s, `{"hook_event_name":"SessionStart","source":"startup","session_id":"a"}`)
	if out.EnvErr == nil || out.Context == nil {
		t.Fatalf("%+v", out)
	}
	s, _ = hookStore(t, map[string]string{})
	if out := call(t, s, `{"hook_event_name":"SessionStart","source":"startup","session_id":"a"}`); out.EnvFile != "" || out.EnvErr != nil {
		t.Fatalf("no env file named: %+v", out)
	}
}

func TestAdditionalContext(t *testing.T) {
	b, err := AdditionalContext(PostToolUseFailure, "td: stalled: a <b> & c")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"PostToolUseFailure\",\n    \"additionalContext\": \"td: stalled: a <b> & c\"\n  }\n}\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Error(err)
	}
}
