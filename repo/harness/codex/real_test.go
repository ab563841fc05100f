package codex

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRealCodex runs the Codex CLI itself (TD_TEST_CODEX names its
// binary, else codex on PATH; skipped without one) against a model served
// on loopback that asks for the same failing shell command three times,
// in a work tree where td hooks install --codex wrote td's hooks and whose
// Codex config trusts the folder and each hook by the fingerprints HookHash
// computes. Codex runs td's hooks only when those fingerprints are its own;
// td reads the failures from the output Codex sends, and the stall warning
// reaches the model with its fourth request.
func TestRealCodex(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Codex CLI; skipped with -short")
	}
	bin := os.Getenv("TD_TEST_CODEX")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("codex"); err != nil {
			t.Skip("no Codex CLI: set TD_TEST_CODEX to its binary (npm's @openai/codex ships it), or put codex on PATH")
		}
	}
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	work := t.TempDir()
	tdDir := filepath.Join(work, "bin")
	tdBin := filepath.Join(tdDir, "td")
	build := exec.Command("go", "build", "-o", tdBin, "github.com/tdproject/td/cmd/td")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build td: %v\n%s", err, out)
	}
	model := &mockModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()

	proj := filepath.Join(work, "proj")
	os.MkdirAll(proj, 0o755)
	env := append(os.Environ(), "PATH="+tdDir+string(os.PathListSeparator)+os.Getenv("PATH"), "TD_SESSION=",
		"GIT_AUTHOR_NAME=Lead Operator", "GIT_AUTHOR_EMAIL=lead@example.com", "GIT_CONFIG_NOSYSTEM=1",
		"CODEX_HOME="+filepath.Join(work, "codex-home"), "HOME="+work)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("git", "init", "-q")
	run(tdBin, "init")
	run(tdBin, "hooks", "install", "--codex")

	// The user trusted the folder and reviewed td's hooks: Codex records
	// each hook's fingerprint under its key.
	hooks, err := Config().Groups(proj)
	if err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "model = \"mock-model\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = %q\nwire_api = \"responses\"\nrequires_openai_auth = false\nsupports_websockets = false\n\n[projects.%q]\ntrust_level = \"trusted\"\n",
		srv.URL+"/v1", proj)
	for _, h := range hooks {
		fmt.Fprintf(&cfg, "\n[hooks.state.%q]\ntrusted_hash = %q\n", HookKey(filepath.Join(proj, ".codex", "hooks.json"), h), HookHash(h))
	}
	os.MkdirAll(filepath.Join(work, "codex-home"), 0o755)
	os.WriteFile(filepath.Join(work, "codex-home", "config.toml"), []byte(cfg.String()), 0o644)
	if out := run(tdBin, "doctor"); !strings.Contains(out, "harness codex (.codex/hooks.json): runs td's hooks\n") {
		t.Fatalf("td doctor said\n%s", out)
	}

	cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "-s", "danger-full-access", "List /x-does-not-exist")
	cmd.Dir, cmd.Env = proj, env
	cmd.Stdin = strings.NewReader("")
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("codex exec did not finish in two minutes")
	}
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	reqs := model.requests()
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests, want 4\n%s", len(reqs), out)
	}
	if !strings.Contains(reqs[0], "## td: session start") {
		t.Errorf("td's start prefix did not reach the model: SessionStart did not run\n%s", out)
	}
	want := "td: stalled: the same error 3 times in a row (Bash: ls: cannot access '/x-does-not-exist': No such file or directory at ls /x-does-not-exist)"
	if strings.Contains(reqs[2], "td: stalled") || !strings.Contains(reqs[3], want) {
		t.Errorf("the stall warning did not reach the model with its fourth request alone\n%s", out)
	}
	if list := run(tdBin, "session", "list"); !strings.Contains(list, "codex ") {
		t.Errorf("no codex session:\n%s", list)
	}
}

// mockModel is an OpenAI Responses API on loopback: its first three
// responses ask for the same shell command, the fourth answers.
type mockModel struct {
	mu   sync.Mutex
	reqs []string
}

func (m *mockModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.reqs...)
}

func (m *mockModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"mock-model","object":"model"}],"models":[]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	m.mu.Lock()
	m.reqs = append(m.reqs, string(body))
	k := len(m.reqs)
	m.mu.Unlock()
	exec := false
	for _, tl := range req.Tools {
		exec = exec || tl.Name == "exec_command"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(typ string, d map[string]any) {
		d["type"] = typ
		b, _ := json.Marshal(d)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	ev("response.created", map[string]any{"response": map[string]any{"id": fmt.Sprint("resp_", k)}})
	var item map[string]any
	if k <= 3 {
		name, args := "shell", `{"command":["bash","-lc","ls /x-does-not-exist"]}`
		if exec {
			name, args = "exec_command", `{"cmd":"ls /x-does-not-exist"}`
		}
		item = map[string]any{"type": "function_call", "id": fmt.Sprint("fc_", k), "call_id": fmt.Sprint("call_", k), "name": name, "arguments": args}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprint("msg_", k), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "The directory does not exist.", "annotations": []any{}}}}
	}
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	ev("response.completed", map[string]any{"response": map[string]any{"id": fmt.Sprint("resp_", k),
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 5,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}
