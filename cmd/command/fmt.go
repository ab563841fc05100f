package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

func (r *runner) fmtCommand() *cli.Command {
	return &cli.Command{
		Name:      "fmt",
		Usage:     "rewrite issue checklists into canonical form (on request only)",
		ArgsUsage: "[ID...]",
		Description: `Rewrites the todo and criteria lines of the named issues (all issues without
arguments) into td's canonical form: "- [ ] text" with a "-" marker, a
lower-case x, notes as "  > note". Only item lines change; everything else in
the file keeps its bytes. td never reformats a file unless asked. --check
lists the files that are not canonical and exits 1 if there are any.

Examples:
   td fmt
   td fmt td-k3x9qa
   td fmt --check`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "check", Usage: "only report files that are not in canonical form"}},
		Action: func(c *cli.Context) error {
			s, se, err := r.openActor(c)
			if err != nil {
				return err
			}
			check := c.Bool("check")
			res, err := todos.Fmt(s, se, c.Args().Slice(), check)
			if err != nil {
				return err
			}
			for _, e := range res.Errors {
				r.st.warnf("%v", e)
			}
			if r.st.json {
				changed := res.Changed
				if changed == nil {
					changed = []string{}
				}
				if err := r.st.emitJSON(map[string]any{"changed": changed, "check": check}); err != nil {
					return err
				}
			} else {
				verb := "formatted"
				if check {
					verb = "not canonical"
				}
				for _, id := range res.Changed {
					r.st.printf("%s: %s\n", verb, id)
				}
				if len(res.Changed) == 0 {
					r.st.printf("All checklists are in canonical form.\n")
				}
			}
			if check && len(res.Changed) > 0 {
				return silentFailure{}
			}
			return nil
		},
	}
}
