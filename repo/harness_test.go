package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
)

// reopen opens the store's tree again with its own environment, as another
// td process started by the harness would.
func reopen(t testing.TB, s *Store, env map[string]string) *Store {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	env["GIT_AUTHOR_NAME"], env["GIT_AUTHOR_EMAIL"] = "Op", "op@example.com"
	o, err := Open(s.Root, Options{Now: s.opts.Now, Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestHarnessSessionMapsOneConversationToOneSession(t *testing.T) {
	s := newTestStore(t)
	o := HarnessOptions{Harness: HarnessClaude, ID: "7f3c9a2e-1b4d-4e8f-9a0b-c1d2e3f4a5b6"}

	res, err := s.HarnessSession(o)
	if err != nil || res != nil {
		t.Fatalf("unknown conversation without Create: %+v, %v", res, err)
	}
	o.Create = true
	first, err := s.HarnessSession(o)
	if err != nil {
		t.Fatal(err)
	}
	se := first.Session
	if first.How != HarnessStarted || se.Agent != "primary" || se.Category != domain.CategoryProject || se.Name != "claude 7f3c9a2e" || !se.IsAgent() {
		t.Fatalf("started: %+v %+v", first, se)
	}
	if rt, _ := s.Runtime(se.ID); rt.State != StateBeginning {
		t.Errorf("a started session is at %q", rt.State)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "local", "harness", "claude", "sessions", o.ID+".json")); err != nil {
		t.Errorf("the link is not under .todos/local: %v", err)
	}

	again, err := reopen(t, s, nil).HarnessSession(o)
	if err != nil || again.How != HarnessKnown || again.Session.ID != se.ID {
		t.Fatalf("the same conversation again: %+v, %v", again, err)
	}
	other, err := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "other", Create: true, Agent: "reviewer", Category: domain.CategoryMeta})
	if err != nil || other.How != HarnessStarted || other.Session.ID == se.ID || other.Session.Agent != "reviewer" || other.Session.Category != domain.CategoryMeta {
		t.Fatalf("another conversation: %+v, %v", other, err)
	}
}

func TestHarnessSessionIDs(t *testing.T) {
	s := newTestStore(t)
	for _, id := range []string{"", "  "} {
		if _, err := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: id, Create: true}); CodeOf(err) != CodeInvalid {
			t.Errorf("id %q: %v", id, err)
		}
	}
	if _, err := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: strings.Repeat("x", 201), Create: true}); CodeOf(err) != CodeInvalid {
		t.Errorf("a long id: %v", err)
	}
	if _, err := s.HarnessSession(HarnessOptions{Harness: "../x", ID: "a", Create: true}); CodeOf(err) != CodeInvalid {
		t.Errorf("a harness name with a path in it: %v", err)
	}
	// An id that is no plain file name is hashed: it never reaches a path.
	for _, id := range []string{"../../escape", ".hidden", "a/b", "-x"} {
		res, err := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: id, Create: true})
		if err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
		name := harnessLinkName(HarnessClaude, id)
		if !strings.HasPrefix(name, "harness/claude/sessions/h-") || strings.Count(name, "/") != 3 {
			t.Errorf("id %q gives the file %q", id, name)
		}
		again, _ := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: id})
		if again == nil || again.Session.ID != res.Session.ID {
			t.Errorf("id %q is not found again", id)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Root, "escape.json")); err == nil {
		t.Error("a session id escaped .todos/local")
	}
}

func TestHarnessSessionAdoptsTheLastOnResumeAndClear(t *testing.T) {
	s := newTestStore(t)
	a, err := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "a", Create: true})
	if err != nil {
		t.Fatal(err)
	}
	// The harness resumed (or cleared) the conversation under a new id.
	b, err := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "b", Create: true, Adopt: true})
	if err != nil || b.How != HarnessAdopted || b.Session.ID != a.Session.ID {
		t.Fatalf("adopt: %+v, %v", b, err)
	}
	if k, _ := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "b"}); k == nil || k.How != HarnessKnown || k.Session.ID != a.Session.ID {
		t.Fatalf("the adopted id is known afterwards: %+v", k)
	}
	// A new conversation (startup) is a new session.
	c, err := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "c", Create: true})
	if err != nil || c.How != HarnessStarted || c.Session.ID == a.Session.ID {
		t.Fatalf("startup: %+v, %v", c, err)
	}
	// The last one is now c's.
	d, _ := s.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "d", Create: true, Adopt: true})
	if d.Session.ID != c.Session.ID {
		t.Fatalf("adopted %s, want the last session %s", d.Session.ID, c.Session.ID)
	}
}

func TestHarnessSessionTakesTheSentSession(t *testing.T) {
	s := newTestStore(t)
	sent, err := s.StartSession(StartOptions{Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	op := actor(t, s)
	res, err := reopen(t, s, map[string]string{"TD_SESSION": sent.ID}).HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "x", Create: true})
	if err != nil || res.How != HarnessFromEnv || res.Session.ID != sent.ID {
		t.Fatalf("TD_SESSION: %+v, %v", res, err)
	}
	// An operator session is not handed to a harness.
	o := reopen(t, s, map[string]string{"TD_SESSION": op.ID})
	res, err = o.HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "y", Create: true})
	if err != nil || res.How != HarnessStarted || res.Session.ID == op.ID {
		t.Fatalf("operator TD_SESSION: %+v, %v", res, err)
	}
	if w := o.Warnings(); len(w) != 1 || !strings.Contains(w[0], "operator session") {
		t.Errorf("warnings: %q", w)
	}
}

func TestHarnessSessionRemakesALinkToAGoneSession(t *testing.T) {
	s := newTestStore(t)
	o := HarnessOptions{Harness: HarnessClaude, ID: "a", Create: true}
	first, _ := s.HarnessSession(o)
	if err := os.Remove(filepath.Join(s.Dir, SessionsDir, first.Session.ID+".yaml")); err != nil {
		t.Fatal(err)
	}
	again, err := s.HarnessSession(o)
	if err != nil || again.How != HarnessStarted || again.Session.ID == first.Session.ID {
		t.Fatalf("%+v, %v", again, err)
	}
}

// Hooks of one conversation may run at once (two tool calls failing
// together): they must agree on one session.
func TestHarnessSessionConcurrentHooksAgree(t *testing.T) {
	s := newTestStore(t)
	const n = 8
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := reopen(t, s, nil).HarnessSession(HarnessOptions{Harness: HarnessClaude, ID: "same", Create: true})
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = res.Session.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("sessions %q", ids)
		}
	}
	list, _ := s.Sessions()
	if len(list) != 1 {
		t.Fatalf("%d sessions started", len(list))
	}
}

func TestRestartKeepsTheBindingAndClearsTheRest(t *testing.T) {
	s := newTestStore(t)
	se, _ := s.StartSession(StartOptions{Agent: "primary"})
	err := s.updateRuntime(se.ID, func(rt *Runtime) error {
		rt.BoundIssue, rt.State, rt.Errors, rt.SameErrorRun, rt.Compactions = "td-abc123", StateCompacted, 4, 3, 2
		rt.Actions = []ActionRecord{{Command: "todo done x"}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := s.Restart(se)
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := s.Runtime(se.ID)
	if rt.BoundIssue != "td-abc123" || rt.State != StateBeginning || rt.Errors != 0 || rt.SameErrorRun != 0 || rt.Compactions != 0 || len(rt.Actions) != 0 {
		t.Fatalf("runtime after restart: %+v", rt)
	}
	if ctx.Kind != ContextStart || len(ctx.Stalls) != 0 {
		t.Fatalf("context: %+v", ctx)
	}
}

func TestToolFailureMessage(t *testing.T) {
	cases := []struct{ tool, err, want string }{
		{"Bash", "Exit code 1\nFAIL: TestToken (0.01s)\nmore", "Bash: Exit code 1 — FAIL: TestToken (0.01s)"},
		{"Bash", "Command exited with non-zero status code 2", "Bash: Command exited with non-zero status code 2"},
		{"Bash", "\n\n  Error: exit status 1  \n\n  go: cannot find main module\n", "Bash: Error: exit status 1 — go: cannot find main module"},
		{"Edit", "String to replace not found in file.\nString: foo", "Edit: String to replace not found in file."},
		{"Read", "", "Read: failed"},
		{"", "boom", "tool: boom"},
	}
	for _, c := range cases {
		if got := (ToolFailure{Tool: c.tool, Error: c.err}).Message(); got != c.want {
			t.Errorf("%q %q: got %q, want %q", c.tool, c.err, got, c.want)
		}
	}
}

func TestToolResponseFailure(t *testing.T) {
	cases := []struct {
		resp   string
		failed bool
		msg    string
	}{
		{`{"stdout":"ok","stderr":"","interrupted":false,"isImage":false}`, false, ""},
		{`{"filePath":"/x","success":true}`, false, ""},
		{`"plain text"`, false, ""},
		{`null`, false, ""},
		{`[1,2]`, false, ""},
		{`{"is_error":true,"content":"permission denied"}`, true, "permission denied"},
		{`{"isError":true,"content":[{"type":"text","text":"rate limited"},{"type":"image"}]}`, true, "rate limited"},
		{`{"success":false,"message":"no such file"}`, true, "no such file"},
		{`{"error":"timeout after 120s"}`, true, "timeout after 120s"},
		{`{"error":{"message":"bad request"}}`, true, "bad request"},
		{`{"error":""}`, false, ""},
		{`{"stdout":"","stderr":"undefined: x","exit_code":2}`, true, "Exit code 2\nundefined: x"},
		{`{"exitCode":1,"stdout":"FAIL"}`, true, "Exit code 1\nFAIL"},
		{`{"returnCode":0,"stdout":"fine"}`, false, ""},
		{`{"exit_code":1,"interrupted":true}`, false, ""},
	}
	for _, c := range cases {
		msg, failed := ToolResponseFailure(json.RawMessage(c.resp))
		if failed != c.failed || msg != c.msg {
			t.Errorf("%s: got (%q, %v), want (%q, %v)", c.resp, msg, failed, c.msg, c.failed)
		}
	}
}

func TestToolTarget(t *testing.T) {
	s := newTestStore(t)
	cases := map[string]string{
		`{"command":"go test ./auth/...\necho done","description":"run tests"}`:              "go test ./auth/...",
		`{"file_path":"` + filepath.Join(s.Root, "auth", "token.go") + `","old_string":"a"}`: "auth/token.go",
		`{"file_path":"/elsewhere/x.go"}`:                                                    "/elsewhere/x.go",
		`{"notebook_path":"nb.ipynb"}`:                                                       "nb.ipynb",
		`{"pattern":"TODO"}`:                                                                 "",
		`not json`:                                                                           "",
	}
	for in, want := range cases {
		if got := s.ToolTarget(json.RawMessage(in)); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// The same call failing the same way three times in a row is a stall,
// whatever numbers its output carries; another command is another error.
func TestRecordToolFailureStalls(t *testing.T) {
	s := newTestStore(t)
	se, _ := s.StartSession(StartOptions{Agent: "primary"})
	fail := func(errText, target string) *ErrorReport {
		t.Helper()
		rep, err := s.RecordToolFailure(se, ToolFailure{Tool: "Bash", Error: errText, Target: target})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	fail("Exit code 1\nFAIL: TestToken (0.01s)", "go test ./auth")
	rep := fail("Exit code 1\nFAIL: TestToken (0.03s)", "go test ./auth")
	if rep.Run != 2 || len(rep.Stalls) != 0 {
		t.Fatalf("second: %+v", rep)
	}
	rep = fail("Exit code 1\nFAIL: TestToken (0.20s)", "go test ./auth")
	if rep.Run != 3 || len(rep.Stalls) != 1 || !strings.Contains(rep.Stalls[0].Message, "Bash: Exit code 1 — FAIL: TestToken (0.20s) at go test ./auth") {
		t.Fatalf("third: %+v", rep)
	}
	rep = fail("Exit code 1\nFAIL: TestToken (0.01s)", "go vet ./auth")
	if rep.Run != 1 || len(rep.Stalls) != 0 {
		t.Fatalf("another command: %+v", rep)
	}
	long := fail("x", strings.Repeat("y", 200))
	rt, _ := s.Runtime(se.ID)
	if long.Run != 1 || len(rt.LastError) > 200 {
		t.Fatalf("a long target is kept whole: %q", rt.LastError)
	}
}

func TestSetEnvFileVar(t *testing.T) {
	p := filepath.Join(t.TempDir(), "env")
	if err := SetEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check := func(want string) {
		t.Helper()
		got, _ := os.ReadFile(p)
		if string(got) != want {
			t.Fatalf("env file:\n%q\nwant\n%q", got, want)
		}
	}
	check("export TD_SESSION=ses_aaaaaaaa\n")
	os.WriteFile(p, []byte("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2"), 0o644)
	if err := SetEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2")
	if err := SetEnvFileVar(p, "TD_SESSION", "ses_bbbbbbbb"); err != nil {
		t.Fatal(err)
	}
	check("export A=1\nexport B=2\nexport TD_SESSION=ses_bbbbbbbb\n")
}

func TestMergeClaudeSettings(t *testing.T) {
	fresh, events, err := mergeClaudeSettings(nil, "  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 5 {
		t.Fatalf("events %+v", events)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(fresh, &doc); err != nil {
		t.Fatal(err)
	}
	for _, h := range ClaudeHooks() {
		g := doc.Hooks[h.Event]
		if len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != "td hook claude "+h.Event || g[0].Hooks[0].Type != "command" {
			t.Errorf("%s: %+v", h.Event, g)
		}
		if (g[0].Matcher != nil) != (h.Matcher != "") {
			t.Errorf("%s: matcher %v", h.Event, g[0].Matcher)
		}
	}

	user := `{
    "permissions": {"allow": ["Bash(make && make test)"]},
    "hooks": {
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "gofmt -w \"$FILE\" && echo <ok>"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "td  hook claude SessionStart --format text"}]}]
    },
    "model": "x"
}
`
	out, events, err := mergeClaudeSettings([]byte(user), detectIndent([]byte(user)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		want := "added"
		if e.Event == "SessionStart" {
			want = HookCurrent
		}
		if e.Action != want {
			t.Errorf("%s: %s, want %s", e.Event, e.Action, want)
		}
	}
	s := string(out)
	for _, keep := range []string{`"Bash(make && make test)"`, `"gofmt -w \"$FILE\" && echo <ok>"`, `"matcher": "Write|Edit"`, `"model": "x"`, "\n    \"permissions\""} {
		if !strings.Contains(s, keep) {
			t.Errorf("lost %s:\n%s", keep, s)
		}
	}
	if strings.Index(s, `"permissions"`) > strings.Index(s, `"hooks"`) || strings.Index(s, `"hooks"`) > strings.Index(s, `"model"`) {
		t.Errorf("key order changed:\n%s", s)
	}
	if strings.Index(s, "gofmt") > strings.Index(s, "td hook claude PostToolUse") {
		t.Errorf("td's group is not after the user's:\n%s", s)
	}
	if strings.Count(s, "td hook claude SessionStart") != 0 || strings.Count(s, "hook claude SessionStart") != 1 {
		t.Errorf("SessionStart duplicated:\n%s", s)
	}
	again, events, err := mergeClaudeSettings(out, detectIndent(out))
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("not idempotent: %v\n%s", err, again)
	}
	for _, e := range events {
		if e.Action != HookCurrent {
			t.Errorf("second merge %s: %s", e.Event, e.Action)
		}
	}
	if tabbed, _, _ := mergeClaudeSettings([]byte("{\n\t\"a\": 1\n}\n"), detectIndent([]byte("{\n\t\"a\": 1\n}\n"))); !strings.HasPrefix(string(tabbed), "{\n\t\"a\": 1,\n\t\"hooks\": {\n\t\t") {
		t.Errorf("tab indentation lost:\n%s", tabbed)
	}
}

func TestMergeClaudeSettingsRefusals(t *testing.T) {
	cases := map[string]string{
		"broken":           "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n",
		"array":            "[]",
		"hooks not object": `{"hooks": []}`,
		"event not a list": `{"hooks": {"Stop": {"hooks": []}}}`,
		"hooks twice":      `{"hooks": {}, "hooks": {}}`,
		"trailing text":    `{} {}`,
		"string":           `"x"`,
	}
	for name, in := range cases {
		if _, _, err := mergeClaudeSettings([]byte(in), "  "); err == nil {
			t.Errorf("%s: merged", name)
		} else if CodeOf(err) != CodeParse {
			t.Errorf("%s: code %s: %v", name, CodeOf(err), err)
		}
	}
	_, _, err := mergeClaudeSettings([]byte(cases["broken"]), "  ")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || pe.Path != ClaudeSettingsFile {
		t.Errorf("broken JSON: %v", err)
	}
}

func TestInstallClaudeHooks(t *testing.T) {
	s := newTestStore(t)
	p := filepath.Join(s.Root, ".claude", "settings.json")
	res, err := s.InstallClaudeHooks()
	if err != nil || res.Action != HookInstalled || res.Path != ".claude/settings.json" {
		t.Fatalf("%+v, %v", res, err)
	}
	first, _ := os.ReadFile(p)
	if !bytes.Equal(first, ClaudeHooksSettings()) {
		t.Errorf("a new file is td's fragment:\n%s", first)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	res, err = s.InstallClaudeHooks()
	if err != nil || res.Action != HookCurrent {
		t.Fatalf("again: %+v, %v", res, err)
	}
	if fi, _ := os.Stat(p); !fi.ModTime().Equal(old) {
		t.Error("a file needing nothing was rewritten")
	}

	os.WriteFile(p, []byte("{oops"), 0o644)
	if _, err := s.InstallClaudeHooks(); CodeOf(err) != CodeParse {
		t.Fatalf("broken file: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "{oops" {
		t.Fatal("a file td could not read was overwritten")
	}

	os.Remove(p)
	os.WriteFile(filepath.Join(s.Root, "real.json"), []byte("{}"), 0o644)
	os.Symlink(filepath.Join(s.Root, "real.json"), p)
	if _, err := s.InstallClaudeHooks(); CodeOf(err) != CodeRefused {
		t.Fatalf("symlink: %v", err)
	}
}
