// Package command is td's command line. Each command lives in the file
// named for it (td create in create.go, td session bind in
// session_bind.go, td todo done in todo_done.go) and has three parts: an
// Options struct with everything it was given, a constructor that only
// parses the command line into Options (a test replaces the run function
// and checks what was parsed), and a run function that opens the store,
// calls one use case of repo's packages and prints through streams.export,
// the one place that decides between JSON and text. td mcp fills the same
// Options and calls the same run functions (mcp_run.go).
//
// A new command: a file named for it with its Options, constructor and run
// function, a parse test, its registration in app's command list and its
// line in commandGroups, and a scenario in testscripts/. What it does
// belongs in a use case under repo/, never here; the words it prints, the
// td commands it suggests included, belong here.
package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tdproject/td/cmd/command/help"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// Version is td's version, printed by td --version.
const Version = "0.1.0"

// Main runs td as a process would: it reads os.Args, the real standard
// streams and the environment, and returns the exit status.
func Main() int {
	return Run(os.Args, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
}

// Exit runs td as the process's main and exits with its status: cmd/td's
// main, and a test binary started under the name td (StartedAsTD). td
// lives for milliseconds: collecting garbage four times less often saves
// time on large lists and costs a few megabytes at most; the heap is
// bounded all the same (repo.LimitHeap), so that a command that keeps
// much live collects before its garbage grows to four times that.
func Exit() {
	debug.SetGCPercent(400)
	repo.LimitHeap()
	os.Exit(Main())
}

// StartedAsTD reports whether the process was started under the name td,
// as scenario and stress tests start their own test binary to play td.
func StartedAsTD() bool {
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == "td"
}

// Run executes one td command line against the given streams and
// environment and returns the exit status: 0 success, 1 refused or failed,
// 2 usage.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return RunIn("", args, stdin, stdout, stderr, getenv)
}

// RunIn is Run as if td was started in dir: the repository is looked for
// from dir, and relative paths on the command line (--dir, file flags) are
// taken from it. An empty dir is the process's working directory. It lets
// a caller run td in a directory of its choosing without changing the
// process's working directory. Like Run, it is not safe for concurrent use:
// urfave/cli writes to the flag definitions some commands share.
func RunIn(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if v, asJSON := versionOnly(args); v {
		// td version's own run function, before the command tree is built.
		r := &runner{st: &streams{in: stdin, out: stdout, errOut: stderr, json: asJSON}, getenv: getenv}
		if err := r.runVersion(&VersionOptions{}); err != nil {
			return 1
		}
		return 0
	}
	st := &streams{in: stdin, out: stdout, errOut: stderr}
	colorOK := getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	st.tty = isTerminal(stdout)
	st.color = colorOK && st.tty
	st.errColor = colorOK && isTerminal(stderr)
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			st.json = true
		}
	}
	r := &runner{st: st, getenv: getenv, dir: dir}
	app := r.app()
	var failure error
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		if u := unknownFlag(err.Error(), globalFlags()); u != "" {
			return &usageError{u + " td help shows the usage"}
		}
		return &usageError{err.Error()}
	}
	app.CommandNotFound = func(c *cli.Context, name string) {
		cmds := app.Commands
		if c.Command != nil && c.Command.Name != "" && c.Command.Name != app.Name {
			cmds = c.Command.Subcommands
		}
		failure = unknownCommand(commandPath(c), name, cmds)
	}
	for _, c := range app.Commands {
		setUsageHandlers(c)
		r.recordRuns(c)
	}
	argv := reorderArgs(app, args)
	// urfave/cli adds --help only along with its own help command, which
	// td's replaces. Added after reordering, so --help stays where it was
	// typed: td COMMAND --help is the command's help, not td's.
	app.Flags = append(append([]cli.Flag{}, app.Flags...), cli.HelpFlag)
	err := app.Run(argv)
	if err == nil {
		err = failure
	}
	r.recordAction(err)
	if r.store != nil {
		for _, w := range r.store.Warnings() {
			st.warnf("%s", w)
		}
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "invalid value") {
			err = &usageError{err.Error()}
		}
		st.reportError(err)
		return exitCode(err)
	}
	return 0
}

// versionOnly reports whether the command line asks only for td's
// version (--version, -v or version, with or without --json), answered
// before the command tree is built so that it costs nothing but start-up,
// and whether JSON was asked for.
func versionOnly(args []string) (version, asJSON bool) {
	if len(args) < 2 || len(args) > 3 {
		return false, false
	}
	for _, a := range args[1:] {
		switch a {
		case "--version", "-v", "version":
			version = true
		case "--json", "--json=true":
			asJSON = true
		default:
			return false, false
		}
	}
	return version, version && asJSON
}

func setUsageHandlers(c *cli.Command) {
	c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		msg := err.Error() + ";"
		if u := unknownFlag(err.Error(), append(append([]cli.Flag{}, c.Flags...), globalFlags()...)); u != "" {
			msg = u
		}
		return &usageError{fmt.Sprintf("%s td %s --help shows the usage", msg, c.FullName())}
	}
	for _, sc := range c.Subcommands {
		setUsageHandlers(sc)
	}
}

// runner carries what one invocation shares between commands.
type runner struct {
	st     *streams
	getenv func(string) string
	// dir is the directory td runs in; empty is the process's.
	dir string
	// dirFlag is --dir as given to the command that runs, relative to dir.
	dirFlag string
	store   *repo.Store
	// actor is the session the command acted as, once resolved.
	actor *repo.Session
	// ran is the command line that ran, for the session's action record;
	// sessionFlag is its --session.
	ran, sessionFlag string
}

// unrecorded are the commands that do not count as a session's action:
// the lifecycle commands keep the state themselves, and introspection or
// plumbing says nothing about what the session did. A command that counts
// only sometimes (td guard from git's pre-commit hook, td onboard without
// --write) clears r.ran itself.
var unrecorded = map[string]bool{
	"session start": true, "session compact": true, "session stop": true, "session resume": true,
	"session error": true, "session show": true, "session list": true, "session use": true,
	"context": true, "whoami": true, "demo": true, "merge-driver": true, "version": true, "help": true,
	// Run by git or by an agent harness, not by the session itself.
	"hook claude": true, "hook codex": true, "hook gemini": true, "hook cursor": true, "hook copilot": true,
	"hook opencode": true, "hooks prepare-commit-msg": true, "hooks commit-msg": true,
}

// recordRuns wraps every action so the invocation knows which command ran.
func (r *runner) recordRuns(c *cli.Command) {
	if act := c.Action; act != nil {
		c.Action = func(ctx *cli.Context) error {
			path := commandPath(ctx)
			r.dirFlag = ctx.String("dir")
			if !unrecorded[path] {
				r.ran = actionLine(path, ctx.Args().Slice()...)
				r.sessionFlag = ctx.String("session")
			}
			return act(ctx)
		}
	}
	for _, sc := range c.Subcommands {
		r.recordRuns(sc)
	}
}

// actionLine is a command as a session's action record shows it: its
// path, then its arguments, quoted when empty or holding a space or a
// quote (as recordRuns writes a command line's).
func actionLine(path string, args ...string) string {
	words := []string{path}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'") {
			a = strconv.Quote(a)
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// recordAction notes the command in the acting session's runtime: its last
// actions and its time (spec section 8). Read-only commands count when a
// session was named (--session, TD_SESSION); a failure to record is a
// warning, never the command's failure.
func (r *runner) recordAction(err error) {
	if r.ran == "" || r.store == nil {
		return
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return
	}
	se := r.actor
	if se == nil {
		if r.sessionFlag == "" && r.getenv("TD_SESSION") == "" {
			return
		}
		var rerr error
		if se, _, rerr = r.store.CurrentSession(r.sessionFlag, false); rerr != nil || se == nil {
			return
		}
	}
	if rerr := sessions.RecordAction(r.store, se, r.ran, err != nil); rerr != nil {
		r.st.warnf("action not recorded: %v", rerr)
	}
}

// globalFlags are the flags every command takes. Each app gets its own:
// urfave/cli records on a flag whether it was set, so flags shared by two
// runs at once (td in a test process) would race.
func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print JSON (stable field names; errors as {\"error\":{\"code\",\"message\"}})"},
		&cli.StringFlag{Name: "session", Usage: "act as this session (default: $TD_SESSION, then the checkout's current session)"},
		&cli.StringFlag{Name: "dir", Aliases: []string{"C"}, Usage: "run as if td was started in `DIR`"},
	}
}

func (r *runner) app() *cli.App {
	app := &cli.App{
		Name:            "td",
		Usage:           "git-native issues and todos for people and coding agents",
		HideVersion:     true,
		Flags:           globalFlags(),
		Writer:          r.st.out,
		ErrWriter:       r.st.errOut,
		Reader:          r.st.in,
		Suggest:         true,
		HideHelpCommand: false,
		Description: `td keeps issues as markdown files with YAML frontmatter under .todos/,
committed with your code and reviewed in pull requests. Flags may come before
or after arguments; every command takes --json.

Start with:
   td init                      set up .todos/ in this git repository
   td create "Fix the login"    file an issue
   td list                      the open issues
   td session bind td-k3x       bind your session to an issue: its todos are your checklist
   td todo view                 the bound issue's acceptance criteria and steps
   td demo                      watch the whole story in a temporary repository`,
		DisableSliceFlagSeparator: true,
		Commands: slices.Concat([]*cli.Command{
			r.initCommand(nil),
			r.createCommand(nil),
			r.listCommand(nil),
			r.boardCommand(nil),
			r.searchCommand(nil),
			r.showCommand(nil),
			r.editCommand(nil),
			r.commentCommand(nil),
			r.commitCommand(nil),
			r.sessionCommand(),
			r.sendCommand(nil),
			r.heartbeatCommand(nil),
			r.reclaimCommand(nil),
			r.syncCommand(nil),
			r.promoteCommand(nil),
			r.contextCommand(nil),
			r.anchorCommand(),
			r.whoamiCommand(nil),
			r.todoCommand(),
			r.fmtCommand(nil),
			r.statusCommand(nil),
		}, r.workflowCommands(), []*cli.Command{
			r.reviewableCommand(nil),
			r.featureCommand(),
			r.operatorCommand(),
			r.securityCommand(nil),
			r.statsCommand(nil),
			r.auditCommand(),
			r.linkCommand(nil),
			r.unlinkCommand(nil),
			r.linksCommand(nil),
			r.readyCommand(nil),
		}, r.guardCommands(), []*cli.Command{
			r.diffCommand(nil),
			r.checkCommand(nil),
			r.logCommand(nil),
			r.serveCommand(nil),
			r.importCommand(),
			r.exportCommand(nil),
		}, r.harnessCommands(), r.mcpCommands(), []*cli.Command{
			r.demoCommand(nil),
			r.mergeDriverCommand(nil),
			r.resolveCommand(nil),
			r.doctorCommand(nil),
			r.versionCommand(nil),
			r.completionCommand(nil),
			r.completeCommand(),
			r.manCommand(nil),
		}),
	}
	app.Commands = append(app.Commands, r.helpCommand(nil))
	groupCommands(app)
	return app
}

// commandGroup is one heading of td help's command list: the commands
// under it and the help topic that explains them.
type commandGroup struct {
	Title    string
	Topic    string
	Names    []string
	Commands []*cli.Command
}

// Heading is the group's line in td help, and each command's CATEGORY:
// the title and where to read more.
func (g commandGroup) Heading() string {
	if g.Topic == "" {
		return g.Title
	}
	return g.Title + " (td help " + g.Topic + ")"
}

// commandGroups is the one table that sorts td's commands under the
// headings td help lists, in order, each with its help topic. The command
// constructors know nothing of it: groupCommands applies it to the built
// list. A command missing here is listed under "Other commands" and fails
// TestEveryCommandIsGrouped.
func commandGroups() []commandGroup {
	return []commandGroup{
		{Title: "Getting started", Names: []string{"init", "demo", "help", "version", "completion", "__complete", "man"}},
		{Title: "Issues", Topic: "format", Names: []string{"create", "list", "board", "search", "show", "edit", "comment"}},
		{Title: "Todos and criteria", Topic: "todos", Names: []string{"todo", "fmt"}},
		{Title: "Workflow and review", Topic: "policy", Names: []string{"start", "unstart", "review", "approve", "reject", "close", "reopen", "block", "unblock", "reviewable", "status"}},
		{Title: "Flags and audit", Topic: "policy", Names: []string{"feature", "operator", "security", "stats", "audit"}},
		{Title: "Links", Topic: "linking", Names: []string{"link", "unlink", "links", "ready"}},
		{Title: "Sessions", Topic: "sessions", Names: []string{"session", "send", "promote", "context", "anchor", "whoami", "guard", "hooks"}},
		{Title: "Claims", Topic: "claims", Names: []string{"heartbeat", "reclaim", "sync"}},
		{Title: "Git and pull requests", Topic: "merging", Names: []string{"commit", "diff", "check", "log", "merge-driver", "resolve", "doctor"}},
		{Title: "Pages for people", Topic: "pages", Names: []string{"serve"}},
		{Title: "Import and export", Topic: "importing", Names: []string{"import", "export"}},
		{Title: "Agent harnesses", Topic: "harnesses", Names: []string{"hook", "onboard", "mcp"}},
	}
}

// groupCommands sets each command's Category from commandGroups and gives
// the app help template the groups in order (urfave/cli sorts categories
// by name) and the help topics.
func groupCommands(app *cli.App) {
	byName := map[string]*cli.Command{}
	for _, c := range app.Commands {
		byName[c.Name] = c
	}
	groups := commandGroups()
	for i := range groups {
		for _, n := range groups[i].Names {
			if c, ok := byName[n]; ok {
				c.Category = groups[i].Heading()
				if !c.Hidden { // td __complete is the scripts', not a person's
					groups[i].Commands = append(groups[i].Commands, c)
				}
				delete(byName, n)
			}
		}
	}
	other := commandGroup{Title: "Other commands"}
	for _, c := range app.Commands {
		if byName[c.Name] == c {
			c.Category = other.Title
			other.Commands = append(other.Commands, c)
		}
	}
	if len(other.Commands) > 0 {
		groups = append(groups, other)
	}
	app.CustomAppHelpTemplate = appHelpTemplate
	app.Metadata = map[string]any{"groups": groups, "topics": help.Topics}
}

// now is td's clock. TD_NOW (RFC 3339) pins it, so scenarios can fix time.
func (r *runner) now() (func() time.Time, error) {
	v := r.getenv("TD_NOW")
	if v == "" {
		return time.Now, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, fmt.Errorf("TD_NOW=%q is not an RFC 3339 time such as 2026-11-21T10:04:11Z", v)
	}
	return func() time.Time { return t }, nil
}

func (r *runner) options() (repo.Options, error) {
	now, err := r.now()
	if err != nil {
		return repo.Options{}, err
	}
	opts := repo.Options{Now: now, Env: r.getenv}
	if isTerminal(r.st.errOut) {
		// The first command in a fresh clone reads every issue file to
		// build the cache: a person at a terminal sees how far it is once
		// it has taken a second.
		var p *progress
		opts.Progress = func(done, total int) {
			if p == nil {
				p = r.progress("Reading the issue files", 0)
			}
			p.update(done, total)
			if done == total {
				p.done()
				p = nil
			}
		}
	}
	return opts, nil
}

// runDir is the directory the running command acts in: its --dir, else
// the directory td runs in.
func (r *runner) runDir() string {
	if r.dirFlag != "" {
		return r.path(r.dirFlag)
	}
	return r.path(".")
}

// openStore finds the store for this invocation from the --dir the running
// command was given: what a run function calls, having no cli.Context.
func (r *runner) openStore() (*repo.Store, error) {
	if r.store != nil {
		return r.store, nil
	}
	opts, err := r.options()
	if err != nil {
		return nil, err
	}
	s, err := repo.Open(r.runDir(), opts)
	if err != nil {
		return nil, err
	}
	r.store = s
	return s, nil
}

// openSession finds the store and the session named by --session (""
// for the default), creating the operator's default session on first
// use: what a run function of a writing command calls.
func (r *runner) openSession(session string) (*repo.Store, *repo.Session, error) {
	s, err := r.openStore()
	if err != nil {
		return nil, nil, err
	}
	se, _, err := s.CurrentSession(session, true)
	r.actor = se
	return s, se, err
}

// readSession is openSession for a command that only reads: when nobody
// is acting yet it returns the session td would start at the first change
// (with no ID) and writes nothing.
func (r *runner) readSession(session string) (*repo.Store, *repo.Session, error) {
	s, err := r.openStore()
	if err != nil {
		return nil, nil, err
	}
	se, _, err := s.ReadingSession(session)
	if se != nil && se.ID != "" {
		r.actor = se
	}
	return s, se, err
}

// path resolves a path named on the command line against the directory td
// runs in.
func (r *runner) path(p string) string {
	if r.dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.dir, p)
}

// textOrFile returns inline text, or the content of the file named by the
// flag fileFlag ("-" is standard input). Giving both is a usage error;
// either names the two ways for the message.
func (r *runner) textOrFile(c *cli.Context, inline, fileFlag, either string) (string, error) {
	f := c.String(fileFlag)
	if f == "" {
		return inline, nil
	}
	if inline != "" {
		return "", usagef("give %s, not both", either)
	}
	return r.readFileArg(f)
}

// args checks the number of positional arguments.
func args(c *cli.Context, min, max int, usage string) ([]string, error) {
	a := c.Args().Slice()
	if sub := subcommands(c.Command); len(sub) > 0 && max >= 0 && len(a) > max {
		return nil, unknownCommand(commandPath(c), a[0], sub)
	}
	if len(a) < min || (max >= 0 && len(a) > max) {
		return nil, usagef("usage: td %s %s", commandPath(c), usage)
	}
	return a, nil
}

// subcommands are cmd's own subcommands, without the help command
// urfave/cli adds to every command.
func subcommands(cmd *cli.Command) []*cli.Command {
	var out []*cli.Command
	if cmd == nil {
		return nil
	}
	for _, sc := range cmd.Subcommands {
		if sc.Name != "help" {
			out = append(out, sc)
		}
	}
	return out
}

// commandPath is the command's full name as typed, "session bind" for a
// subcommand.
func commandPath(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != c.App.Name {
			names = append([]string{x.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// readFileArg returns the text of the file a flag names ("-" is standard
// input), up to the size of an issue file.
func (r *runner) readFileArg(name string) (string, error) {
	b, err := r.readInput(name, repo.MaxIssueFileSize)
	return string(b), err
}

// readInput reads a file named on the command line ("-" is standard input),
// refusing more than limit bytes rather than reading them.
func (r *runner) readInput(name string, limit int64) ([]byte, error) {
	src, what := r.st.in, "standard input"
	if name != "-" {
		f, err := os.Open(r.path(name))
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				pe.Path = name // as it was typed
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		defer f.Close()
		src, what = f, name
	}
	b, err := io.ReadAll(io.LimitReader(src, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over the %d byte limit", what, limit)
	}
	return b, nil
}
