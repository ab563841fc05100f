package opencode

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// host is a minimal OpenCode host: it loads td's plugin as OpenCode does
// (the module's exported plugin function, called with the plugin input)
// and fires its hooks through one session's life, logging what the agent
// would see.
const host = `
const { TdPlugin } = await import(process.argv[2]);
const dir = process.argv[3];
const hooks = await TdPlugin({ directory: dir, worktree: dir, client: {}, project: {}, $: undefined,
  serverUrl: new URL("http://127.0.0.1:4096"), experimental_workspace: { register() {} } });
const log = {};
const sid = "ses_4b2f0c1a9d8e7f6a";
const system = async () => { const o = { system: [] }; await hooks["experimental.chat.system.transform"]({ sessionID: sid, model: {} }, o); return o.system.join("\n"); };
await hooks.event({ event: { type: "session.created", properties: { info: { id: sid, title: "Sign in" } } } });
await hooks["chat.message"]({ sessionID: sid, agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" }, messageID: "msg_1" }, { message: {}, parts: [] });
const env = { env: {} };
await hooks["shell.env"]({ cwd: dir, sessionID: sid }, env);
log.env = env.env.TD_SESSION || "";
log.start = await system();
log.startAgain = await system();
const before = async (tool, args) => {
  try { await hooks["tool.execute.before"]({ tool, sessionID: sid, callID: "call" }, { args }); return ""; }
  catch (e) { return e.message; }
};
log.denyEdit = await before("edit", { filePath: dir + "/.todos/history/td-qkm5oz.jsonl", oldString: "a", newString: "b" });
log.denyApprove = await before("bash", { command: "td approve qkm" });
log.allowEdit = await before("edit", { filePath: dir + "/auth/state.go", oldString: "a", newString: "b" });
log.outputs = [];
for (let i = 0; i < 3; i++) {
  const out = { title: "go test", output: "--- FAIL: TestCallback", metadata: { exit: 1, output: "--- FAIL: TestCallback", description: "Run the tests" } };
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: sid, callID: "c" + i, args: { command: "go test ./auth/..." } }, out);
  log.outputs.push(out.output);
}
await hooks["experimental.session.compacting"]({ sessionID: sid }, { context: [] });
await hooks.event({ event: { type: "session.compacted", properties: { sessionID: sid } } });
log.compact = await system();
await hooks.event({ event: { type: "session.idle", properties: { sessionID: sid } } });
await hooks.event({ event: { type: "session.deleted", properties: { info: { id: sid, title: "Sign in" } } } });
console.log(JSON.stringify(log));
`

// TestPluginInOpenCodeHost writes td's plugin with td hooks install
// --opencode, type-checks it against the published @opencode-ai/plugin
// types, and runs it in a minimal host against the real td binary.
func TestPluginInOpenCodeHost(t *testing.T) {
	if testing.Short() {
		t.Skip("the OpenCode plugin test builds td and installs npm packages; skipped with -short")
	}
	for _, tool := range []string{"node", "npm", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: the OpenCode plugin test needs node and npm (to install @opencode-ai/plugin) and git", tool)
		}
	}
	mods := npmPackages(t)
	work := t.TempDir()
	bin := filepath.Join(work, "bin", "td")
	build := exec.Command("go", "build", "-o", bin, "github.com/tdproject/td/cmd/td")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build td: %v\n%s", err, out)
	}
	dir := filepath.Join(work, "app")
	env := append(os.Environ(), "TD_BIN="+bin, "TD_NOW=2026-11-21T10:00:00Z", "TD_RAND_SEED=testscript",
		"GIT_AUTHOR_NAME=Lead Operator", "GIT_AUTHOR_EMAIL=lead@example.com", "GIT_COMMITTER_NAME=Lead Operator",
		"GIT_COMMITTER_EMAIL=lead@example.com", "GIT_CONFIG_NOSYSTEM=1", "TD_SESSION=")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	os.MkdirAll(dir, 0o755)
	run("git", "init", "-q")
	run(bin, "init")
	run(bin, "create", "Sign in with GitHub")
	if out := run(bin, "hooks", "install", "--opencode"); out != ".opencode/plugins/td.js: installed\nOpenCode runs them (td doctor checks it again).\n" {
		t.Fatalf("td hooks install --opencode said %q", out)
	}
	plugin := filepath.Join(dir, ".opencode", "plugins", "td.js")

	// The plugin type-checks against the published plugin API.
	check := filepath.Join(mods, "td.js")
	data, _ := os.ReadFile(plugin)
	os.WriteFile(check, data, 0o644)
	tsc := exec.Command("node", filepath.Join(mods, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "--allowJs", "--checkJs",
		"--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", check)
	tsc.Dir = mods
	if out, err := tsc.CombinedOutput(); err != nil {
		t.Fatalf("td.js does not type-check against @opencode-ai/plugin: %v\n%s", err, out)
	}

	hostFile := filepath.Join(work, "host.mjs")
	os.WriteFile(hostFile, []byte(host), 0o644)
	node := exec.Command("node", hostFile, "file://"+plugin, dir)
	node.Dir, node.Env = dir, env
	out, err := node.Output()
	if err != nil {
		t.Fatalf("the host failed: %v\n%s", err, out)
	}
	var log struct {
		Env, Start, StartAgain, DenyEdit, DenyApprove, AllowEdit, Compact string
		Outputs                                                           []string
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("host output %q: %v", out, err)
	}
	if !strings.HasPrefix(log.Env, "ses_") {
		t.Errorf("shell.env gave TD_SESSION=%q, want td's session", log.Env)
	}
	if !strings.Contains(log.Start, "## td: session start") || !strings.Contains(log.Start, "Session "+log.Env+": agent primary") || log.StartAgain != "" {
		t.Errorf("the first system prompt got %q, the second %q; want the start prefix once", log.Start, log.StartAgain)
	}
	if !strings.Contains(log.DenyEdit, ".todos/history/td-qkm5oz.jsonl is td's own record") {
		t.Errorf("the edit of a ledger was answered %q, want td's denial", log.DenyEdit)
	}
	// td approve is judged by the review policy before it runs: the issue
	// is not in review, so td approve would refuse it, and the guard says so.
	if log.DenyApprove != "td: cannot approve td-qkm5oz: it is open; td start td-qkm5oz starts the work." {
		t.Errorf("td approve was answered %q, want td approve's refusal", log.DenyApprove)
	}
	if log.AllowEdit != "" {
		t.Errorf("an edit of code was denied: %q", log.AllowEdit)
	}
	if len(log.Outputs) != 3 || strings.Contains(log.Outputs[1], "stalled") || !strings.Contains(log.Outputs[2], "td: stalled: the same error 3 times in a row (bash: Exit code 1 — --- FAIL: TestCallback at go test ./auth/...)") {
		t.Errorf("tool outputs %q: want the stall warning added to the third only", log.Outputs)
	}
	if !strings.Contains(log.Compact, "## td: reminder after compaction") || !strings.Contains(log.Compact, "(compaction 1)") {
		t.Errorf("after compaction the system prompt got %q, want the reminder", log.Compact)
	}
	rt, _ := os.ReadFile(filepath.Join(dir, ".git", "td", "sessions", log.Env+".json"))
	if !strings.Contains(string(rt), `"state": "interrupted"`) || !strings.Contains(string(rt), `"model": "anthropic/claude-sonnet-4-5"`) {
		t.Errorf("after session.deleted the runtime is\n%s\nwant the session interrupted, with OpenCode's model", rt)
	}
	if out := run(bin, "doctor"); !strings.Contains(out, "harness opencode (.opencode/plugins/td.js, plugin form v1): runs td's hooks\n") {
		t.Errorf("td doctor said\n%s\nwant the plugin's form", out)
	}
}

// pluginVersion is the @opencode-ai/plugin td's plugin is checked
// against: the newest published when the plugin last changed.
const pluginVersion = "1.18.33"

// npmPackages installs @opencode-ai/plugin (pluginVersion), its SDK,
// typescript and @types/node once into a cache directory and returns it.
func npmPackages(t *testing.T) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "td-test", "opencode-plugin-"+pluginVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@opencode-ai", "plugin", "package.json")); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "typescript", "bin", "tsc")); err == nil {
			return dir
		}
	}
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "td-opencode-plugin-test", "private": true, "type": "module"}`+"\n"), 0o644)
	start := time.Now()
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "@opencode-ai/plugin@"+pluginVersion, "typescript", "@types/node")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install @opencode-ai/plugin: %v\n%s", err, out)
	}
	t.Logf("installed @opencode-ai/plugin, typescript and @types/node in %s (%v)", dir, time.Since(start).Round(time.Second))
	return dir
}
