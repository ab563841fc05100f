package mcpserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTodoCommandLine checks the td todo command line each todo action
// runs: flags in the = form, the texts after "--" so that a text starting
// with a dash stays a text.
func TestTodoCommandLine(t *testing.T) {
	for _, tc := range []struct {
		in    todoInput
		want  []string
		stdin string
	}{
		{todoInput{Action: "view"}, []string{"todo", "view"}, ""},
		{todoInput{Action: "view", JSON: true}, []string{"todo", "view"}, ""},
		{todoInput{Action: "set", Items: []string{"Parse", "-v flag"}, Phase: "Backend"}, []string{"todo", "set", "--phase=Backend", "--", "Parse", "-v flag"}, ""},
		{todoInput{Action: "set", Items: []string{"### Backend", "Parse", "### Frontend", "Button"}}, []string{"todo", "set", "--file=-"}, "### Backend\nParse\n### Frontend\nButton\n"},
		{todoInput{Action: "add", Items: []string{"A user can sign in"}, Kind: "criterion"}, []string{"todo", "add", "--kind=criterion", "--", "A user can sign in"}, ""},
		{todoInput{Action: "start", Item: "parse", Phase: "Backend"}, []string{"todo", "start", "--phase=Backend", "--", "parse"}, ""},
		{todoInput{Action: "done", Item: "parse", Items: []string{"button"}}, []string{"todo", "done", "--", "parse", "button"}, ""},
		{todoInput{Action: "drop", Items: []string{"device flow"}}, []string{"todo", "drop", "--", "device flow"}, ""},
		{todoInput{Action: "block", Item: "button", Reason: "waiting for tokens"}, []string{"todo", "block", "--reason=waiting for tokens", "--", "button"}, ""},
		{todoInput{Action: "unblock", Item: "button"}, []string{"todo", "unblock", "--", "button"}, ""},
		{todoInput{Action: "note", Item: "parse", Note: "--keep offsets"}, []string{"todo", "note", "--text=--keep offsets", "--", "parse"}, ""},
		{todoInput{Action: "propose", Items: []string{"Login button"}, Phase: "UI"}, []string{"todo", "propose", "--phase=UI", "--", "Login button"}, ""},
	} {
		cl, err := todoCommandLine(tc.in)
		if err != nil {
			t.Errorf("%+v: %v", tc.in, err)
			continue
		}
		if !slices.Equal(cl.args, tc.want) || cl.stdin != tc.stdin || cl.asJSON != tc.in.JSON {
			t.Errorf("%+v: args %q stdin %q json %v, want %q %q %v", tc.in, cl.args, cl.stdin, cl.asJSON, tc.want, tc.stdin, tc.in.JSON)
		}
	}
}

// TestIssueCommandLine checks the td command each issue action runs.
func TestIssueCommandLine(t *testing.T) {
	for _, tc := range []struct {
		in   issueInput
		want []string
	}{
		{issueInput{Action: "create", Title: "Colour tokens", Type: "feature", Priority: "P1", Labels: []string{"ui", "design"}, Description: "From the login work."},
			[]string{"create", "--type=feature", "--priority=P1", "--description=From the login work.", "--label=ui", "--label=design", "--", "Colour tokens"}},
		{issueInput{Action: "show", ID: "qkm"}, []string{"show", "--", "qkm"}},
		{issueInput{Action: "list"}, []string{"list"}},
		{issueInput{Action: "list", Status: []string{"open", "blocked"}, Labels: []string{"ui"}, All: true},
			[]string{"list", "--status=open", "--status=blocked", "--label=ui", "--all"}},
		{issueInput{Action: "comment", ID: "qkm", Text: "-- not a flag"}, []string{"comment", "--", "qkm", "-- not a flag"}},
		{issueInput{Action: "link", ID: "t3y", Kind: "child_of", Other: "qkm"}, []string{"link", "--", "t3y", "child_of", "qkm"}},
		{issueInput{Action: "start", ID: "qkm"}, []string{"start", "--", "qkm"}},
		{issueInput{Action: "review", ID: "qkm", Reason: "tests pass", Force: true}, []string{"review", "--reason=tests pass", "--force", "--", "qkm"}},
	} {
		cl, err := issueCommandLine(tc.in)
		if err != nil {
			t.Errorf("%+v: %v", tc.in, err)
			continue
		}
		if !slices.Equal(cl.args, tc.want) {
			t.Errorf("%+v: args %q, want %q", tc.in, cl.args, tc.want)
		}
	}
}

// TestInputRefusals checks that a call missing a field its action needs,
// or giving one the action does not take, is refused naming the field.
func TestInputRefusals(t *testing.T) {
	for _, tc := range []struct {
		todo  *todoInput
		issue *issueInput
		want  string
	}{
		{todo: &todoInput{Action: "done"}, want: `todo done needs "item" (the todo's text, or a unique part of it) or "items" for several`},
		{todo: &todoInput{Action: "done", Item: "x", Note: "y"}, want: `todo done takes no "note"; it takes "item", "items", "phase", "kind"`},
		{todo: &todoInput{Action: "set"}, want: `todo set needs "items": the items' texts`},
		{todo: &todoInput{Action: "set", Items: []string{"a"}, Kind: "criterion"}, want: `todo set takes no "kind"; it takes "items", "phase"`},
		{todo: &todoInput{Action: "start", Items: []string{"a", "b"}}, want: `todo start needs "item": the todo's text, or a unique part of it`},
		{todo: &todoInput{Action: "note", Item: "a"}, want: `todo note needs "note": the text of the note`},
		{todo: &todoInput{Action: "view", Item: "a"}, want: `todo view takes no "item" (only action and json)`},
		{todo: &todoInput{Action: "remove"}, want: `todo has no action "remove"; action is one of view, set, add, start, done, drop, note, block, unblock, propose`},
		{issue: &issueInput{Action: "create"}, want: `issue create needs "title": the new issue's title`},
		{issue: &issueInput{Action: "link", ID: "a", Kind: "child_of"}, want: `issue link needs "other": the issue at the other end of the link`},
		{issue: &issueInput{Action: "show", ID: "a", Force: true}, want: `issue show takes no "force"; it takes "id"`},
		{issue: &issueInput{Action: "close", ID: "a"}, want: `issue has no action "close"; action is one of create, show, list, comment, link, start, review`},
	} {
		var err error
		if tc.todo != nil {
			_, err = todoCommandLine(*tc.todo)
		} else {
			_, err = issueCommandLine(*tc.issue)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
}

// TestDecodeArguments checks the refusals of arguments that do not fit the
// tool's schema: each names the field.
func TestDecodeArguments(t *testing.T) {
	fields := []string{"action", "items", "item", "phase", "kind", "note", "reason", "json"}
	for _, tc := range []struct{ raw, want string }{
		{`{"action":"done","item":"parse"}`, ""},
		{`{"action":"view","json":true,"items":null}`, ""},
		{``, `the todo tool needs "action"`},
		{`{}`, `the todo tool needs "action"`},
		{`[1]`, `the todo tool's arguments must be a JSON object with an "action"`},
		{`{"action":"done","content":"parse"}`, `the todo tool has no field "content"; its fields are action, items, item, phase, kind, note, reason, json`},
		{`{"action":"add","items":"parse"}`, `"items" must be an array of strings, not a JSON string`},
		{`{"action":"done","item":["a"]}`, `"item" must be a string, not a JSON array`},
		{`{"action":"view","json":"yes"}`, `"json" must be true or false, not a JSON string`},
	} {
		var in todoInput
		err := decodeArguments("todo", fields, json.RawMessage(tc.raw), &in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// TestToolSchemas checks the schemas clients see: the action enums, the
// todo kinds, and every field optional but action.
func TestToolSchemas(t *testing.T) {
	todo, err := todoTool()
	if err != nil {
		t.Fatal(err)
	}
	issue, err := issueTool()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(todo.InputSchema)
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties any      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Properties["action"].Enum, todoActions()) || !slices.Equal(s.Properties["kind"].Enum, []string{"step", "criterion"}) {
		t.Errorf("todo enums: %s", b)
	}
	if !slices.Equal(s.Required, []string{"action"}) || s.AdditionalProperties != false {
		t.Errorf("todo schema: %s", b)
	}
	b, _ = json.Marshal(issue.InputSchema)
	s.Properties = nil
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Properties["action"].Enum, issueActions()) || !slices.Equal(s.Required, []string{"action"}) {
		t.Errorf("issue schema: %s", b)
	}
}

// TestInsertBeforeDashes checks where --json goes in a command line.
func TestInsertBeforeDashes(t *testing.T) {
	got := insertBeforeDashes([]string{"td", "todo", "done", "--", "--json"}, "--json")
	if want := []string{"td", "todo", "done", "--json", "--", "--json"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = insertBeforeDashes([]string{"td", "todo", "view"}, "--json")
	if want := []string{"td", "todo", "view", "--json"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSchemaJSON checks the schema's JSON as a client reads it: the
// fields in the input struct's order, arrays of strings, the descriptions.
func TestSchemaJSON(t *testing.T) {
	todo, err := todoTool()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(todo.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"action":{"type":"string","description":"what to do; view returns the list, every other action changes it and returns it","enum":["view","set","add","start","done","drop","note","block","unblock","propose"]},"items":{"type":"array","items":{"type":"string"},"description":"the items' texts: set replaces the steps with them (a \"### Name\" entry starts a phase), add and propose append them; done, drop, block and unblock take several todos here"},"item":{"type":"string",`
	if !strings.HasPrefix(string(b), want) || !strings.HasSuffix(string(b), `"json":{"type":"boolean","description":"return td's JSON output (also as structured content) instead of text"}},"required":["action"],"additionalProperties":false}`) {
		t.Errorf("todo schema:\n%s", b)
	}
	if got := todo.InputSchema.fields(); !slices.Equal(got, []string{"action", "items", "item", "phase", "kind", "note", "reason", "json"}) {
		t.Errorf("todo fields %v", got)
	}
	type odd struct {
		N int `json:"n"`
	}
	if _, err := schemaFor(reflect.TypeFor[odd](), nil); err == nil || err.Error() != "field N: no JSON Schema type for int" {
		t.Errorf("an int field: %v", err)
	}
	if _, err := schemaFor(reflect.TypeFor[todoInput](), map[string][]string{"colour": {"red"}}); err == nil || err.Error() != `an enum for "colour", which is not a field` {
		t.Errorf("an enum for no field: %v", err)
	}
}
