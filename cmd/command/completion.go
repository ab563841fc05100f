package command

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// CompletionOptions are td completion's inputs.
type CompletionOptions struct {
	// Shell is bash, zsh or fish.
	Shell string
}

// completionCommand is td completion. runF, when not nil, replaces
// runCompletion.
func (r *runner) completionCommand(runF func(*CompletionOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints a script that completes td's commands, subcommands and flags,
generated from the same definitions td help reads. Load it in your shell's
start-up file:

   bash:  source <(td completion bash)        (in ~/.bashrc)
   zsh:   source <(td completion zsh)         (in ~/.zshrc)
   fish:  td completion fish > ~/.config/fish/completions/td.fish

Examples:
   td completion bash
   td completion fish > ~/.config/fish/completions/td.fish`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "bash|zsh|fish")
			if err != nil {
				return err
			}
			switch a[0] {
			case "bash", "zsh", "fish":
			default:
				return usagef("td completion knows bash, zsh and fish, not %q", a[0])
			}
			o := &CompletionOptions{Shell: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runCompletion(o, c.App)
		},
	}
}

// runCompletion prints the script for o.Shell.
func (r *runner) runCompletion(o *CompletionOptions, app *cli.App) error {
	var script string
	switch o.Shell {
	case "fish":
		s, err := app.ToFishCompletion()
		if err != nil {
			return fmt.Errorf("generate the fish completion: %w", err)
		}
		script = s
	case "zsh":
		script = "# td completion for zsh: source <(td completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n" + bashCompletion(app)
	default:
		script = "# td completion for bash: source <(td completion bash)\n" + bashCompletion(app)
	}
	return r.st.export(func() any { return map[string]string{"shell": o.Shell, "script": script} }, func() error {
		r.st.printf("%s", script)
		return nil
	})
}

// bashCompletion writes a bash completion function from the command tree:
// the words after "td" that name commands select a path ("todo add"), and
// the candidates are that path's subcommands and flags.
func bashCompletion(app *cli.App) string {
	words := map[string][]string{} // command path -> subcommands and flags
	var walk func(path string, cmds []*cli.Command, flags []cli.Flag)
	walk = func(path string, cmds []*cli.Command, flags []cli.Flag) {
		var w []string
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			for _, n := range c.Names() {
				w = append(w, n)
				sub := n
				if path != "" {
					sub = path + "/" + n
				}
				walk(sub, c.Subcommands, c.Flags)
			}
		}
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) == 1 {
					w = append(w, "-"+n)
				} else {
					w = append(w, "--"+n)
				}
			}
		}
		sort.Strings(w)
		words[path] = w
	}
	walk("", app.Commands, app.Flags)
	paths := make([]string, 0, len(words))
	for p := range words {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("_td() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} path= w i\n")
	b.WriteString("  for ((i = 1; i < COMP_CWORD; i++)); do\n")
	b.WriteString("    w=${COMP_WORDS[i]}\n")
	b.WriteString("    case \"${path:+$path/}$w\" in\n")
	for _, p := range paths {
		if p != "" {
			fmt.Fprintf(&b, "      %s) path=%s ;;\n", p, p)
		}
	}
	b.WriteString("    esac\n")
	b.WriteString("  done\n")
	b.WriteString("  local words\n")
	b.WriteString("  case \"$path\" in\n")
	for _, p := range paths {
		label := p
		if p == "" {
			label = "''"
		}
		fmt.Fprintf(&b, "    %s) words=%q ;;\n", label, strings.Join(words[p], " "))
	}
	b.WriteString("  esac\n")
	b.WriteString("  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	b.WriteString("}\n")
	b.WriteString("complete -F _td td\n")
	return b.String()
}
