package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// AnchorScope is what every td anchor verb shares: who acts, and whose
// anchors.
type AnchorScope struct {
	// Session is --session: the session acting ("" for the default).
	Session string
	// Issue is --issue: an issue other than the bound one (a person's).
	Issue string
	// Project is --project: the project's anchors.
	Project bool
}

// anchorScopeFlags are the flags of AnchorScope.
func anchorScopeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "issue", Usage: "an issue other than the bound one (people, not agents)"},
		&cli.BoolFlag{Name: "project", Usage: "the project's anchors (.todos/anchors.md)"},
	}
}

// anchorScopeOf reads the scope flags of a td anchor verb.
func anchorScopeOf(c *cli.Context) AnchorScope {
	return AnchorScope{Session: c.String("session"), Issue: c.String("issue"), Project: c.Bool("project")}
}

// anchorCommand is td anchor: the parent of the verbs, and td anchor list
// when called alone.
func (r *runner) anchorCommand() *cli.Command {
	list := r.anchorListCommand(nil)
	return &cli.Command{
		Name:  "anchor",
		Usage: "anchors: what every context block reminds a session of (critical, high, normal)",
		Description: `An anchor is a fact a session must not lose across compactions and
resumes: "never push to main", "the staging database is shared". Issue
anchors live in the issue file under "## Anchors"; project anchors in
.todos/anchors.md. Context blocks show the critical and high ones; the
reminder after compaction shows the critical ones.

Examples:
   td anchor add "Never change the public API of package auth" --priority critical
   td anchor add "CI runs on two cores" --project --priority high
   td anchor list
   td anchor rm "public API"`,
		Flags:       anchorScopeFlags(),
		Action:      list.Action,
		Subcommands: []*cli.Command{list, r.anchorAddCommand(nil), r.anchorRmCommand(nil)},
	}
}

// printAnchorChange reports an anchor added or removed.
func (r *runner) printAnchorChange(res *todos.AnchorResult, verb string) error {
	return r.st.export(func() any {
		return map[string]any{"issue": res.Issue, "changed": res.Changed, "anchors": nonNilSlice(res.Anchors)}
	}, func() error {
		where := "the project"
		if res.Issue != "" {
			where = res.Issue
		}
		r.st.printf("%s %s anchor on %s: %s\n", verb, res.Changed.Priority, where, safe(res.Changed.Text))
		return nil
	})
}
