package command

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/harness/claude"
	"github.com/urfave/cli/v2"
)

// hookCommand is td hook, run by an agent harness's hooks; td hook claude
// is Claude Code's.
func (r *runner) hookCommand() *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "run by an agent harness's hooks: the session lifecycle at the harness's own moments",
		Subcommands: []*cli.Command{r.hookClaudeCommand(nil), r.hookCodexCommand(nil),
			r.hookGeminiCommand(nil), r.hookCursorCommand(nil), r.hookCopilotCommand(nil),
			r.hookOpencodeCommand(nil)},
	}
}

// hookClaudeCommand is td hook claude. It parses its own flags, so that a
// mistake in them is one line on standard error and exit status 0, never
// a usage error the harness would see as a failure. runF, when not nil,
// replaces runHookClaude.
func (r *runner) hookClaudeCommand(runF func(*HookClaudeOptions) error) *cli.Command {
	return &cli.Command{
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
                          its context prefix; the payload's model is
                          recorded with the session
   SessionStart resume    td session resume: the context, with a resume
                          block after an hour away
   SessionStart compact   td session compact: the post-compaction reminder
   SessionStart clear     start over: a fresh context, binding kept
   SessionStart fork      the forked conversation goes on as this
                          checkout's last harness session, binding kept
   UserPromptSubmit       the claim's heartbeat; prints nothing
   PreToolUse             an agent's Bash call that runs td approve, td
                          close with an override, td session start without
                          --agent, td session use, td feature set|unset or
                          td operator add|rm is denied, and so is a project
                          agent's Write or Edit of td's own records (a
                          ledger, a session, the config), with what to do
                          instead
   PostToolUse            a response that reports a failure (is_error,
                          error, success false, a non-zero exit code) is
                          recorded as td session error; success records
                          nothing
   PostToolUseFailure     td session error for the failed call; when a stall
                          fires, its warning is added to the context
   PreCompact             the handoff: what was done, what is next, what is
                          open, on the bound issue's ledger
   SubagentStart          the subagent's own session starts; its context
                          goes back as the subagent's additionalContext
   SubagentStop           the subagent's session stops
   Stop                   td session stop; the last assistant message is
                          kept for the handoff
   StopFailure            the API error is a session error, the session
                          stops, and its claim's lease ends in 15 minutes
                          unless the conversation goes on
   SessionEnd             the handoff, td session stop, and the claim's
                          lease ends

Any event with agent_id acts as that subagent's own session.

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
			&cli.StringFlag{Name: "category", Value: string(domain.CategoryProject), Usage: "project or meta, for a session td starts"},
			&cli.StringFlag{Name: "format", Value: formatMarkdown, Usage: "markdown or text, for the context blocks"},
		},
		Action: func(c *cli.Context) (err error) {
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
			if perr == nil {
				o := &HookClaudeOptions{Event: claude.Event(h.event), Agent: domain.AgentPath(h.agent), Category: domain.Category(h.category), Format: h.format}
				if runF != nil {
					perr = runF(o)
				} else {
					perr = r.runHookClaude(o)
				}
			}
			if perr != nil {
				fmt.Fprintf(r.st.errOut, "td hook claude: %s\n", strings.ReplaceAll(perr.Error(), "\n", " "))
			}
			return nil
		},
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

// HookClaudeOptions are td hook claude's inputs: the event and flags td
// parsed itself. The payload comes on standard input.
type HookClaudeOptions struct {
	// Event is the event the hook's command names; "" takes the payload's.
	Event    claude.Event
	Agent    domain.AgentPath
	Category domain.Category
	// Format is formatMarkdown or formatText, for the context blocks.
	Format string
}

// runHookClaude reads the payload, has the claude package map the event
// onto the session lifecycle, and prints what the harness should add to
// the agent's context; nothing is printed when it fails. Its caller turns
// an error into one line on standard error, never a failure.
func (r *runner) runHookClaude(o *HookClaudeOptions) error {
	call, err := claude.ReadCall(r.st.in, o.Event)
	if err != nil {
		return err
	}
	if !call.Acts() {
		return nil // nothing to record, and no repository to open
	}
	s, err := r.openHarnessStore(call.Payload.Cwd, claude.SettingsFile)
	if err != nil {
		return err
	}
	out, err := claude.Handle(s, call, claude.Options{Agent: o.Agent, Category: o.Category})
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		return hookOutput(func() ([]byte, error) { return r.renderHookClaude(o, out, true) })
	}, func() error {
		b, err := r.renderHookClaude(o, out, false)
		if err != nil {
			return err
		}
		_, err = r.st.jsonOut().Write(b)
		return err
	})
}

// hookOutput renders what td hook claude prints with --json, written as
// it is: Claude Code's own JSON form, not td's.
type hookOutput func() ([]byte, error)

// WriteJSON renders the output and writes it.
func (h hookOutput) WriteJSON(w io.Writer) error {
	b, err := h()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// renderHookClaude is what td hook claude prints for an outcome:
// SessionStart's context block (markdown or text, or asJSON Claude Code's
// additionalContext form), preceded by how to name the session when
// TD_SESSION could not be exported; the stalls a failed tool call set off,
// in that form; otherwise nothing.
func (r *runner) renderHookClaude(o *HookClaudeOptions, out *claude.Outcome, asJSON bool) ([]byte, error) {
	switch {
	case out.Deny != "":
		return claude.DenyToolUse("td: " + out.Deny)
	case out.Context != nil:
		w := &blockWriter{md: o.Format == formatMarkdown}
		envNote := ""
		switch {
		case out.Event == claude.SubagentStart:
			id := out.Session.ID
			w.line("Your own td session is %s; the shell's TD_SESSION is your root agent's: run td as TD_SESSION=%s td ..., or pass --session %s.", id, id, id)
			w.line("")
		case out.EnvFile == "":
			envNote = "the harness named no env file"
		case out.EnvErr != nil:
			fmt.Fprintf(r.st.errOut, "td hook claude: %v; the context tells the agent to name its session itself\n", out.EnvErr)
			envNote = "td could not write the harness's env file"
		}
		if envNote != "" {
			id := out.Session.ID
			w.line("TD_SESSION is not set for your shell commands (%s): run td as TD_SESSION=%s td ..., or pass --session %s.", envNote, id, id)
			w.line("")
		}
		writeContext(w, out.Context)
		if asJSON || out.Event == claude.SubagentStart {
			// A subagent's context reaches it only in this form.
			return claude.AdditionalContext(out.Event, w.String())
		}
		return []byte(w.String()), nil
	case len(out.Stalls) > 0:
		var lines []string
		for _, st := range out.Stalls {
			lines = append(lines, "td: stalled: "+st.Message)
		}
		return claude.AdditionalContext(out.Event, strings.Join(lines, "\n"))
	}
	return nil, nil
}

// openHarnessStore opens the repository the hook runs in: -C when given,
// else the payload's cwd, else td's own directory; config names the
// harness file that runs td's hooks, for the message when there is none.
func (r *runner) openHarnessStore(cwd, config string) (*repo.Store, error) {
	dir := r.dirFlag
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
			return nil, fmt.Errorf("%s is not in a td repository (no .todos here or above), so there is no session to keep; run td init there, or remove td's hooks from %s", abs, config)
		}
		return nil, err
	}
	r.store = s
	return s, nil
}
