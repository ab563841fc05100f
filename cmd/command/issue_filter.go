package command

import (
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// filterFlags are the issue filters td list and td ready share.
func filterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "type", Aliases: []string{"t"}, Usage: "only these types (repeatable)"},
		&cli.StringSliceFlag{Name: "priority", Aliases: []string{"p"}, Usage: "only these priorities (repeatable)"},
		&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "only issues carrying every one of these labels"},
		&cli.StringFlag{Name: "assignee", Aliases: []string{"a"}, Usage: "only issues assigned to this: session:ID, a session's name, or a person's name, email or the email's part before @ (their agents' sessions too); case-insensitive"},
	}
}

// filterOf reads the filterFlags.
func filterOf(c *cli.Context) repo.Filter {
	return repo.Filter{
		Types: splitValues(c.StringSlice("type")), Priorities: splitValues(c.StringSlice("priority")),
		Labels: splitValues(c.StringSlice("label")), Assignee: c.String("assignee"),
	}
}

// splitValues splits repeated, comma-separated flag values into one list,
// dropping empty ones.
func splitValues(in []string) []string {
	var out []string
	for _, v := range in {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
