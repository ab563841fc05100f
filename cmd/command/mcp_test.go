package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tdproject/td/cmd/command"
	"github.com/tdproject/td/repo/gitrepo"
)

// tdRepo is a git repository initialised with td, and the environment td
// runs with in it: a pinned clock and deterministic IDs.
type tdRepo struct {
	dir string
	env map[string]string
}

func newTDRepo(t *testing.T) *tdRepo {
	t.Helper()
	dir := t.TempDir()
	if _, err := gitrepo.Init(dir); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	r := &tdRepo{dir: dir, env: map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Lead Operator", "GIT_AUTHOR_EMAIL": "lead@example.com",
		"GIT_COMMITTER_NAME": "Lead Operator", "GIT_COMMITTER_EMAIL": "lead@example.com",
		"TD_NOW": "2026-11-21T10:00:00Z", "TD_RAND_SEED": "mcp", "NO_COLOR": "1",
	}}
	r.td(t, "init")
	return r
}

func (r *tdRepo) getenv(k string) string { return r.env[k] }

// run runs a td command line in the repository, in this process.
func (r *tdRepo) run(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = command.Run(append([]string{"td", "--dir=" + r.dir}, args...), strings.NewReader(""), &out, &errOut, r.getenv)
	return out.String(), errOut.String(), code
}

// td runs a td command that must succeed and returns its stdout.
func (r *tdRepo) td(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := r.run(args...)
	if code != 0 {
		t.Fatalf("td %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// jsonID is the "id" a td --json command printed, at the top or, with
// key, under it: td create prints the issue, td send the session under
// "session".
func jsonID(t *testing.T, out, key string) string {
	t.Helper()
	var v map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if key != "" {
		if err := json.Unmarshal(v[key], &v); err != nil {
			t.Fatalf("no %s in %s", key, out)
		}
	}
	var id string
	if err := json.Unmarshal(v["id"], &id); err != nil || id == "" {
		t.Fatalf("no id in %s", out)
	}
	return id
}

// connect runs td mcp as session in this process, its standard input and
// output a pair of pipes, and returns an SDK client session that has
// completed the initialize handshake over them.
func (r *tdRepo) connect(t *testing.T, session string) *mcp.ClientSession {
	t.Helper()
	return r.connectAs(t, session, nil)
}

// connectAs is connect with the client's session options: the protocol
// revision it asks for.
func (r *tdRepo) connectAs(t *testing.T, session string, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	env["TD_SESSION"] = session
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := command.Run([]string{"td", "--dir=" + r.dir, "mcp"}, serverIn, serverOut, &stderr, func(k string) string { return env[k] })
		serverOut.Close()
		done <- code
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "td-test", Version: "0"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, opts)
	if err != nil {
		clientOut.Close()
		code := <-done
		t.Fatalf("connect: %v\ntd mcp: exit %d\n%s", err, code, stderr.String())
	}
	t.Cleanup(func() {
		// Closing the client ends td mcp's standard input: it exits 0.
		cs.Close()
		if code := <-done; code != 0 || stderr.Len() > 0 {
			t.Errorf("td mcp: exit %d\n%s", code, stderr.String())
		}
	})
	return cs
}

// toolNames lists the tools the server offers, and each one's action enum.
func toolNames(t *testing.T, cs *mcp.ClientSession) (names []string, actions map[string][]string) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	actions = map[string][]string{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		actions[tool.Name] = s.Properties["action"].Enum
	}
	return names, actions
}

// call calls a tool and returns its text and whether it is an error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		text.WriteString(c.(*mcp.TextContent).Text)
	}
	return text.String(), res.IsError, res
}

// TestMCPRoundTrip drives td's MCP server as an agent harness would:
// initialize, tools/list, then tools/call on the todo and issue tools, and
// reads the issue file to see the change.
func TestMCPRoundTrip(t *testing.T) {
	r := newTDRepo(t)
	issue := jsonID(t, r.td(t, "create", "Sign in with GitHub", "--json"), "")
	agent := jsonID(t, r.td(t, "send", issue, "--json"), "session")
	cs := r.connect(t, agent)

	// The SDK client first tries a newer handshake td does not offer, then
	// initialize with the latest revision td speaks.
	init := cs.InitializeResult()
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "td" || init.ServerInfo.Version != command.Version ||
		init.Capabilities.Tools == nil || !strings.HasPrefix(init.Instructions, "td keeps this project's issues") {
		b, _ := json.Marshal(init)
		t.Errorf("initialize result: %s", b)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	names, actions := toolNames(t, cs)
	if !slices.Equal(names, []string{"issue", "todo"}) && !slices.Equal(names, []string{"todo", "issue"}) {
		t.Fatalf("tools %v, want todo and issue", names)
	}
	if want := []string{"view", "set", "add", "start", "done", "drop", "note", "block", "unblock", "propose"}; !slices.Equal(actions["todo"], want) {
		t.Errorf("todo actions %v, want %v", actions["todo"], want)
	}
	if want := []string{"create", "show", "list", "comment", "link", "start", "review"}; !slices.Equal(actions["issue"], want) {
		t.Errorf("issue actions %v, want %v", actions["issue"], want)
	}

	text, isErr, _ := call(t, cs, "todo", map[string]any{"action": "add", "items": []string{"Register the OAuth app", "Write the callback"}})
	if isErr || !strings.Contains(text, "- [/] Register the OAuth app\n- [ ] Write the callback\n") {
		t.Fatalf("todo add: error %v\n%s", isErr, text)
	}
	text, isErr, _ = call(t, cs, "todo", map[string]any{"action": "done", "item": "oauth app"})
	if isErr {
		t.Fatalf("todo done: %s", text)
	}
	// The tool's text is what td todo view prints, byte for byte.
	if view := r.td(t, "--session="+agent, "todo", "view"); text != view {
		t.Errorf("todo done printed\n%s\ntd todo view prints\n%s", text, view)
	}
	file, err := os.ReadFile(filepath.Join(r.dir, ".todos", "issues", issue+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(file), "\n- [x] Register the OAuth app\n- [/] Write the callback\n") {
		t.Errorf("the issue file does not show the todo done:\n%s", file)
	}

	// JSON on request, as structured content too.
	text, isErr, res := call(t, cs, "todo", map[string]any{"action": "view", "json": true})
	var view struct {
		Items []struct {
			Text, Status string
		} `json:"items"`
	}
	if b, _ := json.Marshal(res.StructuredContent); isErr || json.Unmarshal(b, &view) != nil || len(view.Items) != 2 || view.Items[0].Status != "completed" {
		t.Errorf("todo view json: structured %s\ntext %s", b, text)
	}

	// td's refusals come back as tool errors with td's error line.
	text, isErr, _ = call(t, cs, "todo", map[string]any{"action": "done", "item": "nothing like it"})
	if !isErr || text != "error: no todo matches \"nothing like it\"; did you mean \"Write the callback\"?\n" {
		t.Errorf("todo done of an unknown todo: error %v, text %q", isErr, text)
	}
	// A bad input is refused naming the field; the server goes on.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "done"}, "error: todo done needs \"item\" (the todo's text, or a unique part of it) or \"items\" for several\n"},
		{map[string]any{"action": "done", "content": "callback"}, "error: the todo tool has no field \"content\"; its fields are action, items, item, phase, kind, note, reason, json\n"},
		{map[string]any{"action": "finish"}, "error: todo has no action \"finish\"; action is one of view, set, add, start, done, drop, note, block, unblock, propose\n"},
		{map[string]any{"action": "add", "items": "one"}, "error: \"items\" must be an array of strings, not a JSON string\n"},
	} {
		if text, isErr, _ := call(t, cs, "todo", tc.args); !isErr || text != tc.want {
			t.Errorf("%v: error %v, text %q, want %q", tc.args, isErr, text, tc.want)
		}
	}

	// The issue tool: work found on the way is filed under the bound issue.
	text, isErr, _ = call(t, cs, "issue", map[string]any{"action": "create", "title": "Colour tokens", "type": "feature"})
	if isErr || !strings.HasPrefix(text, "Created td-") || !strings.Contains(text, issue) {
		t.Errorf("issue create: error %v\n%s", isErr, text)
	}
	text, isErr, _ = call(t, cs, "issue", map[string]any{"action": "show", "id": issue})
	if isErr || !strings.HasPrefix(text, issue+"  Sign in with GitHub\n") {
		t.Errorf("issue show: error %v\n%s", isErr, text)
	}
}

// TestMCPSubagent checks that a subagent's server offers only the todo
// tool, and that td's refusal reaches it as the CLI prints it.
func TestMCPSubagent(t *testing.T) {
	r := newTDRepo(t)
	issue := jsonID(t, r.td(t, "create", "Sign in with GitHub", "--json"), "")
	root := jsonID(t, r.td(t, "send", issue, "--json"), "session")
	r.td(t, "--session="+root, "todo", "add", "Login button")
	sub := jsonID(t, r.td(t, "session", "start", "--agent", "primary.subagents.ui", "--json"), "")
	cs := r.connect(t, sub)

	if names, _ := toolNames(t, cs); !slices.Equal(names, []string{"todo"}) {
		t.Errorf("a subagent's tools: %v, want todo alone", names)
	}
	if in := cs.InitializeResult().Instructions; !strings.Contains(in, "You are a\nsubagent") {
		t.Errorf("a subagent's instructions:\n%s", in)
	}
	text, isErr, _ := call(t, cs, "todo", map[string]any{"action": "done", "item": "login"})
	_, cliErr, code := r.run("--session="+sub, "todo", "done", "login")
	if !isErr || code != 1 || text != cliErr || !strings.HasPrefix(text, "error: subagent sessions cannot change todos or issues") {
		t.Errorf("subagent todo done: error %v, text %q; the CLI (exit %d) prints %q", isErr, text, code, cliErr)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "issue", Arguments: map[string]any{"action": "list"}}); err == nil {
		t.Errorf("a subagent called the issue tool")
	}
	// Proposing is what a subagent may do.
	text, isErr, _ = call(t, cs, "todo", map[string]any{"action": "propose", "items": []string{"Colour tokens"}})
	if isErr || !strings.Contains(text, "Colour tokens") {
		t.Errorf("subagent todo propose: error %v\n%s", isErr, text)
	}
}

// TestMCPProtocolVersions checks that a client asking for an older MCP
// revision td speaks gets that revision, and tools that work in it.
func TestMCPProtocolVersions(t *testing.T) {
	r := newTDRepo(t)
	issue := jsonID(t, r.td(t, "create", "Sign in with GitHub", "--json"), "")
	agent := jsonID(t, r.td(t, "send", issue, "--json"), "session")
	for _, v := range []string{"2025-06-18", "2025-03-26", "2024-11-05"} {
		cs := r.connectAs(t, agent, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if got := cs.InitializeResult().ProtocolVersion; got != v {
			t.Errorf("asked for %s, got %s", v, got)
		}
		if text, isErr, _ := call(t, cs, "todo", map[string]any{"action": "view"}); isErr || !strings.HasPrefix(text, issue+" Sign in with GitHub\n") {
			t.Errorf("%s: todo view: error %v\n%s", v, isErr, text)
		}
	}
}

// TestMCPStartRefusals checks that td mcp does not start outside a td
// repository or as a session td does not know: td's error line on stderr,
// nothing on stdout, exit 1, before reading anything.
func TestMCPStartRefusals(t *testing.T) {
	var out, errOut bytes.Buffer
	code := command.Run([]string{"td", "--dir=" + t.TempDir(), "mcp"}, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	if code != 1 || out.Len() != 0 || !strings.HasPrefix(errOut.String(), "error: ") || !strings.Contains(errOut.String(), "td init") {
		t.Errorf("outside a td repository: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	r := newTDRepo(t)
	out.Reset()
	errOut.Reset()
	code = command.Run([]string{"td", "--dir=" + r.dir, "mcp", "--session", "ses_zzzzzzzz"}, strings.NewReader(""), &out, &errOut, r.getenv)
	_, cliErr, _ := r.run("--session=ses_zzzzzzzz", "whoami")
	if code != 1 || out.Len() != 0 || errOut.String() != cliErr || cliErr == "" {
		t.Errorf("unknown session: exit %d, stdout %q, stderr %q; td whoami says %q", code, out.String(), errOut.String(), cliErr)
	}
}

// TestMCPCommand runs td mcp as a harness does: the td program built into
// a directory, td mcp started as a subprocess in the repository
// with TD_SESSION in its environment, MCP over its standard streams.
func TestMCPCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds td")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build td with")
	}
	bin := t.TempDir()
	build := exec.Command(goTool, "build", "-o", filepath.Join(bin, "td"), "github.com/tdproject/td/cmd/td")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	r := newTDRepo(t)
	issue := jsonID(t, r.td(t, "create", "Sign in with GitHub", "--json"), "")
	agent := jsonID(t, r.td(t, "send", issue, "--json"), "session")

	cmd := exec.Command(filepath.Join(bin, "td"), "mcp")
	cmd.Dir = r.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TD_SESSION=" + agent}
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "td-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	if names, _ := toolNames(t, cs); len(names) != 2 {
		t.Errorf("tools %v, want todo and issue", names)
	}
	for _, args := range []map[string]any{
		{"action": "set", "items": []string{"### Backend", "Register the OAuth app", "Write the callback"}},
		{"action": "done", "item": "Register the OAuth app"},
	} {
		if text, isErr, _ := call(t, cs, "todo", args); isErr {
			t.Fatalf("todo %v: %s", args, text)
		}
	}
	file, err := os.ReadFile(filepath.Join(r.dir, ".todos", "issues", issue+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(file), "### Backend\n- [x] Register the OAuth app\n- [/] Write the callback\n") {
		t.Errorf("the issue file does not show the todo done:\n%s", file)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
	}
}
