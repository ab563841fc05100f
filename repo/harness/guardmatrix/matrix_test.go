// Package guardmatrix tests the guard of every harness that lets a hook
// block a tool call with the same matrix of shell command spellings: each
// adapter reads its harness's payload for a shell tool call, the
// lifecycle judges it as the conversation's agent session, and the
// spelling must be denied or let through as the matrix says.
package guardmatrix

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/harness"
	"github.com/tdproject/td/repo/harness/claude"
	"github.com/tdproject/td/repo/harness/codex"
	"github.com/tdproject/td/repo/harness/copilot"
	"github.com/tdproject/td/repo/harness/cursor"
	"github.com/tdproject/td/repo/harness/gemini"
	"github.com/tdproject/td/repo/harness/opencode"
)

// spelling is one shell command and whether an agent's shell tool call
// running it is denied. {SES} is the agent's own session, {TDX} a path
// through a symbolic link to td, {DIR} the work tree.
type spelling struct {
	cmd  string
	deny bool
}

var matrix = []spelling{
	// Approving as anyone but the agent's own session.
	{"td approve td-qkm5oz", true},
	{"nice td approve td-qkm5oz", true},
	{"nice -n 5 td approve td-qkm5oz", true},
	{"/usr/bin/env td approve td-qkm5oz", true},
	{"env td approve td-qkm5oz", true},
	{"env -i PATH=/usr/bin td approve td-qkm5oz", true},
	{"env -i PATH=/usr/bin td approve td-qkm5oz --session {SES}", false},
	{"env -u TD_SESSION td approve td-qkm5oz", true},
	{"command td approve td-qkm5oz", true},
	{"exec td approve td-qkm5oz", true},
	{"nohup td approve td-qkm5oz &", true},
	{"timeout 30 td approve td-qkm5oz", true},
	{"sudo -E td approve td-qkm5oz", true},
	{"/usr/local/bin/td approve td-qkm5oz", true},
	{"./td approve td-qkm5oz", true},
	{"~/go/bin/td approve td-qkm5oz", true},
	{"{TDX} approve td-qkm5oz", true},
	{"\\td approve td-qkm5oz", true},
	{"'td' approve td-qkm5oz", true},
	{"t''d approve td-qkm5oz", true},
	{"$'\\x74d' approve td-qkm5oz", true},
	{"$(which td) approve td-qkm5oz", true},
	{"bash -c 'td approve td-qkm5oz'", true},
	{"sh -c 'td approve td-qkm5oz'", true},
	{"bash -c 'unset TD_SESSION; td approve td-qkm5oz --reason ok'", true},
	{"bash -lc \"TD_SESSION= td approve td-qkm5oz\"", true},
	{"/bin/sh -ec 'cd /tmp && td approve td-qkm5oz'", true},
	{"echo 'td approve td-qkm5oz' | bash", true},
	{"bash <<'EOF'\ntd approve td-qkm5oz\nEOF", true},
	{"bash <<< 'td approve td-qkm5oz'", true},
	{"eval 'td approve td-qkm5oz'", true},
	{"echo td-qkm5oz | xargs td approve", true},
	{"echo td-qkm5oz | xargs -I{} td approve {} --session ses_other", true},
	{"find .todos/issues -name 'td-q*' -exec td approve {} \\;", true},
	{"echo $(td approve td-qkm5oz)", true},
	{"cat <(td approve td-qkm5oz)", true},
	{"(cd /tmp; td approve td-qkm5oz)", true},
	{"true && td approve td-qkm5oz", true},
	{"TD_SESSION=ses_other td approve td-qkm5oz", true},
	{"unset TD_SESSION; td approve td-qkm5oz", true},
	{"export TD_SESSION=; td approve td-qkm5oz --reason ok", true},
	{"python3 -c \"import os; os.system('td approve td-qkm5oz')\"", true},
	{"python3 -c \"import subprocess; subprocess.run(['td', 'approve', 'td-qkm5oz'])\"", true},
	{"go run ./cmd/td approve td-qkm5oz", true},
	// Escalations, however spelt.
	{"td session use ses_other", true},
	{"nice td session use ses_other", true},
	{"env -S 'td session start --name me'", true},
	{"bash -c 'td feature set balanced_review_policy false'", true},
	{"sh -c \"td operator add 'Eve <eve@example.com>'\"", true},
	{"command -p td operator rm lead@example.com", true},
	{"stdbuf -oL td close td-qkm5oz --override-open-criteria 'ship it'", true},
	{"xargs -n1 td session use <<< ses_other", true},
	{"watch -n 60 td feature unset balanced_review_policy", true},
	// Writes of td's governance files by the shell.
	{"echo '{}' >> .todos/history/td-qkm5oz.jsonl", true},
	{"echo x>.todos/config.yaml", true},
	{"printf 'operators: []\\n' > .todos/config.yaml", true},
	{"cat /tmp/x > .todos/sessions/ses_other.yaml", true},
	{"echo '{}' | tee -a .todos/history/td-qkm5oz.jsonl", true},
	{"echo x | tee .todos/security_events.jsonl >/dev/null", true},
	{"sed -i '$d' .todos/history/td-qkm5oz.jsonl", true},
	{"sed -i.bak 's/strict/balanced/' .todos/config.yaml", true},
	{"perl -pi -e 's/a/b/' .todos/anchors.md", true},
	{"cp /tmp/ledger .todos/history/td-qkm5oz.jsonl", true},
	{"mv /tmp/config.yaml .todos/config.yaml", true},
	{"mv .todos/history/td-qkm5oz.jsonl /tmp/", true},
	{"rm .todos/security_events.jsonl", true},
	{"truncate -s 0 .todos/history/td-qkm5oz.jsonl", true},
	{"dd if=/tmp/x of=.todos/config.yaml", true},
	{"cd .todos && echo x >> history/td-qkm5oz.jsonl", true},
	{"cd .todos/history; sed -i 1d td-qkm5oz.jsonl", true},
	{"sed -i 1d .todos/history/*.jsonl", true},
	{"echo x >> {DIR}/.todos/config.yaml", true},
	{"bash -c 'echo x > .todos/config.yaml'", true},
	{"git checkout -- .todos/history/td-qkm5oz.jsonl", true},
	{"python3 -c \"open('.todos/config.yaml', 'w').write('')\"", true},
	{"python3 -c \"open('.todos/history/td-qkm5oz.jsonl', 'a').write('{}')\"", true},
	{"python3 -c \"from pathlib import Path; Path('.todos/anchors.md').write_text('')\"", true},
	{"node -e \"require('fs').appendFileSync('.todos/history/td-qkm5oz.jsonl', '{}')\"", true},
	{"echo x > link-to-config", true},
	// What an agent may run.
	{"td approve td-qkm5oz --session {SES}", false},
	{"td approve td-qkm5oz --session {SES} --reason 'read the diff'", false},
	{"TD_SESSION={SES} td approve td-qkm5oz", false},
	{"nice td approve td-qkm5oz --session {SES}", false},
	{"bash -c 'td approve td-qkm5oz --session {SES}'", false},
	{"td show td-qkm5oz", false},
	{"nice td list", false},
	{"bash -c 'td status'", false},
	{"td session start --agent primary.subagents.ui", false},
	{"td review td-qkm5oz", false},
	{"td close td-qkm5oz --reason done", false},
	{"td feature list", false},
	{"td operator list", false},
	{"echo 'td approve td-qkm5oz'", false},
	{"git commit -m 'td approve later'", false},
	{"grep -r 'td session use' docs", false},
	{"tdx approve td-qkm5oz", false},
	{"cat .todos/history/td-qkm5oz.jsonl", false},
	{"cat .todos/config.yaml | grep operators", false},
	{"sed -n 1p .todos/history/td-qkm5oz.jsonl", false},
	{"cp .todos/config.yaml /tmp/config.yaml", false},
	{"echo x > notes.txt", false},
	{"go test ./... 2>&1 | tee /tmp/out.txt", false},
	{"echo x >> .todos/issues/td-qkm5oz.md", false},
	{"python3 -c \"print(open('.todos/config.yaml').read())\"", false},
	{"ls -la .todos", false},
	{"git checkout main", false},
	{"make >/dev/null 2>&1", false},
}

// adapter drives one harness's hook as the td command does.
type adapter struct {
	name string
	// start and shell are the payloads of a conversation's start and of a
	// shell tool call about to run cmd, in dir.
	start, shell func(dir, cmd string) (event, payload string)
	// run reads a payload, handles it and returns the session it acted as
	// and the denial.
	run func(s *repo.Store, event, payload string) (*repo.Session, string, error)
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// generic runs one of the adapters that map onto harness.Handle.
func generic(read func(io.Reader, string, harness.Conversation) (*harness.Call, error), render func(*harness.Call, *harness.Outcome, string) ([]byte, error)) func(*repo.Store, string, string) (*repo.Session, string, error) {
	return func(s *repo.Store, event, payload string) (*repo.Session, string, error) {
		c, err := read(strings.NewReader(payload), event, harness.Conversation{Agent: "primary", Category: "project"})
		if err != nil || !c.Acts() {
			return nil, "", err
		}
		out, err := harness.Handle(s, c.Event)
		if err != nil {
			return nil, "", err
		}
		if out.Deny != "" {
			b, err := render(c, out, "")
			if err != nil || !strings.Contains(string(b), "deny") {
				return nil, "", err
			}
		}
		return out.Session, out.Deny, nil
	}
}

var adapters = []adapter{
	{
		name: "claude",
		start: func(dir, _ string) (string, string) {
			return "", `{"session_id": "conv", "hook_event_name": "SessionStart", "source": "startup", "cwd": ` + q(dir) + `}`
		},
		shell: func(dir, cmd string) (string, string) {
			return "", `{"session_id": "conv", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": ` + q(dir) + `, "tool_input": {"command": ` + q(cmd) + `}}`
		},
		run: func(s *repo.Store, _, payload string) (*repo.Session, string, error) {
			c, err := claude.ReadCall(strings.NewReader(payload), "")
			if err != nil {
				return nil, "", err
			}
			out, err := claude.Handle(s, c, claude.Options{Agent: "primary", Category: "project"})
			if err != nil {
				return nil, "", err
			}
			return out.Session, out.Deny, nil
		},
	},
	{
		name: "codex",
		start: func(dir, _ string) (string, string) {
			return "SessionStart", `{"session_id": "conv", "source": "startup", "cwd": ` + q(dir) + `}`
		},
		shell: func(dir, cmd string) (string, string) {
			return "PreToolUse", `{"session_id": "conv", "cwd": ` + q(dir) + `, "tool_name": "Bash", "tool_input": {"command": ` + q(cmd) + `}}`
		},
		run: generic(codex.ReadCall, codex.Render),
	},
	{
		name: "gemini",
		start: func(dir, _ string) (string, string) {
			return "SessionStart", `{"session_id": "conv", "source": "startup", "cwd": ` + q(dir) + `}`
		},
		shell: func(dir, cmd string) (string, string) {
			return "BeforeTool", `{"session_id": "conv", "cwd": ` + q(dir) + `, "tool_name": "run_shell_command", "tool_input": {"command": ` + q(cmd) + `}}`
		},
		run: generic(gemini.ReadCall, gemini.Render),
	},
	{
		name: "cursor",
		start: func(dir, _ string) (string, string) {
			return "sessionStart", `{"conversation_id": "conv", "workspace_roots": [` + q(dir) + `], "cwd": ` + q(dir) + `}`
		},
		shell: func(dir, cmd string) (string, string) {
			return "beforeShellExecution", `{"conversation_id": "conv", "command": ` + q(cmd) + `, "cwd": ` + q(dir) + `}`
		},
		run: generic(cursor.ReadCall, cursor.Render),
	},
	{
		name: "copilot",
		start: func(dir, _ string) (string, string) {
			return "sessionStart", `{"sessionId": "conv", "timestamp": 1, "cwd": ` + q(dir) + `, "source": "new"}`
		},
		shell: func(dir, cmd string) (string, string) {
			args, _ := json.Marshal(map[string]string{"command": cmd})
			return "preToolUse", `{"sessionId": "conv", "timestamp": 1, "cwd": ` + q(dir) + `, "toolName": "bash", "toolArgs": ` + q(string(args)) + `}`
		},
		run: generic(copilot.ReadCall, copilot.Render),
	},
	{
		name: "opencode",
		start: func(dir, _ string) (string, string) {
			return "session.created", `{"session_id": "conv", "cwd": ` + q(dir) + `}`
		},
		shell: func(dir, cmd string) (string, string) {
			return "tool.execute.before", `{"session_id": "conv", "cwd": ` + q(dir) + `, "tool": "bash", "args": {"command": ` + q(cmd) + `}}`
		},
		run: generic(opencode.ReadCall, opencode.Render),
	},
}

// TestGuardMatrix runs every spelling through every harness that can
// block a shell command, as the agent session the conversation started.
func TestGuardMatrix(t *testing.T) {
	if n := len(matrix); n < 80 {
		t.Fatalf("the matrix has %d spellings; the guard is judged on at least 80", n)
	}
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			s, dir := store(t)
			event, payload := a.start(dir, "")
			se, _, err := a.run(s, event, payload)
			if err != nil || se == nil {
				t.Fatalf("start: session %v, %v", se, err)
			}
			if !se.IsAgent() {
				t.Fatalf("the conversation acts as %s, not an agent", se.ID)
			}
			bin := t.TempDir()
			tdx := filepath.Join(bin, "tool")
			if err := os.WriteFile(filepath.Join(bin, "td"), nil, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(bin, "td"), tdx); err != nil {
				t.Fatal(err)
			}
			denied := 0
			for _, sp := range matrix {
				cmd := strings.NewReplacer("{SES}", se.ID, "{TDX}", tdx, "{DIR}", dir).Replace(sp.cmd)
				event, payload := a.shell(dir, cmd)
				_, deny, err := a.run(s, event, payload)
				if err != nil {
					t.Errorf("%q: %v", cmd, err)
					continue
				}
				if sp.deny {
					denied++
				}
				switch {
				case sp.deny && deny == "":
					t.Errorf("%q ran: the guard should deny it", cmd)
				case !sp.deny && deny != "":
					t.Errorf("%q denied (%s): the agent may run it", cmd, deny)
				}
			}
			if denied == 0 || denied == len(matrix) {
				t.Errorf("the matrix must hold both: %d of %d denied", denied, len(matrix))
			}
		})
	}
}

// store is a td store without git, its issue td-qkm5oz in review, and a
// link in the work tree to its config.
func store(t *testing.T) (*repo.Store, string) {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	env := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	opts := repo.Options{Now: func() time.Time { return now }, Env: func(k string) string { return env[k] }}
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: opts}); err != nil {
		t.Fatal(err)
	}
	s, err := repo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, ".todos", "config.yaml"), filepath.Join(dir, "link-to-config")); err != nil {
		t.Fatal(err)
	}
	return s, dir
}
