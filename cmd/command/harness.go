package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// harnessCommands are td hook and td onboard: td's session lifecycle mapped
// onto an agent harness's own events, and the text that tells an agent how
// to use td.
func (r *runner) harnessCommands() []*cli.Command {
	return []*cli.Command{r.hookCommand(), r.onboardCommand()}
}

// Claude Code's hook events td acts on.
const (
	claudeSessionStart       = "SessionStart"
	claudePostToolUse        = "PostToolUse"
	claudePostToolUseFailure = "PostToolUseFailure"
	claudeStop               = "Stop"
	claudeSessionEnd         = "SessionEnd"
	claudePreCompact         = "PreCompact"
)

// maxHookPayload bounds the payload td reads: a tool response carries the
// tool's whole output, so it can be large, but not without limit.
const maxHookPayload = 32 << 20

func (r *runner) hookCommand() *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "run by an agent harness's hooks: the session lifecycle at the harness's own moments",
		Subcommands: []*cli.Command{{
			Name:      "claude",
			Usage:     "handle one Claude Code hook event (its JSON payload on standard input)",
			ArgsUsage: "[EVENT]",
			Description: `Claude Code runs its hooks with a JSON payload on standard input (session_id,
cwd, source, tool_name, tool_response...) and adds what they print to the
agent's context. td hook claude maps each event onto td's session lifecycle.
Each Claude Code conversation (its session_id) acts as one td agent session
(--agent, default primary; --category, default project), kept in
.todos/local; td runs in the payload's cwd, as with -C.

   SessionStart startup   start the session (or take the agent session
                          $TD_SESSION names, as td send made it) and print
                          its context prefix
   SessionStart resume    td session resume: the context, with a resume
                          block after an hour away
   SessionStart compact   td session compact: the post-compaction reminder
   SessionStart clear     start over: a fresh context, binding kept
   PostToolUse            a response that reports a failure (is_error,
                          error, success false, a non-zero exit code) is
                          recorded as td session error; success records
                          nothing
   PostToolUseFailure     td session error for the failed call; when a stall
                          fires, its warning is added to the context
   Stop, SessionEnd       td session stop
   PreCompact             nothing: the reminder comes after the summary

SessionStart writes "export TD_SESSION=<id>" to the file $CLAUDE_ENV_FILE
names, so the agent's shell commands act as its session, and prints the
context as markdown (--format text for plain text; --json for Claude Code's
{"hookSpecificOutput": ...} form). Tool events print that JSON form, and
only when there is something to add. A resumed or cleared conversation with
a session_id td has not seen continues this checkout's last harness session.

td hook claude never fails the harness: on any error it prints nothing on
standard output, one line on standard error, and exits 0. td hooks install
--claude adds the hooks to .claude/settings.json.

Examples:
   td hook claude SessionStart < payload.json
   echo '{"session_id":"abc","hook_event_name":"Stop","cwd":"."}' | td hook claude
   td hook claude SessionStart --agent primary --category meta < payload.json`,
			SkipFlagParsing: true,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "agent", Value: "primary", Usage: "the agent path of a session td starts for the harness"},
				&cli.StringFlag{Name: "category", Value: repo.CategoryProject, Usage: "project or meta, for a session td starts"},
				&cli.StringFlag{Name: "format", Value: formatMarkdown, Usage: "markdown or text, for the context blocks"},
			},
			Action: r.hookClaudeAction,
		}},
	}
}

// hookArgs are td hook claude's own flags, parsed by td: a mistake in them
// must not become a usage error, which the harness would see as a failure.
type hookArgs struct {
	event, agent, category, format string
	help                           bool
}

func parseHookArgs(a []string) (hookArgs, error) {
	h := hookArgs{format: formatMarkdown}
	for i := 0; i < len(a); i++ {
		arg := a[i]
		if arg == "--" {
			continue
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			if h.event != "" {
				return h, fmt.Errorf("one event at a time: got %s and %s", h.event, arg)
			}
			h.event = arg
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		var dst *string
		switch name {
		case "h", "help":
			h.help = true
			continue
		case "agent":
			dst = &h.agent
		case "category":
			dst = &h.category
		case "format":
			dst = &h.format
		default:
			return h, fmt.Errorf("unknown flag %s; td hook claude --help lists the flags", arg)
		}
		if !hasValue {
			if i+1 >= len(a) {
				return h, fmt.Errorf("%s needs a value", arg)
			}
			i++
			value = a[i]
		}
		*dst = value
	}
	if h.format != formatText && h.format != formatMarkdown {
		return h, fmt.Errorf("--format %q must be text or markdown", h.format)
	}
	return h, nil
}

// claudePayload is the part of a Claude Code hook payload td reads.
type claudePayload struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	Source        string          `json:"source"`
	AgentType     string          `json:"agent_type"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Error         json.RawMessage `json:"error"`
	IsInterrupt   bool            `json:"is_interrupt"`
}

// hookClaudeAction runs one hook event. Whatever happens, the exit status
// is 0 and standard output holds only what the harness should add to the
// agent's context; a failure is one line on standard error.
func (r *runner) hookClaudeAction(c *cli.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(r.st.errOut, "td hook claude: internal error: %v; please report it\n", p)
		}
		err = nil
	}()
	h, perr := parseHookArgs(c.Args().Slice())
	if perr == nil && h.help {
		return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name)
	}
	var out []byte
	if perr == nil {
		out, perr = r.hookClaude(c, h)
	}
	if perr != nil {
		fmt.Fprintf(r.st.errOut, "td hook claude: %s\n", strings.ReplaceAll(perr.Error(), "\n", " "))
		return nil
	}
	r.st.out.Write(out)
	return nil
}

// hookClaude reads the payload, finds the session and returns what to
// print.
func (r *runner) hookClaude(c *cli.Context, h hookArgs) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r.st.in, maxHookPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read the hook payload: %w", err)
	}
	if len(raw) > maxHookPayload {
		return nil, fmt.Errorf("the hook payload is over %d bytes; nothing recorded", maxHookPayload)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("no hook payload on standard input; Claude Code passes one as JSON")
	}
	var p claudePayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, payloadError(err)
	}
	event := h.event
	switch {
	case event == "":
		event = p.HookEventName
	case p.HookEventName != "" && p.HookEventName != event:
		return nil, fmt.Errorf("the command names the event %s but the payload is for %s; fix the hook's command in .claude/settings.json", event, p.HookEventName)
	}
	switch event {
	case "":
		return nil, errors.New("no event: name it (td hook claude SessionStart) or pass hook_event_name in the payload")
	case claudeSessionStart, claudeStop, claudeSessionEnd, claudePostToolUse, claudePostToolUseFailure:
	case claudePreCompact:
		return nil, nil
	default:
		return nil, fmt.Errorf("td does not handle the event %s; it handles SessionStart, PostToolUse, PostToolUseFailure, Stop and SessionEnd (td hooks install --claude --print shows the entries)", event)
	}
	// A tool call that worked is not a td action: nothing to record, and
	// nothing to open.
	var failure *repo.ToolFailure
	switch event {
	case claudePostToolUse:
		msg, failed := repo.ToolResponseFailure(p.ToolResponse)
		if !failed {
			return nil, nil
		}
		failure = &repo.ToolFailure{Tool: p.ToolName, Error: msg}
	case claudePostToolUseFailure:
		if p.IsInterrupt {
			return nil, nil
		}
		failure = &repo.ToolFailure{Tool: p.ToolName, Error: repo.ErrorText(p.Error)}
	}
	s, err := r.openHarnessStore(c, p.Cwd)
	if err != nil {
		return nil, err
	}
	o := repo.HarnessOptions{Harness: repo.HarnessClaude, ID: p.SessionID, Agent: h.agent, Category: h.category}
	if o.Agent == "" {
		if at := strings.ToLower(strings.TrimSpace(p.AgentType)); at != "" && repo.ValidAgentPath(at) && !strings.Contains(at, ".") {
			o.Agent = at
		}
	}
	switch event {
	case claudeSessionStart:
		return r.claudeSessionStart(s, o, p.Source, h)
	case claudeStop, claudeSessionEnd:
		res, err := s.HarnessSession(o)
		if err != nil || res == nil {
			return nil, err // a conversation td never started has nothing to stop
		}
		_, err = s.Stop(res.Session)
		return nil, err
	}
	o.Create = true
	res, err := s.HarnessSession(o)
	if err != nil {
		return nil, err
	}
	failure.Target = s.ToolTarget(p.ToolInput)
	rep, err := s.RecordToolFailure(res.Session, *failure)
	if err != nil || len(rep.Stalls) == 0 {
		return nil, err
	}
	var lines []string
	for _, st := range rep.Stalls {
		lines = append(lines, "td: stalled: "+st.Message)
	}
	return claudeContextJSON(event, strings.Join(lines, "\n"))
}

// payloadError says what is wrong with a payload td could not decode.
func payloadError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("the hook payload is not JSON (%v at byte %d); nothing recorded", syn, syn.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("the hook payload's %s is a JSON %s, where Claude Code sends a %s; nothing recorded", typ.Field, typ.Value, jsonKind(typ.Type.Kind().String()))
	}
	return errors.New("the hook payload is not the JSON object Claude Code sends; nothing recorded")
}

// jsonKind names a Go kind the way JSON does.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "list"
	}
	return "number"
}

// openHarnessStore opens the repository the hook runs in: -C when given,
// else the payload's cwd, else td's own directory.
func (r *runner) openHarnessStore(c *cli.Context, cwd string) (*repo.Store, error) {
	dir := c.String("dir")
	if dir == "" {
		dir = cwd
	}
	if dir == "" {
		dir = "."
	}
	dir = r.path(dir)
	opts, err := r.options()
	if err != nil {
		return nil, err
	}
	s, err := repo.Open(dir, opts)
	if err != nil {
		if repo.CodeOf(err) == repo.CodeNotInitialized {
			abs, _ := filepath.Abs(dir)
			return nil, fmt.Errorf("%s is not in a td repository (no .todos here or above), so there is no session to keep; run td init there, or remove td's hooks from .claude/settings.json", abs)
		}
		return nil, err
	}
	r.store = s
	return s, nil
}

// claudeSessionStart maps SessionStart's source onto the lifecycle and
// returns the context block to add.
func (r *runner) claudeSessionStart(s *repo.Store, o repo.HarnessOptions, source string, h hookArgs) ([]byte, error) {
	o.Create = true
	o.Adopt = source == "resume" || source == "clear"
	res, err := s.HarnessSession(o)
	if err != nil {
		return nil, err
	}
	se := res.Session
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return nil, err
	}
	fresh := res.How == repo.HarnessStarted || rt.State == "" || rt.State == repo.StateBeginning
	var ctx *repo.Context
	switch {
	case source == "compact":
		ctx, err = s.Compact(se)
	case fresh:
		ctx, err = s.SessionContext(se, repo.ContextStart)
	case source == "clear":
		ctx, err = s.Restart(se)
	default: // startup of a conversation seen before, resume
		ctx, err = s.Resume(se)
	}
	if err != nil {
		return nil, err
	}
	w := &blockWriter{md: h.format == formatMarkdown}
	envNote := ""
	if f := r.getenv("CLAUDE_ENV_FILE"); f == "" {
		envNote = "the harness named no env file"
	} else if err := repo.SetEnvFileVar(f, "TD_SESSION", se.ID); err != nil {
		fmt.Fprintf(r.st.errOut, "td hook claude: %v; the context tells the agent to name its session itself\n", err)
		envNote = "td could not write the harness's env file"
	}
	if envNote != "" {
		w.line("TD_SESSION is not set for your shell commands (%s): run td as TD_SESSION=%s td ..., or pass --session %s.", envNote, se.ID, se.ID)
		w.line("")
	}
	writeContext(w, ctx)
	if r.st.json {
		return claudeContextJSON(claudeSessionStart, w.String())
	}
	return []byte(w.String()), nil
}

// claudeContextJSON is Claude Code's form for context a hook adds.
func claudeContextJSON(event, text string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	err := enc.Encode(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{event, text}})
	return b.Bytes(), err
}

// installClaudeHooks is td hooks install --claude [--print].
func (r *runner) installClaudeHooks(c *cli.Context) error {
	if c.Bool("force") {
		return usagef("--force replaces git hooks; .claude/settings.json is merged, never replaced, so td hooks install --claude needs no --force")
	}
	if c.Bool("print") {
		r.st.printf("%s", repo.ClaudeHooksSettings())
		return nil
	}
	s, err := r.open(c)
	if err != nil {
		return err
	}
	res, err := s.InstallClaudeHooks()
	if err != nil {
		return err
	}
	if r.st.json {
		return r.st.emitJSON(res)
	}
	r.st.printf("%s: %s\n", res.Path, res.Action)
	for _, e := range res.Events {
		r.st.printf("  %s: %s (%s)\n", e.Event, e.Action, e.Command)
	}
	return nil
}

func (r *runner) onboardCommand() *cli.Command {
	return &cli.Command{
		Name:      "onboard",
		Usage:     "print the block that tells an agent how to use td, for AGENTS.md or CLAUDE.md",
		ArgsUsage: "[--check [FILE...] | --write FILE]",
		Description: fmt.Sprintf(`Prints a short markdown block, between <!-- td:onboard vN --> and
<!-- /td:onboard --> markers, telling an agent how to work with td: its
session and binding, todo commands by text, steps versus acceptance
criteria, sign-off. This td writes version %d.

--check reads the files named (by default AGENTS.md and CLAUDE.md at the
repository root, those that exist) and exits 1 naming each whose block is
missing, older, or edited by hand; a block a newer td wrote passes. --write
puts the current block into FILE: in place of the block already there, or
at the end, or as a new file; the rest of the file is untouched.

Examples:
   td onboard >> AGENTS.md
   td onboard --write AGENTS.md
   td onboard --check
   td onboard --check docs/agents.md --json`, repo.OnboardVersion),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "check the block in FILEs (default: AGENTS.md and CLAUDE.md)"},
			&cli.StringFlag{Name: "write", Usage: "put the current block into `FILE`"},
		},
		Action: func(c *cli.Context) error {
			files := c.Args().Slice()
			write := c.String("write")
			if write == "" {
				r.ran = "" // reading td's own text says nothing about the session's work
			}
			switch {
			case c.Bool("check") && write != "":
				return usagef("give --check or --write, not both; td onboard --help shows the usage")
			case write != "":
				if len(files) > 0 {
					return usagef("usage: td onboard --write FILE (one file)")
				}
				return r.onboardWrite(c, write)
			case c.Bool("check"):
				return r.onboardCheck(c, files)
			case len(files) > 0:
				return usagef("usage: td onboard [--check [FILE...] | --write FILE]")
			}
			if r.st.json {
				return r.st.emitJSON(struct {
					Version int    `json:"version"`
					Block   string `json:"block"`
				}{repo.OnboardVersion, repo.OnboardBlock()})
			}
			r.st.printf("%s", repo.OnboardBlock())
			return nil
		},
	}
}

// onboardPath resolves a file named on the command line against -C.
func (r *runner) onboardPath(c *cli.Context, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(r.workDir(c), name)
}

func (r *runner) onboardWrite(c *cli.Context, name string) error {
	before, err := repo.WriteOnboard(r.onboardPath(c, name))
	if err != nil {
		return err
	}
	before.Path = name
	if r.st.json {
		return r.st.emitJSON(struct {
			Path          string `json:"path"`
			Before        string `json:"before"`
			BeforeVersion int    `json:"before_version"`
			Version       int    `json:"version"`
		}{name, before.Status, before.Version, repo.OnboardVersion})
	}
	v := repo.OnboardVersion
	switch before.Status {
	case repo.OnboardCurrent:
		r.st.printf("%s: the td onboard block is current (v%d); nothing to do.\n", name, v)
	case repo.OnboardNoFile:
		r.st.printf("%s: created with the td onboard block (v%d).\n", name, v)
	case repo.OnboardMissing:
		r.st.printf("%s: added the td onboard block (v%d) at the end.\n", name, v)
	case repo.OnboardEdited:
		r.st.printf("%s: restored the td onboard block (v%d); the hand edits inside its markers are gone.\n", name, v)
	default:
		r.st.printf("%s: replaced the td onboard block v%d with v%d.\n", name, before.Version, v)
	}
	return nil
}

func (r *runner) onboardCheck(c *cli.Context, names []string) error {
	if len(names) == 0 {
		root := r.workDir(c)
		if s, err := r.open(c); err == nil {
			root = s.Root
		}
		for _, n := range []string{"AGENTS.md", "CLAUDE.md"} {
			if ck, err := repo.CheckOnboard(filepath.Join(root, n)); err == nil && ck.Status != repo.OnboardNoFile {
				names = append(names, filepath.Join(root, n))
			}
		}
		if len(names) == 0 {
			return &repo.Error{Code: repo.CodeNotFound, Msg: "neither AGENTS.md nor CLAUDE.md is at the repository root; td onboard --write AGENTS.md adds the block, or name the file to check"}
		}
		// Shown relative to where td was asked from, as a path typed there.
		if wd, err := filepath.Abs(r.workDir(c)); err == nil {
			for i, n := range names {
				if rel, err := filepath.Rel(wd, n); err == nil {
					names[i] = rel
				}
			}
		}
	}
	var checks []repo.OnboardCheck
	bad := 0
	for _, n := range names {
		ck, err := repo.CheckOnboard(r.onboardPath(c, n))
		if err != nil {
			return err
		}
		ck.Path = n
		checks = append(checks, ck)
		if !ck.OK() {
			bad++
		}
	}
	if r.st.json {
		if err := r.st.emitJSON(struct {
			Version int                 `json:"version"`
			OK      bool                `json:"ok"`
			Files   []repo.OnboardCheck `json:"files"`
		}{repo.OnboardVersion, bad == 0, checks}); err != nil {
			return err
		}
		if bad > 0 {
			return silentFailure{}
		}
		return nil
	}
	v := repo.OnboardVersion
	for _, ck := range checks {
		switch ck.Status {
		case repo.OnboardCurrent:
			r.st.printf("%s: current (v%d)\n", ck.Path, v)
		case repo.OnboardNewer:
			r.st.printf("%s: written by a newer td (v%d; this td writes v%d)\n", ck.Path, ck.Version, v)
		case repo.OnboardStale:
			r.st.printf("%s: stale: its block is v%d, td's is v%d; td onboard --write %s replaces it\n", ck.Path, ck.Version, v, ck.Path)
		case repo.OnboardEdited:
			r.st.printf("%s: edited: its v%d block differs from td's; td onboard --write %s restores it\n", ck.Path, ck.Version, ck.Path)
		case repo.OnboardMissing:
			r.st.printf("%s: no td onboard block; td onboard --write %s adds one\n", ck.Path, ck.Path)
		case repo.OnboardNoFile:
			r.st.printf("%s: no such file; td onboard --write %s creates it\n", ck.Path, ck.Path)
		}
	}
	if bad > 0 {
		return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%d of %d %s lack the current td onboard block (v%d); td onboard --write FILE puts it in",
			bad, len(checks), pluralWord(len(checks), "file", "files"), v)}
	}
	return nil
}
