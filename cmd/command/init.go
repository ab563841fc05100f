package command

import (
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/exchange"
	"github.com/urfave/cli/v2"
)

// InitOptions are td init's inputs, as parsed from the command line.
type InitOptions struct {
	// Prefix is --prefix: the issue ID prefix.
	Prefix string
	// NoGit is --no-git: allow a directory outside a git work tree.
	NoGit bool
}

// initCommand is td init. runF, when not nil, replaces runInit.
func (r *runner) initCommand(runF func(*InitOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "set up .todos/ at the root of this git repository",
		Description: `Creates .todos/ (config.yaml, issues/, history/, sessions/, a .gitignore for
local/), adds the union and td merge drivers to .gitattributes, registers the
td merge driver in this clone's git config, and lists your git identity as an
operator. Running it again only adds what is missing.

Examples:
   td init
   td init --prefix web        # issue IDs like web-k3x9qa
   td init --no-git            # a plain directory: td only writes files`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prefix", Value: "td", Usage: "issue ID prefix"},
			&cli.BoolFlag{Name: "no-git", Usage: "allow a directory that is not in a git work tree"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--prefix P] [--no-git]"); err != nil {
				return err
			}
			o := &InitOptions{Prefix: c.String("prefix"), NoGit: c.Bool("no-git")}
			if runF != nil {
				return runF(o)
			}
			return r.runInit(o)
		},
	}
}

// runInit sets up .todos/ in the directory td runs in (--dir), or adds
// what is missing, and says what it did.
func (r *runner) runInit(o *InitOptions) error {
	opts, err := r.options()
	if err != nil {
		return err
	}
	dir := r.path(".")
	if r.dirFlag != "" {
		dir = r.path(r.dirFlag)
	}
	res, err := repo.Init(dir, repo.InitOptions{Prefix: o.Prefix, NoGit: o.NoGit, Options: opts})
	if err != nil {
		return err
	}
	if exchange.HasMarcusTD(res.Root) {
		r.st.warnf("%s is the database of marcus/td, another tracker also called td that keeps its data in .todos/: two tools now write into that folder. This td keeps its own files beside it and never writes %s; it cannot read that database, so its issues stay there until they come in through a format td import reads (td help importing)", exchange.MarcusTDDatabase, exchange.MarcusTDDatabase)
	}
	return r.st.export(func() any {
		created := res.Created
		if created == nil {
			created = []string{}
		}
		return map[string]any{"root": res.Root, "operator": res.Operator, "created": created, "already_initialized": res.Existing, "git": res.Git}
	}, func() error {
		switch {
		case res.Existing && len(res.Created) == 0:
			r.st.printf("td is already initialised here; nothing to do.\n")
			return nil
		case res.Existing:
			r.st.printf("td was already initialised; added what was missing:\n")
		default:
			r.st.printf("Initialised td in %s\n", res.Root)
		}
		for _, p := range res.Created {
			r.st.printf("  %s\n", p)
		}
		if !res.Existing {
			if res.Operator != "" {
				r.st.printf("Operator: %s\n", res.Operator)
			} else {
				r.st.printf("No git identity found: add yourself to operators in .todos/config.yaml.\n")
			}
			if !res.Git {
				r.st.printf("Not a git work tree: git mode is off, td only writes files.\n")
			}
		}
		return nil
	})
}
