// Package mcpserver serves td's todo and issue commands to agents as Model
// Context Protocol tools, over standard input and output. A tool call runs
// the same td command in this process, through a Runner, so the rules,
// refusals and output are the CLI's; td mcp's Runner fills each command's
// Options and calls its run function, building no command line. td speaks
// the protocol itself (JSON-RPC 2.0, one message a line) rather than
// through the official Go SDK, which, linked into td, adds 3.3 MB and
// about 0.35 ms to the start of every td command (td help performance).
package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Options say where and as whom the server acts, as td's global flags and
// environment do for a command, and how it runs a tool call.
type Options struct {
	// Runner runs the tool calls: package command's, which calls td's
	// commands in this process. When it is nil, Run does.
	Runner Runner
	// Session is the session to act as (--session); empty means td's
	// usual resolution: $TD_SESSION, the checkout's current session, the
	// operator's default session. Only Run uses it: a Runner knows its
	// session.
	Session string
	// Dir is the directory to act in (--dir); empty means the working
	// directory. Only Run uses it.
	Dir string
	// Getenv is the environment every command Run runs sees.
	Getenv func(string) string
	// Run, when Runner is nil, runs each call as a td command line (the
	// one the call stands for, as commandLine builds it) and returns its
	// exit status, as command.Run does.
	Run func(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int
	// Version is td's version, which the server reports to the client.
	Version string
}

// Server is an MCP server bound to one td session. Every tool call is
// one td command, run by the Runner as that session.
type Server struct {
	runner  Runner
	version string
	// tools are the tools the session may call, in the order tools/list
	// gives them.
	tools []*tool
	// Session is the session every call acts as.
	Session SessionInfo
}

// SessionInfo is who the server acts as, as td whoami --json reports it.
type SessionInfo struct {
	ID            string `json:"id"`
	Agent         string `json:"agent"`
	EffectiveRole string `json:"effective_role"`
}

// Root reports whether the session may use the issue tool: every session
// but a subagent's (an agent path deeper than one segment), which sees
// only todo.
func (si SessionInfo) Root() bool { return !strings.Contains(si.Agent, ".") }

// StartError is td's refusal to serve, as td whoami prints it: its
// warnings and its error line, which td mcp prints as they are.
type StartError struct {
	// Printed is what td whoami writes on stderr, ending in "error: ...".
	Printed string
}

// Error is the error line without its "error: " prefix.
func (e *StartError) Error() string {
	msg := strings.TrimSpace(e.Printed)
	if i := strings.Index("\n"+msg, "\nerror: "); i >= 0 {
		msg = msg[i+len("error: "):]
	}
	return msg
}

// New finds the session the server will act as, once, so that every call
// acts as the same one. Outside a td repository or for a session td does
// not know it fails with a *StartError carrying td's own error line.
func New(o Options) (*Server, error) {
	runner := o.Runner
	if runner == nil {
		if o.Run == nil {
			return nil, errors.New("mcpserver.Options has neither a Runner nor Run: the server needs one to run tool calls")
		}
		runner = newLineRunner(o)
	}
	s := &Server{runner: runner, version: o.Version}
	who, err := runner.Session()
	if err != nil {
		return nil, err
	}
	s.Session = who
	todo, err := todoTool()
	if err != nil {
		return nil, err
	}
	s.tools = []*tool{todo}
	if s.Session.Root() {
		issue, err := issueTool()
		if err != nil {
			return nil, err
		}
		s.tools = append(s.tools, issue)
	}
	return s, nil
}

// Tools are the tools the server offers its session: todo, and issue for
// a root session.
func (s *Server) Tools() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name
	}
	return names
}

// instructions are what the server tells the agent at initialize.
func (s *Server) instructions() string {
	if s.Session.Root() {
		return instructions
	}
	return subagentInstructions
}

const instructions = `td keeps this project's issues as files in the repository. The todo tool is
your working checklist, stored in the issue your session is bound to: plan
with set, keep one item in progress with start, mark items done as you go,
and add notes. Items are named by their text. When the last acceptance
criterion is done, ask for sign-off (issue tool, action review). Every
result shows the whole list.`

const subagentInstructions = `td keeps this project's issues as files in the repository. You are a
subagent: the todo tool shows the checklist your root agent works from
(action view), and you propose items for it (action propose); the root
agent accepts or rejects them. Items are named by their text.`

// commandLine is a tool's input as a td command line (lineRunner's, and
// the tests'; td mcp builds none): the arguments after
// the program name and global flags, what the command reads on standard
// input (empty for most), and whether the caller asked for --json output.
type commandLine struct {
	args   []string
	stdin  string
	asJSON bool
}

// toolResult is a tools/call result: what the command printed, and
// whether it refused or failed.
type toolResult struct {
	Content []textContent `json:"content"`
	// StructuredContent is td's --json output when the call asked for it
	// and it is an object.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError"`
}

// textContent is a text block of a tool result.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// textResult is a tool result of one text block.
func textResult(isError bool, text string) *toolResult {
	return &toolResult{IsError: isError, Content: []textContent{{Type: "text", Text: text}}}
}

// run runs one tool call through the Runner and turns what it printed
// into a tool result: stdout as the first text block, stderr (warnings,
// the error line) as the next when there is any; an error result exactly
// when the command failed.
func (s *Server) run(tc toolCall) (res *toolResult) {
	defer func() {
		// A fault in td must not end the server: the agent sees a failed
		// call and may go on.
		if p := recover(); p != nil {
			res = textResult(true, fmt.Sprintf("error: td failed on this call (%v); the server is still running, and %s on the command line shows the state\n", p, tc.state))
		}
	}()
	out := tc.run(s.runner)
	res = &toolResult{IsError: out.Failed}
	for _, b := range [][]byte{out.Stdout, out.Stderr} {
		if len(b) > 0 {
			res.Content = append(res.Content, textContent{Type: "text", Text: string(b)})
		}
	}
	if len(res.Content) == 0 {
		res.Content = []textContent{{Type: "text", Text: ""}}
	}
	if tc.asJSON {
		// Structured content is an object for every MCP client; td list's
		// array stays in the text.
		var obj map[string]json.RawMessage
		if json.Unmarshal(out.Stdout, &obj) == nil {
			res.StructuredContent = json.RawMessage(bytes.TrimSpace(out.Stdout))
		}
	}
	return res
}

// insertBeforeDashes puts flag before the "--" that ends the flags, or at
// the end when there is none.
func insertBeforeDashes(args []string, flag string) []string {
	for i, a := range args {
		if a == "--" {
			return append(append(append([]string{}, args[:i]...), flag), args[i:]...)
		}
	}
	return append(args, flag)
}
