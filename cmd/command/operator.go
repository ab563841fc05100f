package command

import (
	"github.com/tdproject/td/repo/people"
	"github.com/urfave/cli/v2"
)

// operatorCommand is td operator, the parent of td operator list, add
// and rm.
func (r *runner) operatorCommand() *cli.Command {
	return &cli.Command{
		Name:  "operator",
		Usage: "list, add and remove the operators in the config",
		Description: `Operators are the git identities listed under operators: in
.todos/config.yaml: the people whose sessions approve, change feature flags
and change governance files. Only an operator may add or remove one, never
from an agent session; each change is a security event (operator_added,
operator_removed) and rewrites only the operators: lines of the config.

td refuses to remove the last operator, and removes your own entry only
with --yes: you stop being an operator at once.

Examples:
   td operator list
   td operator add "Bob Stone <bob@example.com>"
   td operator rm bob@example.com
   td operator rm "Alice <alice@example.com>" --yes`,
		Subcommands: []*cli.Command{
			r.operatorListCommand(nil),
			r.operatorAddCommand(nil),
			r.operatorRmCommand(nil),
		},
	}
}

// operatorChangeJSON is td operator add and rm's --json.
func operatorChangeJSON(ch people.Change) map[string]any {
	out := map[string]any{"operator": ch.Identity, "changed": ch.Changed, "operators": append([]string{}, ch.Operators...), "security_event": nil}
	if ch.Event != nil {
		out["security_event"] = *ch.Event
	}
	return out
}
