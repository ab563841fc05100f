package command

import (
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
		Description: `Prints a script that completes td on the command line: commands,
subcommands and flags from the same definitions td help reads; issue IDs
with their titles (open issues first, and only those the command takes:
td approve offers the issues in review); flag values (statuses, types,
priorities, the labels and people in use, sessions); help topics; file
names only where a flag or command takes a path, and nothing after a flag
whose value is free text. The script asks td itself (td __complete), so
it knows this repository's issues as they are now. Load it in your
shell's start-up file:

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
	script := completionScripts[o.Shell]
	return r.st.export(func() any { return map[string]string{"shell": o.Shell, "script": script} }, func() error {
		r.st.printf("%s", script)
		return nil
	})
}

// completionScripts hand the words of the command line to td __complete,
// which knows the command tree and the repository, and offer what it
// prints: VALUE<tab>DESCRIPTION lines, or ":files" for a path. bash shows
// the values; zsh and fish show the descriptions beside them.
var completionScripts = map[string]string{
	"bash": `# td completion for bash: source <(td completion bash)
_td() {
  local cur=${COMP_WORDS[COMP_CWORD]} out line
  out=$(td __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  COMPREPLY=()
  if [[ $out == ':files' ]]; then
    compopt -o filenames 2>/dev/null
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
    return 0
  fi
  while IFS= read -r line; do
    [[ -n $line ]] && COMPREPLY+=("${line%%$'\t'*}")
  done <<< "$out"
  return 0
}
complete -F _td td
`,
	"zsh": `#compdef td
# td completion for zsh: source <(td completion zsh)
_td() {
  local -a lines cands
  local line value desc
  lines=("${(@f)$(td __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ ${lines[1]} == ':files' ]]; then
    _files
    return
  fi
  for line in $lines; do
    [[ -z $line ]] && continue
    value=${line%%$'\t'*}
    desc=${line#*$'\t'}
    [[ $desc == $line ]] && desc=
    value=${value//:/\\:}
    if [[ -n $desc ]]; then cands+=("$value:$desc"); else cands+=("$value"); fi
  done
  (( ${#cands} )) && _describe -V td cands
}
if (( $+functions[compdef] )); then
  compdef _td td
else
  autoload -Uz compinit && compinit && compdef _td td
fi
`,
	"fish": `# td completion for fish: td completion fish > ~/.config/fish/completions/td.fish
function __td_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l out (td __complete -- $words (commandline -ct) 2>/dev/null)
    if test "$out[1]" = ':files'
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\n' $out
end
complete -c td -f -k -a '(__td_complete)'
`,
}
