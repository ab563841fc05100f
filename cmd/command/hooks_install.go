package command

import (
	"io"
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/harness"
	"github.com/tdproject/td/repo/harness/claude"
	"github.com/tdproject/td/repo/harness/codex"
	"github.com/tdproject/td/repo/harness/copilot"
	"github.com/tdproject/td/repo/harness/cursor"
	"github.com/tdproject/td/repo/harness/gemini"
	"github.com/tdproject/td/repo/harness/opencode"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// HooksInstallOptions are td hooks install's inputs, as parsed from the
// command line.
type HooksInstallOptions struct {
	// Force is --force: replace git hooks that are not td's, keeping
	// backups. Refused with Claude: the settings file is merged, never
	// replaced.
	Force bool
	// Claude is --claude: merge Claude Code's hooks into
	// .claude/settings.json instead of writing git hooks.
	Claude bool
	// Harness is the harness flag given beside --claude (codex, gemini,
	// cursor, copilot, opencode): merge that harness's hooks into its
	// config instead of writing git hooks; "" for none.
	Harness string
	// Print is --print, with a harness: show td's entries instead of
	// writing them.
	Print bool
}

// harnessConfigs are the harnesses td hooks install merges hooks for
// beside Claude Code, each with its config.
func harnessConfigs() []struct {
	name, title string
	config      harness.HookConfig
} {
	return []struct {
		name, title string
		config      harness.HookConfig
	}{
		{codex.Name, codex.Title, codex.Config()},
		{gemini.Name, gemini.Title, gemini.Config()},
		{cursor.Name, cursor.Title, cursor.Config()},
		{copilot.Name, copilot.Title, copilot.Config()},
	}
}

// hooksInstallCommand is td hooks install. runF, when not nil, replaces
// runHooksInstall.
func (r *runner) hooksInstallCommand(runF func(*HooksInstallOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "install",
		Usage: "write td's git hooks (pre-commit, prepare-commit-msg, commit-msg), or with --claude (--codex, ...) an agent harness's",
		Description: strings.Replace(`pre-commit runs td guard --staged, so a commit the current session may not
make stops there; prepare-commit-msg and commit-msg add a "Td-Session: <id>"
trailer naming the current session (not to merges or squashes, not to an
empty message, and never stopping a commit). The scripts are small POSIX sh
calling td from PATH, written where git looks for hooks: core.hooksPath when
set, else .git/hooks (shared by linked work trees).

Running it again changes nothing ("already installed") and updates hooks an
older td wrote. A hook that is not td's is never overwritten: td names it
and stops; --force replaces it and keeps it as <name>.td-backup, or call td
from your own hook with the line td prints.

--claude writes Claude Code's hooks instead (run both commands for both):
entries in .claude/settings.json that run td hook claude at {claude events}. The file is merged,
never clobbered: its other keys, hooks and matcher groups stay, an event
that already runs td hook claude is left alone, and a file td cannot read
is reported and left as it is. --print shows the entries instead.

The other harnesses the same way, one at a time: --codex merges
.codex/hooks.json, --gemini .gemini/settings.json, --cursor
.cursor/hooks.json, --copilot writes td's own .github/hooks/td.json, and
--opencode writes td's plugin, .opencode/plugins/td.js (td help harnesses).
After writing them td says whether the harness will run them: Codex runs
a new or changed project hook only once its user reviewed it (/hooks),
the Gemini CLI and Claude Code only in a folder their user trusts; td
doctor checks it again.

Examples:
   td hooks install
   td hooks install --force
   td hooks install --json
   td hooks install --claude
   td hooks install --claude --print
   td hooks install --codex`, "{claude events}", claudeEventWords(), 1),
		Flags: hooksInstallFlags(),
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--force] | --claude [--print]"); err != nil {
				return err
			}
			o := &HooksInstallOptions{Force: c.Bool("force"), Claude: c.Bool("claude"), Print: c.Bool("print")}
			if c.Bool(opencode.Name) {
				o.Harness = opencode.Name
				if o.Claude || o.Force {
					return usagef("td hooks install --opencode writes td's plugin alone: no --force, one harness at a time")
				}
			}
			for _, h := range harnessConfigs() {
				if !c.Bool(h.name) {
					continue
				}
				if o.Claude || o.Harness != "" {
					return usagef("one harness at a time: run td hooks install once for each")
				}
				o.Harness = h.name
				if o.Force {
					return usagef("--force replaces git hooks; %s is merged, never replaced, so td hooks install --%s needs no --force", h.config.Path, h.name)
				}
			}
			if o.Claude && o.Force {
				return usagef("--force replaces git hooks; .claude/settings.json is merged, never replaced, so td hooks install --claude needs no --force")
			}
			if o.Print && !o.Claude && o.Harness == "" {
				return usagef("--print goes with --claude: td hooks install --claude --print")
			}
			if runF != nil {
				return runF(o)
			}
			return r.runHooksInstall(o)
		},
	}
}

// runHooksInstall writes td's git hooks, or merges Claude Code's, and
// says what it did with each.
func (r *runner) runHooksInstall(o *HooksInstallOptions) error {
	if o.Claude {
		return r.runHooksInstallClaude(o)
	}
	if o.Harness == opencode.Name {
		return r.runHooksInstallOpencode(o)
	}
	for _, h := range harnessConfigs() {
		if h.name == o.Harness {
			return r.runHooksInstallHarness(h.config, o)
		}
	}
	s, err := r.openStore()
	if err != nil {
		return err
	}
	res, err := sessions.InstallHooks(s, sessions.HookOptions{Force: o.Force})
	if err != nil {
		return err
	}
	return r.st.export(func() any { return map[string]any{"hooks": res} }, func() error {
		for _, h := range res {
			r.st.printf("%s: %s", h.Path, h.Action)
			if h.Backup != "" {
				r.st.printf(" (the old hook is kept as %s)", h.Backup)
			}
			r.st.printf("\n")
		}
		return nil
	})
}

// runHooksInstallClaude merges td's hooks into .claude/settings.json and
// says what it did per event, or prints the entries.
func (r *runner) runHooksInstallClaude(o *HooksInstallOptions) error {
	if o.Print {
		frag := claude.SettingsFragment()
		return r.st.export(func() any { return jsonText(frag) }, func() error {
			r.st.printf("%s", frag)
			return nil
		})
	}
	s, err := r.openStore()
	if err != nil {
		return err
	}
	res, err := claude.InstallHooks(s.Root)
	if err != nil {
		return err
	}
	return r.printHarnessInstall(s, claude.Name, res)
}

// installJSON is what td hooks install --<harness> --json prints: what it
// did to the file, and whether the harness will run the hooks.
type installJSON struct {
	*harness.ConfigInstall
	Runs  string   `json:"runs"`
	Notes []string `json:"notes"`
}

// printHarnessInstall says what td hooks install did to a harness's file,
// then whether the harness will run td's hooks and, when it will not,
// the step its user must take.
func (r *runner) printHarnessInstall(s *repo.Store, name string, res *harness.ConfigInstall) error {
	ready := &harness.Readiness{Runs: harness.RunsUnknown}
	title := name
	for _, h := range harnessReadiness() {
		if h.name != name {
			continue
		}
		title = h.title
		got, err := h.read(s.Root, s.Env)
		if err != nil {
			return err
		}
		ready = got
	}
	return r.st.export(func() any {
		return installJSON{ConfigInstall: res, Runs: ready.Runs, Notes: nonNilSlice(ready.Notes)}
	}, func() error {
		r.st.printf("%s: %s\n", res.Path, res.Action)
		if len(res.Events) > 1 || res.Events[0].Event != "plugin" {
			for _, e := range res.Events {
				r.st.printf("  %s: %s (%s)\n", e.Event, e.Action, e.Command)
			}
		}
		switch ready.Runs {
		case harness.RunsYes:
			r.st.printf("%s runs them (td doctor checks it again).\n", title)
		case harness.RunsNo:
			r.st.printf("%s will not run them yet (td doctor checks it again):\n", title)
		default:
			r.st.printf("td cannot tell whether %s will run them (td doctor checks it again):\n", title)
		}
		for _, n := range ready.Notes {
			r.st.printf("  - %s\n", safe(n))
		}
		return nil
	})
}

// hooksInstallFlags are td hooks install's flags: --force for git hooks,
// one flag per harness, and --print.
// claudeEventWords lists the Claude Code events td hooks install --claude
// writes an entry for, from the entries it writes, so the help cannot
// name one more or one fewer: "SessionStart, UserPromptSubmit, ... and
// SessionEnd".
func claudeEventWords() string {
	var names []string
	for _, h := range claude.HookEntries() {
		names = append(names, string(h.Event))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func hooksInstallFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "force", Usage: "replace hooks that are not td's, keeping each as <name>.td-backup"},
		&cli.BoolFlag{Name: "claude", Usage: "merge Claude Code's hooks into .claude/settings.json instead of writing git hooks"},
	}
	for _, h := range harnessConfigs() {
		flags = append(flags, &cli.BoolFlag{Name: h.name, Usage: "merge " + h.title + "'s hooks into " + h.config.Path + " instead of writing git hooks"})
	}
	flags = append(flags, &cli.BoolFlag{Name: opencode.Name, Usage: "write OpenCode's plugin, " + opencode.ConfigFile + ", instead of git hooks"})
	return append(flags, &cli.BoolFlag{Name: "print", Usage: "with a harness flag: print td's entries instead of writing them"})
}

// runHooksInstallOpencode writes td's OpenCode plugin, or prints it.
func (r *runner) runHooksInstallOpencode(o *HooksInstallOptions) error {
	if o.Print {
		r.st.printf("%s", opencode.Plugin)
		return nil
	}
	s, err := r.openStore()
	if err != nil {
		return err
	}
	res, err := opencode.Install(s.Root)
	if err != nil {
		return err
	}
	return r.printHarnessInstall(s, opencode.Name, res)
}

// runHooksInstallHarness merges td's hooks into a harness's config and
// says what it did per event, or prints the entries.
func (r *runner) runHooksInstallHarness(cfg harness.HookConfig, o *HooksInstallOptions) error {
	if o.Print {
		frag := cfg.Fragment()
		return r.st.export(func() any { return jsonText(frag) }, func() error {
			r.st.printf("%s", frag)
			return nil
		})
	}
	s, err := r.openStore()
	if err != nil {
		return err
	}
	res, err := cfg.Install(s.Root)
	if err != nil {
		return err
	}
	return r.printHarnessInstall(s, cfg.Harness, res)
}

// jsonText is text that is JSON already, such as the settings fragment:
// --json prints it as it is.
type jsonText string

// WriteJSON writes the text unchanged.
func (t jsonText) WriteJSON(w io.Writer) error {
	_, err := io.WriteString(w, string(t))
	return err
}
