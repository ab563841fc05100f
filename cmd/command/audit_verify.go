package command

import (
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/review"
	"github.com/urfave/cli/v2"
)

// AuditVerifyOptions are td audit verify's inputs, as parsed from the
// command line.
type AuditVerifyOptions struct {
	// Base is --base: the revision to compare with ("" for HEAD).
	Base string
}

// auditVerifyCommand is td audit verify. runF, when not nil, replaces
// runAuditVerify.
func (r *runner) auditVerifyCommand(runF func(*AuditVerifyOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check the hash chain of .todos/security_events.jsonl",
		Description: `Every line's hash must match its content, every prev must name a line in the
file (or be empty for the first), no hash may repeat, and every line present
at the base revision (HEAD by default) must still be there unaltered. A file
that a union merge of two branches produced verifies clean. Exit 1 on any
problem, each printed as path:line: message.

Examples:
   td audit verify
   td audit verify --base main --json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "base", Usage: "compare with the file at this revision (default HEAD)"}},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--base REV]"); err != nil {
				return err
			}
			o := &AuditVerifyOptions{Base: c.String("base")}
			if runF != nil {
				return runF(o)
			}
			return r.runAuditVerify(o)
		},
	}
}

// runAuditVerify checks the security log's hash chain, printing each
// problem, and fails when there is any.
func (r *runner) runAuditVerify(o *AuditVerifyOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	rep, err := review.VerifySecurity(s, o.Base)
	if err != nil {
		return err
	}
	err = r.st.export(func() any {
		probs := []map[string]any{}
		for _, p := range rep.Problems {
			probs = append(probs, map[string]any{"line": p.Line, "message": p.Msg})
		}
		return map[string]any{"path": rep.Path, "events": rep.Events, "base": rep.Base, "ok": len(rep.Problems) == 0, "problems": probs}
	}, func() error {
		for _, p := range rep.Problems {
			if p.Line > 0 {
				r.st.printf("%s:%d: %s\n", rep.Path, p.Line, p.Msg)
			} else {
				r.st.printf("%s: %s\n", rep.Path, p.Msg)
			}
		}
		if len(rep.Problems) > 0 {
			return nil
		}
		against := "no base revision"
		if rep.Base != "" {
			against = "checked against " + rep.Base
		}
		r.st.printf("%s: %d %s, chain intact (%s).\n", rep.Path, rep.Events, domain.Plural(rep.Events, "event", "events"), against)
		return nil
	})
	if err != nil {
		return err
	}
	if len(rep.Problems) > 0 {
		return silentFailure{}
	}
	return nil
}
