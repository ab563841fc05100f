package command

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/harness/claude"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// guardCommands are td guard and td hooks: scope checks for a session's changes.
func (r *runner) guardCommands() []*cli.Command {
	return []*cli.Command{r.guardCommand(), r.hooksCommand()}
}

func (r *runner) guardCommand() *cli.Command {
	return &cli.Command{
		Name:      "guard",
		Usage:     "check a change against what the current session may change",
		ArgsUsage: "[--staged | PATH...]",
		Description: `Scopes: a project agent may change user code and issue files, and meta
paths only through td; a meta agent may change meta paths and issue files,
never user code; operators may change anything. Meta paths are those config
meta_paths lists (config, ledgers, sessions, anchors, .gitattributes) and
git's own files, hooks included. .todos/local is never committed and not
checked.

With --staged (the default when no PATH is given) td guard checks what git
commit would record: the index against HEAD, or the index git names in
GIT_INDEX_FILE while a hook runs. A staged meta path passes for a project
agent when td itself wrote that content (td keeps a journal of its writes
under .todos/local), or when a merge in progress brought it. With PATHs it
checks the named files as if the session were about to edit them.

Each refused path is printed as "path: reason" and the exit status is 1;
otherwise one OK line. td hooks install makes git run td guard --staged
before every commit.

Examples:
   td guard
   td guard --staged --json
   td guard src/main.go .todos/config.yaml
   TD_SESSION=ses_qmt3y9ft td guard .todos/history/td-k3x9qa.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "staged", Usage: "check the staged changes (the default without PATHs)"},
		},
		Action: func(c *cli.Context) error {
			paths := c.Args().Slice()
			if len(paths) == 0 && r.getenv("GIT_INDEX_FILE") != "" {
				r.ran = "" // git's pre-commit hook, not an action the session took
			}
			if c.Bool("staged") && len(paths) > 0 {
				return usagef("give --staged or PATHs, not both; td guard --help shows the usage")
			}
			s, err := r.open(c)
			if err != nil {
				return err
			}
			se, err := r.currentSession(c, s)
			if err != nil {
				return err
			}
			var rep *sessions.GuardReport
			if len(paths) > 0 {
				rep, err = sessions.GuardPaths(s, se, r.workDir(c), paths)
			} else {
				rep, err = sessions.GuardStaged(s, se)
			}
			if err != nil {
				return err
			}
			return r.printGuard(rep)
		},
	}
}

func (r *runner) printGuard(rep *sessions.GuardReport) error {
	refused := rep.Refused()
	if r.st.json {
		if rep.Checked == nil {
			rep.Checked = []sessions.GuardCheck{}
		}
		if err := r.st.emitJSON(rep); err != nil {
			return err
		}
		if len(refused) > 0 {
			return silentFailure{}
		}
		return nil
	}
	what := "path"
	if rep.Staged {
		what = "staged path"
	}
	n := len(rep.Checked)
	if len(refused) == 0 {
		if n == 0 {
			r.st.printf("OK: nothing staged.\n")
			return nil
		}
		r.st.printf("OK: %d %s within the scope of %s.\n", n, pluralWord(n, what, what+"s"), guardActor(rep))
		return nil
	}
	for _, c := range refused {
		r.st.printf("%s: %s\n", c.Path, c.Reason)
	}
	if rep.Staged {
		it := pluralWord(len(refused), "it", "them")
		return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%s may not commit %d of %d staged %s; unstage %s with git restore --staged PATH, or leave %s to a session whose scope covers %s",
			guardActor(rep), len(refused), n, pluralWord(n, "path", "paths"), it, it, it)}
	}
	return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%s may not change %d of %d %s", guardActor(rep), len(refused), n, pluralWord(n, "path", "paths"))}
}

// guardActor names who the guard judged: the session and what it counts
// as, or the git author when no session acts yet.
func guardActor(rep *sessions.GuardReport) string {
	kind := rep.Role
	if rep.Role == domain.RoleAgent {
		kind = domain.Role(string(rep.Category) + " agent")
	}
	if rep.Session == "" {
		return fmt.Sprintf("%s (%s, no session)", rep.Author, kind)
	}
	return fmt.Sprintf("%s (%s)", rep.Session, kind)
}

// HooksInstallClaudeOptions is td hooks install --claude [--print]: what
// to do, and how to open the repository whose settings file td merges
// into.
type HooksInstallClaudeOptions struct {
	IO *streams
	// Force is refused: it replaces git hooks, and the settings file is
	// merged, never replaced.
	Force bool
	// Print shows td's entries instead of writing them.
	Print bool
	Open  func() (*repo.Store, error)
}

// runHooksInstallClaude merges td's hooks into .claude/settings.json and
// says what it did per event, or prints the entries.
func runHooksInstallClaude(opts *HooksInstallClaudeOptions) error {
	if opts.Force {
		return usagef("--force replaces git hooks; .claude/settings.json is merged, never replaced, so td hooks install --claude needs no --force")
	}
	if opts.Print {
		opts.IO.printf("%s", claude.SettingsFragment())
		return nil
	}
	s, err := opts.Open()
	if err != nil {
		return err
	}
	res, err := claude.InstallHooks(s.Root)
	if err != nil {
		return err
	}
	if opts.IO.json {
		return opts.IO.emitJSON(res)
	}
	opts.IO.printf("%s: %s\n", res.Path, res.Action)
	for _, e := range res.Events {
		opts.IO.printf("  %s: %s (%s)\n", e.Event, e.Action, e.Command)
	}
	return nil
}

func (r *runner) hooksCommand() *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "install git hooks (the scope check before each commit, Td-Session trailers) or an agent harness's hooks",
		Subcommands: []*cli.Command{
			{
				Name:  "install",
				Usage: "write td's git hooks (pre-commit, prepare-commit-msg, commit-msg), or with --claude Claude Code's",
				Description: `pre-commit runs td guard --staged, so a commit the current session may not
make stops there; prepare-commit-msg and commit-msg add a "Td-Session: <id>"
trailer naming the current session (not to merges or squashes, not to an
empty message, and never stopping a commit). The scripts are small POSIX sh
calling td from PATH, written where git looks for hooks: core.hooksPath when
set, else .git/hooks (shared by linked work trees).

Running it again changes nothing ("already installed") and updates hooks an
older td wrote. A hook that is not td's is never overwritten: td names it
and stops; --force replaces it and keeps it as <name>.td-backup, or call td
from your own hook with the line td prints.

--claude writes Claude Code's hooks instead (run both commands for both):
entries in .claude/settings.json that run td hook claude at SessionStart,
PostToolUse, PostToolUseFailure, Stop and SessionEnd. The file is merged,
never clobbered: its other keys, hooks and matcher groups stay, an event
that already runs td hook claude is left alone, and a file td cannot read
is reported and left as it is. --print shows the entries instead.

Examples:
   td hooks install
   td hooks install --force
   td hooks install --json
   td hooks install --claude
   td hooks install --claude --print`,
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "force", Usage: "replace hooks that are not td's, keeping each as <name>.td-backup"},
					&cli.BoolFlag{Name: "claude", Usage: "merge Claude Code's hooks into .claude/settings.json instead of writing git hooks"},
					&cli.BoolFlag{Name: "print", Usage: "with --claude: print td's entries instead of writing them"},
				},
				Action: func(c *cli.Context) error {
					if _, err := args(c, 0, 0, "[--force] | --claude [--print]"); err != nil {
						return err
					}
					if c.Bool("claude") {
						return runHooksInstallClaude(&HooksInstallClaudeOptions{
							IO:    r.st,
							Force: c.Bool("force"),
							Print: c.Bool("print"),
							Open:  func() (*repo.Store, error) { return r.open(c) },
						})
					}
					if c.Bool("print") {
						return usagef("--print goes with --claude: td hooks install --claude --print")
					}
					s, err := r.open(c)
					if err != nil {
						return err
					}
					res, err := sessions.InstallHooks(s, sessions.HookOptions{Force: c.Bool("force")})
					if err != nil {
						return err
					}
					if r.st.json {
						return r.st.emitJSON(map[string]any{"hooks": res})
					}
					for _, h := range res {
						r.st.printf("%s: %s", h.Path, h.Action)
						if h.Backup != "" {
							r.st.printf(" (the old hook is kept as %s)", h.Backup)
						}
						r.st.printf("\n")
					}
					return nil
				},
			},
			{
				Name:      "prepare-commit-msg",
				Usage:     "run by the prepare-commit-msg hook: add a Td-Session trailer",
				ArgsUsage: "FILE [SOURCE [COMMIT]]",
				Description: `Adds "Td-Session: <id>" for the current session to the commit message in
FILE when git prepared one (SOURCE message or commit: git commit -m, -F,
--amend, -c) and it has no such trailer yet. A message still to be written
in the editor is left to the commit-msg hook; merges and squashes get none;
without a current session nothing is added.

Examples:
   td hooks prepare-commit-msg .git/COMMIT_EDITMSG message`,
				Action: func(c *cli.Context) error {
					a, err := args(c, 1, 3, "FILE [SOURCE [COMMIT]]")
					if err != nil {
						return err
					}
					source := ""
					if len(a) > 1 {
						source = a[1]
					}
					return r.trailerAction(c, func(s *repo.Store, se *repo.Session) (string, error) {
						return sessions.PrepareCommitMsg(s, se, a[0], source)
					})
				},
			},
			{
				Name:      "commit-msg",
				Usage:     "run by the commit-msg hook: add a Td-Session trailer to an edited message",
				ArgsUsage: "FILE",
				Description: `Adds "Td-Session: <id>" for the current session to the final commit
message in FILE, unless it is empty (git then aborts the commit), already
has the trailer, or concludes a merge or a squash.

Examples:
   td hooks commit-msg .git/COMMIT_EDITMSG`,
				Action: func(c *cli.Context) error {
					a, err := args(c, 1, 1, "FILE")
					if err != nil {
						return err
					}
					return r.trailerAction(c, func(s *repo.Store, se *repo.Session) (string, error) {
						return sessions.CommitMsg(s, se, a[0])
					})
				},
			},
		},
	}
}

// trailerAction runs a commit message hook for the current session, which
// may be nobody: then nothing is added. It prints nothing but --json, so a
// commit's output stays git's.
func (r *runner) trailerAction(c *cli.Context, add func(*repo.Store, *repo.Session) (string, error)) error {
	s, err := r.open(c)
	if err != nil {
		return err
	}
	se, err := r.currentSession(c, s)
	if err != nil {
		return err
	}
	id, err := add(s, se)
	if err != nil {
		return err
	}
	if r.st.json {
		return r.st.emitJSON(map[string]any{"session": id, "added": id != ""})
	}
	return nil
}
