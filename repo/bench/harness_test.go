package bench

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tdproject/td/repo/gen"
	"github.com/tdproject/td/repo/harness"
)

// The harness benchmarks time one hook event as td hook <harness> spends
// it after reading its payload: a fresh Store, then the event mapped onto
// the session lifecycle. Target (SPEC section 12's harness issue, on the
// real binary): 10 ms an event; tdbench times the binary itself.

func benchConversation() harness.Conversation {
	return harness.Conversation{Harness: "codex", ID: "bench-conversation"}
}

// benchHandle runs one event per iteration on a fresh Store.
func benchHandle(b *testing.B, ev func(i int) harness.Event, check func(*harness.Outcome)) {
	root := benchRoot(b)
	benchWarm(b, root)
	start := harness.Event{Moment: harness.Start, Source: harness.SourceStartup, Conversation: benchConversation()}
	if _, err := harness.Handle(benchOpen(b, root), start); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out, err := harness.Handle(benchOpen(b, root), ev(i))
		if err != nil {
			b.Fatal(err)
		}
		check(out)
		i++
	}
}

// BenchmarkHarnessResume10k: a conversation's start again, its context
// built.
func BenchmarkHarnessResume10k(b *testing.B) {
	benchHandle(b, func(int) harness.Event {
		return harness.Event{Moment: harness.Start, Source: harness.SourceResume, Conversation: benchConversation()}
	}, func(out *harness.Outcome) {
		if out.Context == nil {
			b.Fatal("no context")
		}
	})
}

// BenchmarkHarnessToolFailure10k: a failed tool call recorded, its stall
// decided.
func BenchmarkHarnessToolFailure10k(b *testing.B) {
	benchHandle(b, func(i int) harness.Event {
		return harness.Event{Moment: harness.PostTool, Conversation: benchConversation(),
			Tool:    harness.ToolCall{Name: "Bash", Target: "go test ./..."},
			Failure: &harness.ToolFailure{Tool: "Bash", Error: "Exit code 1\nFAIL run " + strconv.Itoa(i)}}
	}, func(out *harness.Outcome) {
		if out.Session == nil {
			b.Fatal("no session")
		}
	})
}

// BenchmarkHarnessGuardEdit10k: a file tool's write of a ledger, judged
// and denied.
func BenchmarkHarnessGuardEdit10k(b *testing.B) {
	root := benchRoot(b)
	ledger := filepath.Join(root, ".todos", "history", gen.ID(benchIssues/2)+".jsonl")
	benchHandle(b, func(int) harness.Event {
		return harness.Event{Moment: harness.PreTool, Conversation: benchConversation(), Dir: root,
			Tool: harness.ToolCall{Name: "apply_patch", Paths: []string{ledger}}}
	}, func(out *harness.Outcome) {
		if out.Deny == "" {
			b.Fatal("the edit of a ledger was let through")
		}
	})
}
