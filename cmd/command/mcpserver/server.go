// Package mcpserver serves td's todo and issue commands to agents as Model
// Context Protocol tools, over standard input and output. A tool call runs
// the same td command line in this process, so the rules, refusals and
// output are the CLI's. td speaks the protocol itself (JSON-RPC 2.0, one
// message a line) rather than through an MCP library: the library and the
// network stack it brings would slow every td start, and td mcp is part of
// the td binary.
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
// environment do for a command, and how it runs a command.
type Options struct {
	// Session is the session to act as (--session); empty means td's
	// usual resolution: $TD_SESSION, the checkout's current session, the
	// operator's default session.
	Session string
	// Dir is the directory to act in (--dir); empty means the working
	// directory.
	Dir string
	// Getenv is the environment every command sees.
	Getenv func(string) string
	// Run runs one td command line in this process and returns its exit
	// status: command.Run. It is passed in, rather than imported, so that
	// package command can offer td mcp.
	Run func(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int
	// Version is td's version, which the server reports to the client.
	Version string
}

// Server is an MCP server bound to one td session. Every tool call becomes
// one td command line, run in this process as that session.
type Server struct {
	// base is the start of every command line: the program name and the
	// global flags that pin the session and the directory.
	base    []string
	getenv  func(string) string
	runTD   func(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int
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

// StartError is td's refusal to serve, as td whoami printed it: its
// warnings and its error line, which td mcp prints as they are.
type StartError struct {
	// Printed is what td whoami wrote on stderr, ending in "error: ...".
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
// acts as the same one: td whoami, run in this process. Outside a td
// repository or for a session td does not know it fails with a
// *StartError carrying td's own error line.
func New(o Options) (*Server, error) {
	if o.Run == nil {
		return nil, errors.New("mcpserver.Options.Run is nil: the server needs td's command.Run to run tool calls")
	}
	s := &Server{base: []string{"td"}, getenv: o.Getenv, runTD: o.Run, version: o.Version}
	if o.Getenv == nil {
		s.getenv = func(string) string { return "" }
	}
	if o.Session != "" {
		s.base = append(s.base, "--session="+o.Session)
	}
	if o.Dir != "" {
		s.base = append(s.base, "--dir="+o.Dir)
	}
	var out, errOut bytes.Buffer
	code := s.runTD(append(append([]string{}, s.base...), "whoami", "--json"), strings.NewReader(""), &out, &errOut, s.getenv)
	var who struct {
		Session SessionInfo `json:"session"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	err := json.Unmarshal(out.Bytes(), &who)
	if code != 0 && who.Error.Message != "" {
		// What td whoami prints without --json: its warnings, then the
		// error line.
		return nil, &StartError{Printed: errOut.String() + "error: " + who.Error.Message + "\n"}
	}
	if err != nil || who.Session.ID == "" {
		return nil, fmt.Errorf("td whoami printed no session (%v); run td whoami to see why", err)
	}
	s.Session = who.Session
	if o.Session == "" {
		s.base = append(s.base[:1], append([]string{"--session=" + who.Session.ID}, s.base[1:]...)...)
	}
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

// commandLine is a tool's input as a td command line: the arguments after
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

// run executes one td command line as the server's session and turns what
// it printed into a tool result: stdout as the first text block, stderr
// (warnings, the error line) as the next when there is any; an error
// result exactly when the command's exit status is not 0.
func (s *Server) run(cl commandLine) (res *toolResult) {
	args := append(append([]string{}, s.base...), cl.args...)
	if cl.asJSON {
		args = insertBeforeDashes(args, "--json")
	}
	defer func() {
		// A fault in td must not end the server: the agent sees a failed
		// call and may go on.
		if p := recover(); p != nil {
			res = textResult(true, fmt.Sprintf("error: td failed on this call (%v); the server is still running, and td %s on the command line shows the state\n", p, strings.Join(cl.args, " ")))
		}
	}()
	var stdout, stderr bytes.Buffer
	code := s.runTD(args, strings.NewReader(cl.stdin), &stdout, &stderr, s.getenv)
	res = &toolResult{IsError: code != 0}
	for _, b := range []*bytes.Buffer{&stdout, &stderr} {
		if b.Len() > 0 {
			res.Content = append(res.Content, textContent{Type: "text", Text: b.String()})
		}
	}
	if len(res.Content) == 0 {
		res.Content = []textContent{{Type: "text", Text: ""}}
	}
	if cl.asJSON {
		// Structured content is an object for every MCP client; td list's
		// array stays in the text.
		var obj map[string]json.RawMessage
		if json.Unmarshal(stdout.Bytes(), &obj) == nil {
			res.StructuredContent = json.RawMessage(bytes.TrimSpace(stdout.Bytes()))
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
