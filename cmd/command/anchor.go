package command

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

func (r *runner) anchorCommand() *cli.Command {
	scope := []cli.Flag{
		&cli.StringFlag{Name: "issue", Usage: "an issue other than the bound one (operators)"},
		&cli.BoolFlag{Name: "project", Usage: "the project's anchors (.todos/anchors.md)"},
	}
	request := func(c *cli.Context, text string) todos.AnchorRequest {
		return todos.AnchorRequest{Issue: c.String("issue"), Project: c.Bool("project"), Priority: domain.AnchorPriority(c.String("priority")), Text: text}
	}
	list := func(c *cli.Context) error {
		_, s, se, err := r.actorArgs(c, 0, 0, "[--issue ID | --project]")
		if err != nil {
			return err
		}
		anchors, err := todos.ListAnchors(s, se, request(c, ""))
		if err != nil {
			return err
		}
		if r.st.json {
			return r.st.emitJSON(nonNilSlice(anchors))
		}
		if len(anchors) == 0 {
			r.st.printf("No anchors. td anchor add TEXT --priority critical adds one.\n")
			return nil
		}
		for _, a := range anchors {
			where := "project"
			if a.Issue != "" {
				where = a.Issue
			}
			r.st.printf("%-8s  %-9s  %s\n", a.Priority, where, a.Text)
		}
		return nil
	}
	print := func(res *todos.AnchorResult, verb string) error {
		if r.st.json {
			return r.st.emitJSON(map[string]any{"issue": res.Issue, "changed": res.Changed, "anchors": nonNilSlice(res.Anchors)})
		}
		where := "the project"
		if res.Issue != "" {
			where = res.Issue
		}
		r.st.printf("%s %s anchor on %s: %s\n", verb, res.Changed.Priority, where, res.Changed.Text)
		return nil
	}
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
		Flags:  scope,
		Action: list,
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "the project's anchors and the bound issue's", Flags: scope, Action: list,
				Description: "Examples:\n   td anchor list\n   td anchor list --project --json"},
			{
				Name: "add", Usage: "add an anchor to the bound issue (or --project)", ArgsUsage: "TEXT",
				Description: `Examples:
   td anchor add "Tokens are never logged" --priority critical
   td anchor add "Prefer table tests" --project`,
				Flags: append([]cli.Flag{&cli.StringFlag{Name: "priority", Value: string(domain.AnchorNormal), Usage: "critical, high or normal"}}, scope...),
				Action: func(c *cli.Context) error {
					a, s, se, err := r.actorArgs(c, 1, -1, "TEXT [--priority critical|high|normal] [--project | --issue ID]")
					if err != nil {
						return err
					}
					res, err := todos.AddAnchor(s, se, request(c, strings.Join(a, " ")))
					if err != nil {
						return err
					}
					return print(res, "Added")
				},
			},
			{
				Name: "rm", Aliases: []string{"remove"}, Usage: "remove an anchor, named by its text", ArgsUsage: "TEXT",
				Description: `TEXT matches exactly, then ignoring case, then as a unique part of one anchor.

Examples:
   td anchor rm "public API"
   td anchor rm "two cores" --project`,
				Flags: scope,
				Action: func(c *cli.Context) error {
					a, s, se, err := r.actorArgs(c, 1, -1, "TEXT [--project | --issue ID]")
					if err != nil {
						return err
					}
					res, err := todos.RemoveAnchor(s, se, request(c, strings.Join(a, " ")))
					if err != nil {
						return err
					}
					return print(res, "Removed")
				},
			},
		},
	}
}
