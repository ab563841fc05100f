package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestHookHarnessOptions parses the argv of td hook codex, gemini, cursor,
// copilot and opencode into their options; a mistake is one line on
// standard error and no run, never a usage error.
func TestHookHarnessOptions(t *testing.T) {
	for _, c := range []struct {
		harness string
		argv    []string
		want    HookHarnessOptions
		err     string
	}{
		{"codex", []string{"PreToolUse"}, HookHarnessOptions{Harness: "codex", Event: "PreToolUse", Format: formatMarkdown}, ""},
		{"gemini", []string{"BeforeTool", "--agent", "primary", "--category=meta"}, HookHarnessOptions{Harness: "gemini", Event: "BeforeTool", Agent: "primary", Category: "meta", Format: formatMarkdown}, ""},
		{"cursor", []string{"--format", "text", "stop"}, HookHarnessOptions{Harness: "cursor", Event: "stop", Format: formatText}, ""},
		{"copilot", []string{"sessionStart", "sessionEnd"}, HookHarnessOptions{}, "td hook copilot: one event at a time: got sessionStart and sessionEnd\n"},
		{"opencode", []string{"--frob"}, HookHarnessOptions{}, "td hook opencode: unknown flag --frob; td hook opencode --help lists the flags\n"},
	} {
		var errOut bytes.Buffer
		r := &runner{st: &streams{in: strings.NewReader(""), out: &bytes.Buffer{}, errOut: &errOut}, getenv: func(string) string { return "" }}
		var got *HookHarnessOptions
		runF := func(o *HookHarnessOptions) error { got = o; return nil }
		var cmd *cli.Command
		switch c.harness {
		case "codex":
			cmd = r.hookCodexCommand(runF)
		case "gemini":
			cmd = r.hookGeminiCommand(runF)
		case "cursor":
			cmd = r.hookCursorCommand(runF)
		case "copilot":
			cmd = r.hookCopilotCommand(runF)
		case "opencode":
			cmd = r.hookOpencodeCommand(runF)
		}
		if err := runCommand(r, cmd, append([]string{c.harness}, c.argv...)); err != nil {
			t.Errorf("%s %q: %v", c.harness, c.argv, err)
			continue
		}
		if c.err != "" {
			if got != nil || errOut.String() != c.err {
				t.Errorf("%s %q: ran %+v, said %q; want %q", c.harness, c.argv, got, errOut.String(), c.err)
			}
			continue
		}
		if got == nil || *got != c.want {
			t.Errorf("%s %q: got %+v, want %+v", c.harness, c.argv, got, c.want)
		}
	}
}

// TestHooksInstallHarnessFlags parses td hooks install's harness flags.
func TestHooksInstallHarnessFlags(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want HooksInstallOptions
		err  string
	}{
		{[]string{"--codex"}, HooksInstallOptions{Harness: "codex"}, ""},
		{[]string{"--cursor", "--print"}, HooksInstallOptions{Harness: "cursor", Print: true}, ""},
		{[]string{"--opencode"}, HooksInstallOptions{Harness: "opencode"}, ""},
		{[]string{"--gemini", "--copilot"}, HooksInstallOptions{}, "one harness at a time"},
		{[]string{"--copilot", "--force"}, HooksInstallOptions{}, "needs no --force"},
	} {
		r := &runner{st: &streams{in: strings.NewReader(""), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}, getenv: func(string) string { return "" }}
		var got *HooksInstallOptions
		err := runCommand(r, r.hooksInstallCommand(func(o *HooksInstallOptions) error { got = o; return nil }), append([]string{"install"}, c.argv...))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.argv, err, c.err)
			}
			continue
		}
		if err != nil || got == nil || *got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.argv, got, err, c.want)
		}
	}
}
