package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// FmtOptions are td fmt's inputs, as parsed from the command line.
type FmtOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issues are the issues to format, as typed; none means all.
	Issues []string
	// Check is --check: only report what is not canonical.
	Check bool
}

// fmtCommand is td fmt. runF, when not nil, replaces runFmt.
func (r *runner) fmtCommand(runF func(*FmtOptions) error) *cli.Command {
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
			o := &FmtOptions{Session: c.String("session"), Issues: c.Args().Slice(), Check: c.Bool("check")}
			if runF != nil {
				return runF(o)
			}
			return r.runFmt(o)
		},
	}
}

// runFmt formats the checklists, or with Check lists those that are not
// canonical and fails when there are any.
func (r *runner) runFmt(o *FmtOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := todos.Fmt(s, se, o.Issues, o.Check)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		r.st.warnf("%v", e)
	}
	err = r.st.export(func() any {
		changed := res.Changed
		if changed == nil {
			changed = []string{}
		}
		return map[string]any{"changed": changed, "check": o.Check}
	}, func() error {
		verb := "formatted"
		if o.Check {
			verb = "not canonical"
		}
		for _, id := range res.Changed {
			r.st.printf("%s: %s\n", verb, id)
		}
		if len(res.Changed) == 0 {
			r.st.printf("All checklists are in canonical form.\n")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if o.Check && len(res.Changed) > 0 {
		return silentFailure{}
	}
	return nil
}
