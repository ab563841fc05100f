package command_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestMCPRecordsActions checks that a tool call counts as the session's
// action, as the td command it stands for would: the reminder after
// compaction lists it with its arguments, a refused call as failed.
func TestMCPRecordsActions(t *testing.T) {
	r := newTDRepo(t)
	issue := jsonID(t, r.td(t, "create", "Sign in with GitHub", "--json"), "")
	agent := jsonID(t, r.td(t, "send", issue, "--json"), "session")
	cs := r.connect(t, agent)
	for _, args := range []map[string]any{
		{"action": "add", "items": []string{"Register the OAuth app", "Callback"}},
		{"action": "done", "item": "nothing like it"},
		{"action": "note", "item": "Callback", "note": "verify state"},
	} {
		call(t, cs, "todo", args)
	}
	call(t, cs, "issue", map[string]any{"action": "comment", "id": issue, "text": "on it"})
	var ctx struct {
		Actions []struct {
			Command string `json:"command"`
			Failed  bool   `json:"failed"`
		} `json:"actions"`
	}
	out := r.td(t, "--session="+agent, "session", "compact", "--json")
	if err := json.Unmarshal([]byte(out), &ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range ctx.Actions {
		s := a.Command
		if a.Failed {
			s += " (failed)"
		}
		got = append(got, s)
	}
	want := []string{`todo done "nothing like it" (failed)`, "todo note Callback", `comment ` + issue + ` "on it"`}
	if !slices.Equal(got, want) {
		t.Errorf("last actions %q, want %q", got, want)
	}
}
