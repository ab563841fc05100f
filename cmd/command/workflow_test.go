package command

import (
	"testing"

	"github.com/urfave/cli/v2"
)

func TestTransitionOptions(t *testing.T) {
	steps := map[string]workflowStep{}
	for _, st := range workflowSteps() {
		steps[st.name] = st
	}
	if len(steps) != 8 {
		t.Fatalf("%d workflow steps, want 8 (start, unstart, review, approve, reject, reopen, block, unblock)", len(steps))
	}
	verb := func(name string) func(*runner, func(*TransitionOptions) error) *cli.Command {
		st, ok := steps[name]
		if !ok {
			t.Fatalf("no workflow step %q", name)
		}
		return func(r *runner, runF func(*TransitionOptions) error) *cli.Command {
			return r.transitionCommand(st, runF)
		}
	}
	testParse(t, verb("start"), []parseCase[TransitionOptions]{
		{name: "start", argv: []string{"start", "k3x"}, want: TransitionOptions{Issue: "k3x"}},
		{name: "start takes no reason", argv: []string{"start", "k3x", "--reason", "x"}, usage: true},
		{name: "start without id", argv: []string{"start"}, usage: true},
	})
	testParse(t, verb("review"), []parseCase[TransitionOptions]{
		{name: "review force", argv: []string{"review", "k3x", "--force", "-m", "see the diff"}, want: TransitionOptions{Issue: "k3x", Force: true, Reason: "see the diff"}},
		{name: "review two ids", argv: []string{"review", "a", "b"}, usage: true},
	})
	testParse(t, verb("block"), []parseCase[TransitionOptions]{
		{name: "block reason as words", argv: []string{"block", "k3x", "waiting", "for", "the", "sandbox"}, want: TransitionOptions{Issue: "k3x", Reason: "waiting for the sandbox"}},
		{name: "block reason flag", argv: []string{"block", "k3x", "-m", "waiting"}, want: TransitionOptions{Issue: "k3x", Reason: "waiting"}},
		{name: "block reason twice", argv: []string{"block", "k3x", "waiting", "-m", "waiting"}, usage: true},
	})
	testParse(t, verb("approve"), []parseCase[TransitionOptions]{
		{name: "approve", argv: []string{"approve", "--session", "s-1", "k3x", "--reason", "ran the tests"}, want: TransitionOptions{Session: "s-1", Issue: "k3x", Reason: "ran the tests"}},
		{name: "approve takes no force", argv: []string{"approve", "k3x", "--force"}, usage: true},
	})
	for _, name := range []string{"unstart", "reject", "reopen", "block", "unblock"} {
		want := TransitionOptions{Issue: "k3x"}
		argv := []string{name, "k3x"}
		if name != "unstart" {
			argv, want.Reason = append(argv, "-m", "why"), "why"
		}
		testParse(t, verb(name), []parseCase[TransitionOptions]{
			{name: name, argv: argv, want: want},
			{name: name + " without id", argv: []string{name}, usage: true},
		})
	}
}
