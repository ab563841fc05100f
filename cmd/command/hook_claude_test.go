package command

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/tdproject/td/repo/harness/claude"
)

func TestParseHookArgs(t *testing.T) {
	cases := []struct {
		in   []string
		want hookArgs
		err  string
	}{
		{in: nil, want: hookArgs{format: formatMarkdown}},
		{in: []string{"--agent", "primary", "--", "SessionStart"}, want: hookArgs{event: "SessionStart", agent: "primary", format: formatMarkdown}},
		{in: []string{"Stop", "--category=meta", "--format", "text"}, want: hookArgs{event: "Stop", category: "meta", format: formatText}},
		{in: []string{"-h"}, want: hookArgs{format: formatMarkdown, help: true}},
		{in: []string{"Stop", "SessionEnd"}, err: "one event at a time"},
		{in: []string{"--agent"}, err: "--agent needs a value"},
		{in: []string{"--frob"}, err: "unknown flag --frob"},
		{in: []string{"--format", "html"}, err: `--format "html" must be text or markdown`},
	}
	for _, c := range cases {
		got, err := parseHookArgs(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// Whatever it is given, td hook claude exits 0 with nothing on standard
// output but what the harness should add to the context.
func TestHookClaudeNeverFailsTheHarness(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		args  []string
		stdin string
		env   map[string]string
	}{
		{"empty payload", []string{"SessionStart"}, "", nil},
		{"not JSON", []string{"SessionStart"}, "{", nil},
		{"not an object", []string{"Stop"}, "[1]", nil},
		{"unknown event", []string{"Notification"}, `{"session_id":"a"}`, nil},
		{"unknown flag, with --json", []string{"Stop", "--nope", "--json"}, `{"session_id":"a"}`, nil},
		{"no repository", []string{"SessionStart"}, `{"session_id":"a","cwd":"` + dir + `"}`, nil},
		{"a bad clock", []string{"SessionStart"}, `{"session_id":"a","cwd":"` + dir + `"}`, map[string]string{"TD_NOW": "yesterday"}},
		{"usage of a subcommand's help", []string{"--help", "--frob"}, "", nil},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		args := append([]string{"td", "hook", "claude"}, c.args...)
		code := Run(args, strings.NewReader(c.stdin), &out, &errOut, func(k string) string { return c.env[k] })
		if code != 0 {
			t.Errorf("%s: exit %d (stderr %q)", c.name, code, errOut.String())
		}
		if out.Len() > 0 {
			t.Errorf("%s: stdout %q", c.name, out.String())
		}
		if n := strings.Count(strings.TrimSpace(errOut.String()), "\n"); n > 0 || !strings.HasPrefix(errOut.String(), "td hook claude: ") {
			t.Errorf("%s: want one line on stderr, got %q", c.name, errOut.String())
		}
	}
}

func TestHookClaudeOptions(t *testing.T) {
	checkParse(t, "hook", (*runner).hookClaudeCommand, []parseCase[HookClaudeOptions]{
		{name: "payload's event", argv: []string{"hook", "claude"}, want: HookClaudeOptions{Format: formatMarkdown}},
		{name: "flags", argv: []string{"hook", "claude", "SessionStart", "--agent", "primary", "--category=meta", "--format", "text"},
			want: HookClaudeOptions{Event: "SessionStart", Agent: "primary", Category: "meta", Format: formatText}},
	})
}

// TestHooksInstallHelpNamesWhatItInstalls: td hooks install --help names
// each Claude Code event --claude writes an entry for, and no other.
func TestHooksInstallHelpNamesWhatItInstalls(t *testing.T) {
	desc := (&runner{}).hooksInstallCommand(nil).Description
	installed := map[claude.Event]bool{}
	for _, h := range claude.HookEntries() {
		installed[h.Event] = true
	}
	for _, e := range claude.Events {
		named := regexp.MustCompile(`\b` + string(e) + `\b`).MatchString(desc)
		if named != installed[e] {
			t.Errorf("the help names %s: %v; --claude installs it: %v", e, named, installed[e])
		}
	}
}
