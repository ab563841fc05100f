// Package mcpserver serves td's todo and issue commands to agents as Model
// Context Protocol tools. A tool call runs the same td command line in this
// process (command.Run), so the rules, refusals and output are the CLI's.
// It is the td-mcp program, which td mcp starts: the MCP SDK stays out of
// the td binary, whose start-up it would slow.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tdproject/td/cmd/command"
)

// Options say where and as whom the server acts, as td's global flags and
// environment do for a command.
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
}

// Server is an MCP server bound to one td session. Every tool call becomes
// one td command line, run in this process as that session.
type Server struct {
	// base is the start of every command line: the program name and the
	// global flags that pin the session and the directory.
	base   []string
	getenv func(string) string
	// Session is the session every call acts as.
	Session SessionInfo
	// mu runs one call at a time: an agent's calls are a sequence, and a
	// command reads what the one before it wrote. closed, under mu, is set
	// once the client has gone.
	mu     sync.Mutex
	closed bool
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

// New finds the session the server will act as, once, so that every call
// acts as the same one: td whoami, run in this process. It fails with td's
// own error line outside a td repository or for a session td does not know.
func New(o Options) (*Server, error) {
	s := &Server{base: []string{"td"}, getenv: o.Getenv}
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
	code := command.Run(append(append([]string{}, s.base...), "whoami", "--json"), strings.NewReader(""), &out, &errOut, s.getenv)
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
		return nil, &startError{printed: errOut.String() + "error: " + who.Error.Message + "\n"}
	}
	if err != nil || who.Session.ID == "" {
		return nil, fmt.Errorf("td whoami printed no session (%v); run td whoami to see why", err)
	}
	s.Session = who.Session
	if o.Session == "" {
		s.base = append(s.base[:1], append([]string{"--session=" + who.Session.ID}, s.base[1:]...)...)
	}
	return s, nil
}

// startError is td's refusal to serve, as td printed it: its warnings
// and its error line.
type startError struct{ printed string }

func (e *startError) Error() string {
	msg := strings.TrimSpace(e.printed)
	if i := strings.Index("\n"+msg, "\nerror: "); i >= 0 {
		msg = msg[i+len("error: "):]
	}
	return msg
}

// Tools are the tools the server offers its session: todo, and issue for
// a root session.
func (s *Server) Tools() []string {
	if s.Session.Root() {
		return []string{"todo", "issue"}
	}
	return []string{"todo"}
}

// Serve answers MCP requests over t until the client closes the
// connection or ctx ends. A Server serves one connection at a time.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	text := instructions
	if !s.Session.Root() {
		text = subagentInstructions
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "td", Title: "td issues and todos", Version: command.Version},
		&mcp.ServerOptions{Instructions: text, Capabilities: &mcp.ServerCapabilities{}})
	todo, err := todoTool()
	if err != nil {
		return err
	}
	addTool(srv, s, todo, todoCommandLine)
	if slices.Contains(s.Tools(), "issue") {
		issue, err := issueTool()
		if err != nil {
			return err
		}
		addTool(srv, s, issue, issueCommandLine)
	}
	s.mu.Lock()
	s.closed = false
	s.mu.Unlock()
	err = srv.Run(ctx, t)
	// A call still running finishes its writes; no other starts.
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("MCP server: %w", err)
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

// addTool offers a tool whose calls decode their arguments into In, build
// a td command line from them and run it. td decodes the arguments itself,
// rather than leaving it to the SDK, so that a bad input is refused the way
// td refuses anything: one line that names the field and says what it must
// be.
func addTool[In any](srv *mcp.Server, s *Server, tool *mcp.Tool, build func(In) (commandLine, error)) {
	fields := tool.InputSchema.(*jsonschema.Schema).PropertyOrder
	srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		err := decodeArguments(tool.Name, fields, req.Params.Arguments, &in)
		var cl commandLine
		if err == nil {
			cl, err = build(in)
		}
		if err != nil {
			return textResult(true, "error: "+err.Error()+"\n"), nil
		}
		return s.run(cl), nil
	})
}

// decodeArguments reads a tool call's arguments into in, refusing what is
// not a JSON object, a field the tool does not have and a value of the
// wrong type, each with the field's name.
func decodeArguments(tool string, fields []string, raw json.RawMessage, in any) error {
	var obj map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &obj); err != nil {
			return fmt.Errorf("the %s tool's arguments must be a JSON object with an \"action\"", tool)
		}
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(fields, k) {
			return fmt.Errorf("the %s tool has no field %q; its fields are %s", tool, k, strings.Join(fields, ", "))
		}
	}
	if _, ok := obj["action"]; !ok {
		return fmt.Errorf("the %s tool needs \"action\"", tool)
	}
	for _, k := range names {
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal(obj[k], fieldOf(in, k)); errors.As(err, &te) {
			return fmt.Errorf("%q must be %s, not a JSON %s", k, jsonKind(te.Type), te.Value)
		} else if err != nil {
			return fmt.Errorf("%q is not valid JSON: %v", k, err)
		}
	}
	return nil
}

// fieldOf is a pointer to the struct field of in (a pointer to a struct)
// whose JSON name is name.
func fieldOf(in any, name string) any {
	v := reflect.ValueOf(in).Elem()
	for i := 0; i < v.NumField(); i++ {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == name {
			return v.Field(i).Addr().Interface()
		}
	}
	return new(any)
}

// jsonKind says what JSON value a Go type takes.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(jsonKind(t.Elem()), "a ") + "s"
	}
	return "a " + t.String()
}

// run executes one td command line as the server's session and turns what
// it printed into a tool result: stdout as the first text block, stderr
// (warnings, the error line) as the next when there is any; an error
// result exactly when the command's exit status is not 0.
func (s *Server) run(cl commandLine) (res *mcp.CallToolResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return textResult(true, "error: the MCP client has closed the connection; nothing was run\n")
	}
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
	code := command.Run(args, strings.NewReader(cl.stdin), &stdout, &stderr, s.getenv)
	res = &mcp.CallToolResult{IsError: code != 0}
	for _, b := range []*bytes.Buffer{&stdout, &stderr} {
		if b.Len() > 0 {
			res.Content = append(res.Content, &mcp.TextContent{Text: b.String()})
		}
	}
	if len(res.Content) == 0 {
		res.Content = []mcp.Content{&mcp.TextContent{Text: ""}}
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

// textResult is a tool result of one text block.
func textResult(isError bool, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
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

// Main is the td-mcp program: it serves MCP on stdin and stdout, as the
// session --session, $TD_SESSION or the checkout names, in --dir or the
// working directory. It returns the exit status: 0 when the client closed
// the connection, 1 when the server could not start, 2 for a usage error.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("td-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	session := fs.String("session", "", "act as this session (default: $TD_SESSION, then the checkout's current session)")
	dir := fs.String("dir", "", "act in `DIR` instead of the working directory")
	fs.StringVar(dir, "C", "", "same as --dir")
	version := fs.Bool("version", false, "print the version")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: td-mcp [--session ID] [--dir DIR]\n\n%s\n\n", usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "error: td-mcp takes no arguments (got %q); td-mcp --help shows the flags\n", fs.Arg(0))
		return 2
	}
	if *version {
		fmt.Fprintf(stdout, "td-mcp %s\n", command.Version)
		return 0
	}
	s, err := New(Options{Session: *session, Dir: *dir, Getenv: getenv})
	if err != nil {
		var se *startError
		if errors.As(err, &se) {
			io.WriteString(stderr, se.printed)
		} else {
			fmt.Fprintf(stderr, "error: %v\n", err)
		}
		return 1
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := s.Serve(context.Background(), t); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

const usage = `td-mcp serves td's todo and issue tools to an agent over the Model Context
Protocol on standard input and output. td mcp starts it; see td mcp --help.`

// nopWriteCloser leaves standard output open when the transport closes:
// the caller owns it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
