package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Runner runs the tools' calls as one td session. Package command
// implements it by filling each command's Options and calling its run
// function; the server itself knows nothing of td's commands but their
// inputs.
type Runner interface {
	// Session finds the session every call acts as, once, as td whoami
	// does. td's refusal (no repository, an unknown session) is a
	// *StartError holding what td whoami prints.
	Session() (SessionInfo, error)
	// Todo runs a todo tool call: the td todo verb its action names.
	Todo(TodoRequest) Output
	// Issue runs an issue tool call: the td command its action names.
	Issue(IssueRequest) Output
}

// TodoRequest is a todo tool call, its fields already checked against its
// action (see the todo tool's schema for what each holds).
type TodoRequest struct {
	Action string
	Items  []string
	Item   string
	Phase  string
	Kind   string
	Note   string
	Reason string
	// JSON asks for td's --json output.
	JSON bool
}

// IssueRequest is an issue tool call, its fields already checked against
// its action (see the issue tool's schema for what each holds).
type IssueRequest struct {
	Action      string
	ID          string
	Title       string
	Type        string
	Priority    string
	Labels      []string
	Description string
	Text        string
	Kind        string
	Other       string
	Status      []string
	All         bool
	Reason      string
	Force       bool
	// JSON asks for td's --json output.
	JSON bool
}

// CommandLine is the td command line the call stands for, after the
// program name and the global flags, --json included when asked for, and
// what it reads on standard input.
func (r TodoRequest) CommandLine() (args []string, stdin string) {
	cl, _ := todoCommandLine(todoInput(r))
	return cl.withJSON(), cl.stdin
}

// CommandLine is the td command line the call stands for, after the
// program name and the global flags, --json included when asked for.
func (r IssueRequest) CommandLine() []string {
	cl, _ := issueCommandLine(issueInput(r))
	return cl.withJSON()
}

// Output is what a call printed, as td prints it: standard output,
// standard error, and whether the command failed (its exit status not 0).
type Output struct {
	Stdout []byte
	Stderr []byte
	Failed bool
}

// toolCall is a checked call: how the Runner runs it, whether it asked
// for JSON, and the td command that shows the state it acted on, named
// when td fails on it.
type toolCall struct {
	run    func(Runner) Output
	asJSON bool
	state  string
}

// withJSON is the command line's arguments, with --json before the "--"
// that ends the flags when the call asked for JSON.
func (cl commandLine) withJSON() []string {
	if cl.asJSON {
		return insertBeforeDashes(cl.args, "--json")
	}
	return cl.args
}

// lineRunner runs calls as td command lines through a function like
// command.Run: Options.Run, when the server is given no Runner.
type lineRunner struct {
	// base is the start of every command line: the program name and the
	// global flags that pin the session and the directory.
	base    []string
	session string
	getenv  func(string) string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int
}

func newLineRunner(o Options) *lineRunner {
	l := &lineRunner{base: []string{"td"}, session: o.Session, getenv: o.Getenv, run: o.Run}
	if l.getenv == nil {
		l.getenv = func(string) string { return "" }
	}
	if o.Session != "" {
		l.base = append(l.base, "--session="+o.Session)
	}
	if o.Dir != "" {
		l.base = append(l.base, "--dir="+o.Dir)
	}
	return l
}

// Session runs td whoami --json and pins the session it names on every
// later command line.
func (l *lineRunner) Session() (SessionInfo, error) {
	var out, errOut bytes.Buffer
	code := l.run(append(append([]string{}, l.base...), "whoami", "--json"), strings.NewReader(""), &out, &errOut, l.getenv)
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
		return SessionInfo{}, &StartError{Printed: errOut.String() + "error: " + who.Error.Message + "\n"}
	}
	if err != nil || who.Session.ID == "" {
		return SessionInfo{}, fmt.Errorf("td whoami printed no session (%v); run td whoami to see why", err)
	}
	if l.session == "" {
		l.base = append(l.base[:1], append([]string{"--session=" + who.Session.ID}, l.base[1:]...)...)
	}
	return who.Session, nil
}

// Todo runs the td todo command line the call stands for.
func (l *lineRunner) Todo(req TodoRequest) Output {
	args, stdin := req.CommandLine()
	return l.runLine(args, stdin)
}

// Issue runs the td command line the call stands for.
func (l *lineRunner) Issue(req IssueRequest) Output {
	return l.runLine(req.CommandLine(), "")
}

func (l *lineRunner) runLine(args []string, stdin string) Output {
	var stdout, stderr bytes.Buffer
	code := l.run(append(append([]string{}, l.base...), args...), strings.NewReader(stdin), &stdout, &stderr, l.getenv)
	return Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Failed: code != 0}
}
