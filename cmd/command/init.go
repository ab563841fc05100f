package command

import (
	"slices"
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/ci"
	"github.com/tdproject/td/repo/exchange"
	"github.com/urfave/cli/v2"
)

// InitOptions are td init's inputs, as parsed from the command line.
type InitOptions struct {
	// Prefix is --prefix: the issue ID prefix; PrefixGiven whether it
	// was given.
	Prefix      string
	PrefixGiven bool
	// NoGit is --no-git: allow a directory outside a git work tree.
	NoGit bool
	// CI is --ci: the hosting service to write a pull request job for
	// ("github" or "gitlab"; "" for none).
	CI string
}

// initCommand is td init. runF, when not nil, replaces runInit.
func (r *runner) initCommand(runF func(*InitOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "set up .todos/ at the root of this git repository",
		Description: `Creates .todos/ (config.yaml, issues/, history/, sessions/, a .gitignore for
local/), adds the union and td merge drivers to .gitattributes, registers the
td merge driver in this clone's git config, and lists your git identity as an
operator. Running it again only adds what is missing; with --prefix on a
tree initialised with another prefix it is refused. The prefix of new
issues is id_prefix in .todos/config.yaml: edit it and commit it to change
it (existing issues keep their IDs).

Examples:
   td init
   td init --prefix web        # issue IDs like web-k3x9qa
   td init --no-git            # a plain directory: td only writes files
   td init --ci github         # also a workflow checking .todos on pull requests

--ci github writes .github/workflows/td.yml; --ci gitlab writes
.gitlab/td.gitlab-ci.yml and includes it from .gitlab-ci.yml (or says what
to add to yours). On every pull or merge request the job runs td check
--base against the target branch and publishes td diff --format markdown,
with the td resolve recipe when .todos conflicts, as the job's summary and
one comment it keeps up to date. See td help conflicts.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prefix", Value: "td", Usage: "issue ID prefix"},
			&cli.BoolFlag{Name: "no-git", Usage: "allow a directory that is not in a git work tree"},
			&cli.StringFlag{Name: "ci", Usage: "also write a pull request job for `SERVICE` (github or gitlab)"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--prefix P] [--no-git] [--ci github|gitlab]"); err != nil {
				return err
			}
			o := &InitOptions{Prefix: c.String("prefix"), PrefixGiven: c.IsSet("prefix"), NoGit: c.Bool("no-git"), CI: c.String("ci")}
			if o.CI != "" && !slices.Contains(ci.Services(), o.CI) {
				return usagef("--ci %q must be one of %s", o.CI, strings.Join(ci.Services(), ", "))
			}
			if o.CI != "" && o.NoGit {
				return usagef("--ci needs git: a pull request job cannot run without it, so leave out --no-git")
			}
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
	res, err := repo.Init(dir, repo.InitOptions{Prefix: o.Prefix, PrefixGiven: o.PrefixGiven, NoGit: o.NoGit, Options: opts})
	if err != nil {
		return err
	}
	var ciFiles []ci.File
	if o.CI != "" {
		if !res.Git {
			return repo.Errorf(repo.CodeRefused, "--ci needs a git repository, and %s is not in one", res.Root)
		}
		if ciFiles, err = ci.Write(res.Root, o.CI); err != nil {
			return err
		}
	}
	if exchange.HasMarcusTD(res.Root) {
		r.st.warnf("%s is the database of marcus/td, another tracker also called td that keeps its data in .todos/: two tools now write into that folder. This td keeps its own files beside it and never writes %s. To bring its issues into td, run td import marcus-td %s (with --dry-run first to see what it would do; td help importing)", exchange.MarcusTDDatabase, exchange.MarcusTDDatabase, exchange.MarcusTDDatabase)
	}
	return r.st.export(func() any {
		created := res.Created
		if created == nil {
			created = []string{}
		}
		out := map[string]any{"root": res.Root, "operator": res.Operator, "created": created, "already_initialized": res.Existing, "git": res.Git}
		if o.CI != "" {
			out["ci"] = ciFiles
		}
		return out
	}, func() error {
		defer r.printCIFiles(ciFiles)
		switch {
		case res.Existing && len(res.Created) == 0:
			if len(ciFiles) == 0 {
				r.st.printf("td is already initialised here; nothing to do.\n")
			}
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

// printCIFiles says what td init --ci did with each file.
func (r *runner) printCIFiles(files []ci.File) {
	for _, f := range files {
		switch f.Action {
		case "created":
			r.st.printf("Wrote %s: commit it to check .todos on every pull request.\n", f.Path)
		case "unchanged":
			r.st.printf("%s is already td's.\n", f.Path)
		default:
			r.st.printf("%s is yours, so td left it: add these lines to run td's job:\n%s", f.Path, f.Lines)
		}
	}
}
