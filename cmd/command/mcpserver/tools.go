package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// todoActions are the todo tool's actions, each a td todo subcommand.
func todoActions() []string {
	return []string{"view", "set", "add", "start", "done", "drop", "note", "block", "unblock", "propose"}
}

// issueActions are the issue tool's actions, each a td command.
func issueActions() []string {
	return []string{"create", "show", "list", "comment", "link", "start", "review"}
}

// todoInput is the todo tool's input: one action and the fields it takes.
// The issue is never named: it is the session's bound issue.
type todoInput struct {
	Action string   `json:"action" desc:"what to do; view returns the list, every other action changes it and returns it"`
	Items  []string `json:"items,omitempty" desc:"the items' texts: set replaces the steps with them (a \"### Name\" entry starts a phase), add and propose append them; done, drop, block and unblock take several todos here"`
	Item   string   `json:"item,omitempty" desc:"the todo to act on, by its text: the exact text, or a unique part of it (start, done, drop, note, block, unblock)"`
	Phase  string   `json:"phase,omitempty" desc:"the phase (a ### heading under Todos): where set, add and propose put steps; narrows the search for item"`
	Kind   string   `json:"kind,omitempty" desc:"step (default: the working plan) or criterion (an acceptance criterion, the definition of done)"`
	Note   string   `json:"note,omitempty" desc:"the note to append under item (note)"`
	Reason string   `json:"reason,omitempty" desc:"why the todo is blocked, kept as a note (block)"`
	JSON   bool     `json:"json,omitempty" desc:"return td's JSON output (also as structured content) instead of text"`
}

// issueInput is the issue tool's input: one action and the fields it takes.
type issueInput struct {
	Action      string   `json:"action" desc:"what to do"`
	ID          string   `json:"id,omitempty" desc:"the issue's ID, or a unique prefix of it (show, comment, link, start, review)"`
	Title       string   `json:"title,omitempty" desc:"the new issue's title (create)"`
	Type        string   `json:"type,omitempty" desc:"bug, feature, task (default), chore or epic (create; a filter for list)"`
	Priority    string   `json:"priority,omitempty" desc:"P0 (most urgent) to P4; P2 by default (create; a filter for list)"`
	Labels      []string `json:"labels,omitempty" desc:"labels (create; for list, issues carrying every one)"`
	Description string   `json:"description,omitempty" desc:"the new issue's description, markdown (create)"`
	Text        string   `json:"text,omitempty" desc:"the comment (comment)"`
	Kind        string   `json:"kind,omitempty" desc:"the link: child_of, duplicate_of, blocked_by or relates_to, or an inverse: parent_of, duplicated_by, blocks (link)"`
	Other       string   `json:"other,omitempty" desc:"the issue at the other end of the link (link)"`
	Status      []string `json:"status,omitempty" desc:"only issues in these statuses: open, in_progress, blocked, in_review, closed (list)"`
	All         bool     `json:"all,omitempty" desc:"include closed issues (list)"`
	Reason      string   `json:"reason,omitempty" desc:"a note for the reviewer (review)"`
	Force       bool     `json:"force,omitempty" desc:"ask for sign-off although acceptance criteria are open (review)"`
	JSON        bool     `json:"json,omitempty" desc:"return td's JSON output (also as structured content) instead of text"`
}

const todoToolDescription = `Your working checklist, kept in the issue your session is bound to (you never name the issue; without one, ask the operator to bind one). Todos are named by their text: exact, then case-insensitive, then a unique part. Steps are your plan: set replaces them (phases allowed), add appends, start marks the one in progress (one at a time; when none is, the first pending step starts), done, drop (kept as abandoned, never deleted), block with a reason, unblock, note. Criteria (kind criterion) are the operator's definition of done: you may add them (as proposals) and claim them done, never drop them. Every call returns the whole list and a summary; when the last criterion is done, ask for sign-off with the issue tool's review. Subagents may only view and propose: the root agent decides.`

const issueToolDescription = `td's issue tracker: create an issue (inside a bound session it becomes a child of the bound issue), show one with its checklist and comments, list issues (open ones, most urgent first), comment, link two issues, start work on one (you become its implementer), and review (ask for sign-off once its acceptance criteria are done). IDs may be any unique prefix. Results are td's own output.`

// tool is a tool as tools/list describes it.
type tool struct {
	Name        string       `json:"name"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	InputSchema *inputSchema `json:"inputSchema"`
	// call checks the call's arguments and makes the call the Runner
	// runs, or refuses them naming the field.
	call func(args json.RawMessage) (toolCall, error)
}

// todoTool is the todo tool's definition, its schema from todoInput.
func todoTool() (*tool, error) {
	s, err := schemaFor(reflect.TypeFor[todoInput](), map[string][]string{"action": todoActions(), "kind": {string(domain.KindStep), string(domain.KindCriterion)}})
	if err != nil {
		return nil, fmt.Errorf("todo tool schema: %w", err)
	}
	t := &tool{Name: "todo", Title: "Todos of the bound issue", Description: todoToolDescription, InputSchema: s}
	t.call = callWith(t, func(in todoInput) (toolCall, error) {
		return toolCall{asJSON: in.JSON, state: "td todo view", run: func(r Runner) Output { return r.Todo(TodoRequest(in)) }}, checkTodo(in)
	})
	return t, nil
}

// issueTool is the issue tool's definition, its schema from issueInput.
func issueTool() (*tool, error) {
	s, err := schemaFor(reflect.TypeFor[issueInput](), map[string][]string{"action": issueActions()})
	if err != nil {
		return nil, fmt.Errorf("issue tool schema: %w", err)
	}
	t := &tool{Name: "issue", Title: "Issues", Description: issueToolDescription, InputSchema: s}
	t.call = callWith(t, func(in issueInput) (toolCall, error) {
		state := "td list"
		if in.ID != "" {
			state = "td show " + in.ID
		}
		return toolCall{asJSON: in.JSON, state: state, run: func(r Runner) Output { return r.Issue(IssueRequest(in)) }}, checkIssue(in)
	})
	return t, nil
}

// callWith decodes a call's arguments into In and builds its call.
// td decodes the arguments itself, rather than trusting the client to
// have checked them against the schema, so that a bad input is refused the
// way td refuses anything: one line that names the field and says what it
// must be.
func callWith[In any](t *tool, build func(In) (toolCall, error)) func(json.RawMessage) (toolCall, error) {
	fields := t.InputSchema.fields()
	return func(raw json.RawMessage) (toolCall, error) {
		var in In
		if err := decodeArguments(t.Name, fields, raw, &in); err != nil {
			return toolCall{}, err
		}
		return build(in)
	}
}

// given names the input's non-empty fields, in schema order.
func (in todoInput) given() []string {
	return nonEmpty([]string{"items", "item", "phase", "kind", "note", "reason"},
		len(in.Items) > 0, in.Item != "", in.Phase != "", in.Kind != "", in.Note != "", in.Reason != "")
}

func (in issueInput) given() []string {
	return nonEmpty([]string{"id", "title", "type", "priority", "labels", "description", "text", "kind", "other", "status", "all", "reason", "force"},
		in.ID != "", in.Title != "", in.Type != "", in.Priority != "", len(in.Labels) > 0, in.Description != "",
		in.Text != "", in.Kind != "", in.Other != "", len(in.Status) > 0, in.All, in.Reason != "", in.Force)
}

func nonEmpty(names []string, set ...bool) []string {
	var out []string
	for i, n := range names {
		if set[i] {
			out = append(out, n)
		}
	}
	return out
}

// checkFields refuses an input that lacks a field the action needs or
// gives one it does not take, naming the field: td would otherwise drop a
// value the agent meant, or answer with a usage line about flags the agent
// never saw.
func checkFields(tool, action string, given, need, takes []string) error {
	for _, f := range need {
		if !slices.Contains(given, f) {
			return fmt.Errorf("%s %s needs %q: %s", tool, action, f, fieldHint(tool, f))
		}
	}
	for _, f := range given {
		if !slices.Contains(need, f) && !slices.Contains(takes, f) {
			all := append(append([]string{}, need...), takes...)
			if len(all) == 0 {
				return fmt.Errorf("%s %s takes no %q (only action and json)", tool, action, f)
			}
			return fmt.Errorf("%s %s takes no %q; it takes %s", tool, action, f, quoteJoin(all))
		}
	}
	return nil
}

func quoteJoin(fields []string) string {
	q := make([]string, len(fields))
	for i, f := range fields {
		q[i] = fmt.Sprintf("%q", f)
	}
	return strings.Join(q, ", ")
}

// fieldHint says what a required field holds.
func fieldHint(tool, field string) string {
	switch tool + "." + field {
	case "todo.items":
		return "the items' texts"
	case "todo.item":
		return "the todo's text, or a unique part of it"
	case "todo.note":
		return "the text of the note"
	case "issue.id":
		return "the issue's ID or a unique prefix"
	case "issue.title":
		return "the new issue's title"
	case "issue.text":
		return "the comment"
	case "issue.kind":
		return "child_of, duplicate_of, blocked_by or relates_to"
	case "issue.other":
		return "the issue at the other end of the link"
	}
	return "a value"
}

// flagValue is "--name=value" when value is set, nothing otherwise: the =
// form keeps a value that starts with a dash a value.
func flagValue(name, value string) []string {
	if value == "" {
		return nil
	}
	return []string{"--" + name + "=" + value}
}

// line joins a command, its flags and, after "--", its positional
// arguments, which are then never read as flags.
func line(cmd []string, flags [][]string, positional ...string) []string {
	out := append([]string{}, cmd...)
	for _, f := range flags {
		out = append(out, f...)
	}
	if len(positional) > 0 {
		out = append(append(out, "--"), positional...)
	}
	return out
}

// checkTodo refuses a todo tool call whose action lacks a field it needs
// or is given one it does not take.
func checkTodo(in todoInput) error {
	given := in.given()
	switch in.Action {
	case "view":
		return checkFields("todo", in.Action, given, nil, nil)
	case "set":
		return checkFields("todo", in.Action, given, []string{"items"}, []string{"phase"})
	case "add", "propose":
		return checkFields("todo", in.Action, given, []string{"items"}, []string{"phase", "kind"})
	case "start":
		return checkFields("todo", in.Action, given, []string{"item"}, []string{"phase", "kind"})
	case "done", "drop", "block", "unblock":
		takes := []string{"item", "items", "phase", "kind"}
		if in.Action == "block" {
			takes = append(takes, "reason")
		}
		if in.Item == "" && len(in.Items) == 0 {
			return fmt.Errorf("todo %s needs \"item\" (the todo's text, or a unique part of it) or \"items\" for several", in.Action)
		}
		return checkFields("todo", in.Action, given, nil, takes)
	case "note":
		return checkFields("todo", in.Action, given, []string{"item", "note"}, []string{"phase", "kind"})
	}
	return fmt.Errorf("todo has no action %q; action is one of %s", in.Action, strings.Join(todoActions(), ", "))
}

// todoCommandLine is the td todo command line a todo tool call stands
// for: what lineRunner runs, and what the tests compare with the CLI. td
// mcp itself builds none: its Runner calls the commands' run functions.
func todoCommandLine(in todoInput) (commandLine, error) {
	cl := commandLine{asJSON: in.JSON}
	if err := checkTodo(in); err != nil {
		return cl, err
	}
	scope := [][]string{flagValue("phase", in.Phase), flagValue("kind", in.Kind)}
	cmd := []string{"todo", in.Action}
	switch in.Action {
	case "view":
		cl.args = cmd
	case "set":
		if slices.ContainsFunc(in.Items, func(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "### ") }) {
			// Phase headings make it a plan, read as td todo set --file reads one.
			cl.args = line(cmd, [][]string{{"--file=-"}, flagValue("phase", in.Phase)})
			cl.stdin = strings.Join(in.Items, "\n") + "\n"
			break
		}
		cl.args = line(cmd, [][]string{flagValue("phase", in.Phase)}, in.Items...)
	case "add", "propose":
		cl.args = line(cmd, scope, in.Items...)
	case "start":
		cl.args = line(cmd, scope, in.Item)
	case "done", "drop", "block", "unblock":
		if in.Action == "block" {
			scope = append(scope, flagValue("reason", in.Reason))
		}
		targets := in.Items
		if in.Item != "" {
			targets = append([]string{in.Item}, in.Items...)
		}
		cl.args = line(cmd, scope, targets...)
	case "note":
		cl.args = line(cmd, append(scope, flagValue("text", in.Note)), in.Item)
	}
	return cl, nil
}

// checkIssue refuses an issue tool call whose action lacks a field it
// needs or is given one it does not take.
func checkIssue(in issueInput) error {
	given := in.given()
	switch in.Action {
	case "create":
		return checkFields("issue", in.Action, given, []string{"title"}, []string{"type", "priority", "labels", "description"})
	case "show", "start":
		return checkFields("issue", in.Action, given, []string{"id"}, nil)
	case "list":
		return checkFields("issue", in.Action, given, nil, []string{"status", "type", "priority", "labels", "all"})
	case "comment":
		return checkFields("issue", in.Action, given, []string{"id", "text"}, nil)
	case "link":
		return checkFields("issue", in.Action, given, []string{"id", "kind", "other"}, nil)
	case "review":
		return checkFields("issue", in.Action, given, []string{"id"}, []string{"reason", "force"})
	}
	return fmt.Errorf("issue has no action %q; action is one of %s", in.Action, strings.Join(issueActions(), ", "))
}

// issueCommandLine is the td command line an issue tool call stands for
// (todoCommandLine says who uses it).
func issueCommandLine(in issueInput) (commandLine, error) {
	cl := commandLine{asJSON: in.JSON}
	if err := checkIssue(in); err != nil {
		return cl, err
	}
	switch in.Action {
	case "create":
		flags := [][]string{flagValue("type", in.Type), flagValue("priority", in.Priority), flagValue("description", in.Description)}
		for _, l := range in.Labels {
			flags = append(flags, flagValue("label", l))
		}
		cl.args = line([]string{"create"}, flags, in.Title)
	case "show", "start":
		cl.args = line([]string{in.Action}, nil, in.ID)
	case "list":
		flags := [][]string{flagValue("type", in.Type), flagValue("priority", in.Priority)}
		for _, s := range in.Status {
			flags = append(flags, flagValue("status", s))
		}
		for _, l := range in.Labels {
			flags = append(flags, flagValue("label", l))
		}
		if in.All {
			flags = append(flags, []string{"--all"})
		}
		cl.args = line([]string{"list"}, flags)
	case "comment":
		cl.args = line([]string{"comment"}, nil, in.ID, in.Text)
	case "link":
		cl.args = line([]string{"link"}, nil, in.ID, in.Kind, in.Other)
	case "review":
		flags := [][]string{flagValue("reason", in.Reason)}
		if in.Force {
			flags = append(flags, []string{"--force"})
		}
		cl.args = line([]string{"review"}, flags, in.ID)
	}
	return cl, nil
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
