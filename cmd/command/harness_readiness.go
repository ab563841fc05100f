package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/doctor"
	"github.com/tdproject/td/repo/harness"
	"github.com/tdproject/td/repo/harness/claude"
	"github.com/tdproject/td/repo/harness/codex"
	"github.com/tdproject/td/repo/harness/copilot"
	"github.com/tdproject/td/repo/harness/cursor"
	"github.com/tdproject/td/repo/harness/gemini"
	"github.com/tdproject/td/repo/harness/opencode"
)

// harnessReadiness are the harnesses' readers of whether they will run
// td's hooks in a work tree, each with how td installs its hooks.
func harnessReadiness() []struct {
	name, title string
	read        func(root string, home harness.Home) (*harness.Readiness, error)
	install     func(root string) error
} {
	withHome := func(f func(string) (*harness.Readiness, error)) func(string, harness.Home) (*harness.Readiness, error) {
		return func(root string, _ harness.Home) (*harness.Readiness, error) { return f(root) }
	}
	config := func(c harness.HookConfig) func(string) error {
		return func(root string) error { _, err := c.Install(root); return err }
	}
	return []struct {
		name, title string
		read        func(root string, home harness.Home) (*harness.Readiness, error)
		install     func(root string) error
	}{
		{claude.Name, "Claude Code", claude.Readiness, config(claude.Config())},
		{codex.Name, codex.Title, codex.Readiness, config(codex.Config())},
		{gemini.Name, gemini.Title, gemini.Readiness, config(gemini.Config())},
		{cursor.Name, cursor.Title, withHome(cursor.Readiness), config(cursor.Config())},
		{copilot.Name, copilot.Title, withHome(copilot.Readiness), config(copilot.Config())},
		{opencode.Name, opencode.Title, withHome(opencode.Readiness), func(root string) error { _, err := opencode.Install(root); return err }},
	}
}

// doctorHarnesses reads each harness whose hooks td installed in the
// store's work tree, for td doctor.
func doctorHarnesses(s *repo.Store) func() ([]doctor.Harness, error) {
	return func() ([]doctor.Harness, error) {
		var out []doctor.Harness
		for _, h := range harnessReadiness() {
			r, err := h.read(s.Root, s.Env)
			if err != nil {
				return nil, err
			}
			if !r.Installed && len(r.Notes) == 0 {
				continue
			}
			install := h.install
			out = append(out, doctor.Harness{Name: r.Harness, Config: r.Config, Missing: r.Missing, Runs: r.Runs, Notes: r.Notes, Form: r.Form,
				Install: func() error { return install(s.Root) }})
		}
		return out, nil
	}
}

// harnessSummary is one line per harness td doctor read: whether it runs
// td's hooks, with the notes of one that td cannot tell about.
func harnessSummary(hs []doctor.Harness) []string {
	var out []string
	for _, h := range hs {
		what := h.Config
		if h.Form != "" {
			what += ", plugin form " + h.Form
		}
		switch h.Runs {
		case harness.RunsYes:
			out = append(out, fmt.Sprintf("%s (%s): runs td's hooks", h.Name, what))
		case harness.RunsNo:
			out = append(out, fmt.Sprintf("%s (%s): will not run td's hooks (above)", h.Name, what))
		default:
			line := fmt.Sprintf("%s (%s): td cannot tell whether it runs td's hooks", h.Name, what)
			if len(h.Notes) > 0 {
				line += "; " + strings.Join(h.Notes, "; ")
			}
			out = append(out, line)
		}
	}
	return out
}
