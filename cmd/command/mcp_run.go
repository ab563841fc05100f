package command

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tdproject/td/cmd/command/mcpserver"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// mcpRunner runs td mcp's tool calls as one session: each call fills the
// Options of the td command it stands for and calls that command's run
// function on a runner of its own, whose streams capture what it prints.
// It is the one place the MCP tools meet td's commands.
type mcpRunner struct {
	// dir is the directory td runs in, dirFlag td mcp's --dir.
	dir, dirFlag string
	// session is td mcp's --session until Session resolves it, then the
	// resolved session's ID.
	session string
	getenv  func(string) string
}

// Session finds the session the server acts as, as td whoami does: made
// on first use when it is the operator's default.
func (m *mcpRunner) Session() (mcpserver.SessionInfo, error) {
	var info mcpserver.SessionInfo
	out := m.call(false, "", func(r *runner) error {
		s, se, err := r.openSession(m.session)
		if err != nil {
			return err
		}
		info = mcpserver.SessionInfo{ID: se.ID, Agent: string(se.Agent), EffectiveRole: string(s.EffectiveRole(se))}
		return nil
	})
	if out.Failed {
		return info, &mcpserver.StartError{Printed: string(out.Stderr)}
	}
	m.session = info.ID
	return info, nil
}

// Todo runs a todo tool call: the td todo verb its action names.
func (m *mcpRunner) Todo(req mcpserver.TodoRequest) mcpserver.Output {
	scope := TodoScope{Session: m.session, Phase: req.Phase, Kind: domain.TodoKind(req.Kind)}
	targets := req.Items
	if req.Item != "" {
		targets = append([]string{req.Item}, req.Items...)
	}
	path := "todo " + req.Action
	switch req.Action {
	case "view":
		return m.call(req.JSON, path, func(r *runner) error { return r.runTodoView(&TodoViewOptions{TodoScope: scope}) })
	case "set":
		for _, it := range req.Items {
			if strings.HasPrefix(strings.TrimSpace(it), "### ") {
				// Phase headings make it a plan, read as td todo set --file
				// reads one.
				o := &TodoSetOptions{TodoScope: scope, Phases: parsePlan(strings.Join(req.Items, "\n")+"\n", req.Phase)}
				return m.call(req.JSON, path, func(r *runner) error { return r.runTodoSet(o) })
			}
		}
		o := &TodoSetOptions{TodoScope: scope, Items: req.Items}
		return m.call(req.JSON, actionLine(path, req.Items...), func(r *runner) error { return r.runTodoSet(o) })
	case "add":
		o := &TodoAddOptions{TodoScope: scope, Items: req.Items}
		return m.call(req.JSON, actionLine(path, req.Items...), func(r *runner) error { return r.runTodoAdd(o) })
	case "propose":
		o := &TodoProposeOptions{Session: m.session, Items: req.Items, Phase: req.Phase, Kind: scope.Kind}
		return m.call(req.JSON, actionLine(path, req.Items...), func(r *runner) error { return r.runTodoPropose(o) })
	case "note":
		o := &TodoNoteOptions{TodoScope: scope, Target: req.Item, Note: req.Note}
		return m.call(req.JSON, actionLine(path, req.Item), func(r *runner) error { return r.runTodoNote(o) })
	}
	// start, done, drop, block, unblock: the status verbs.
	o := &TodoMarkOptions{TodoScope: scope, Op: req.Action, Targets: targets, Reason: req.Reason}
	return m.call(req.JSON, actionLine(path, targets...), func(r *runner) error { return r.runTodoMark(o) })
}

// Issue runs an issue tool call: the td command its action names, through
// that command's run function with the Options the call fills.
func (m *mcpRunner) Issue(req mcpserver.IssueRequest) mcpserver.Output {
	switch req.Action {
	case "create":
		o := &CreateOptions{Session: m.session, Title: req.Title, Type: orDefault(req.Type, "task"),
			Priority: orDefault(req.Priority, "P2"), Labels: splitValues(req.Labels), Description: req.Description}
		return m.call(req.JSON, actionLine("create", req.Title), func(r *runner) error { return r.runCreate(o) })
	case "show":
		o := &ShowOptions{Issue: req.ID}
		return m.call(req.JSON, actionLine("show", req.ID), func(r *runner) error { return r.runShow(o) })
	case "list":
		o := &ListOptions{Session: m.session, Filter: repo.Filter{Types: splitValues(optional(req.Type)),
			Priorities: splitValues(optional(req.Priority)), Labels: splitValues(req.Labels),
			Statuses: splitValues(req.Status), All: req.All}}
		return m.call(req.JSON, "list", func(r *runner) error { return r.runList(o) })
	case "comment":
		o := &CommentOptions{Session: m.session, Issue: req.ID, Text: req.Text}
		return m.call(req.JSON, actionLine("comment", req.ID, req.Text), func(r *runner) error { return r.runComment(o) })
	case "link":
		o := &LinkOptions{Session: m.session, Issue: req.ID, Kind: req.Kind, Other: req.Other}
		return m.call(req.JSON, actionLine("link", req.ID, req.Kind, req.Other), func(r *runner) error { return r.runLink(o) })
	case "start", "review":
		for _, st := range workflowSteps() {
			if st.name == req.Action {
				o := &TransitionOptions{Session: m.session, Issue: req.ID, Reason: req.Reason, Force: req.Force}
				return m.call(req.JSON, actionLine(req.Action, req.ID), func(r *runner) error { return r.runTransition(st, o) })
			}
		}
	}
	// mcpserver checks the action before it calls; this is a safety net.
	return mcpserver.Output{Stderr: []byte("error: issue has no action " + strconv.Quote(req.Action) + "\n"), Failed: true}
}

// orDefault is v, or def when v is empty: a flag's default value.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// optional is v as a list of one, or none when v is empty.
func optional(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

// call runs one command's run function as td runs a command line: on a
// runner of its own, JSON when asked for, the action recorded as ran (""
// for none), the store's warnings and then the error on the captured
// streams.
func (m *mcpRunner) call(asJSON bool, ran string, run func(r *runner) error) mcpserver.Output {
	var out, errOut bytes.Buffer
	r := &runner{st: &streams{in: strings.NewReader(""), out: &out, errOut: &errOut, json: asJSON},
		getenv: m.getenv, dir: m.dir, dirFlag: m.dirFlag, ran: ran}
	if ran != "" {
		r.sessionFlag = m.session
	}
	err := run(r)
	r.recordAction(err)
	if r.store != nil {
		for _, w := range r.store.Warnings() {
			r.st.warnf("%s", w)
		}
	}
	if err != nil {
		r.st.reportError(err)
	}
	return mcpserver.Output{Stdout: out.Bytes(), Stderr: errOut.Bytes(), Failed: err != nil}
}
