package harness

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
)

func TestToolFailureMessage(t *testing.T) {
	cases := []struct{ tool, err, want string }{
		{"Bash", "Exit code 1\nFAIL: TestToken (0.01s)\nmore", "Bash: Exit code 1 — FAIL: TestToken (0.01s)"},
		{"Bash", "Command exited with non-zero status code 2", "Bash: Command exited with non-zero status code 2"},
		{"Bash", "\n\n  Error: exit status 1  \n\n  go: cannot find main module\n", "Bash: Error: exit status 1 — go: cannot find main module"},
		{"Edit", "String to replace not found in file.\nString: foo", "Edit: String to replace not found in file."},
		{"Read", "", "Read: failed"},
		{"", "boom", "tool: boom"},
	}
	for _, c := range cases {
		if got := (ToolFailure{Tool: c.tool, Error: c.err}).Message(); got != c.want {
			t.Errorf("%q %q: got %q, want %q", c.tool, c.err, got, c.want)
		}
	}
}

func TestToolResponseFailure(t *testing.T) {
	cases := []struct {
		resp   string
		failed bool
		msg    string
	}{
		{`{"stdout":"ok","stderr":"","interrupted":false,"isImage":false}`, false, ""},
		{`{"filePath":"/x","success":true}`, false, ""},
		{`"plain text"`, false, ""},
		{`null`, false, ""},
		{`[1,2]`, false, ""},
		{`{"is_error":true,"content":"permission denied"}`, true, "permission denied"},
		{`{"isError":true,"content":[{"type":"text","text":"rate limited"},{"type":"image"}]}`, true, "rate limited"},
		{`{"success":false,"message":"no such file"}`, true, "no such file"},
		{`{"error":"timeout after 120s"}`, true, "timeout after 120s"},
		{`{"error":{"message":"bad request"}}`, true, "bad request"},
		{`{"error":""}`, false, ""},
		{`{"stdout":"","stderr":"undefined: x","exit_code":2}`, true, "Exit code 2\nundefined: x"},
		{`{"exitCode":1,"stdout":"FAIL"}`, true, "Exit code 1\nFAIL"},
		{`{"returnCode":0,"stdout":"fine"}`, false, ""},
		{`{"exit_code":1,"interrupted":true}`, false, ""},
	}
	for _, c := range cases {
		msg, failed := ToolResponseFailure(json.RawMessage(c.resp))
		if failed != c.failed || msg != c.msg {
			t.Errorf("%s: got (%q, %v), want (%q, %v)", c.resp, msg, failed, c.msg, c.failed)
		}
	}
}

// The same call failing the same way three times in a row is a stall,
// whatever numbers its output carries; another command is another error.
func TestRecordToolFailureStalls(t *testing.T) {
	s := newTestStore(t)
	se, _ := s.StartSession(repo.StartOptions{Agent: "primary"})
	fail := func(errText, target string) *sessions.ErrorReport {
		t.Helper()
		rep, err := RecordToolFailure(s, se, ToolFailure{Tool: "Bash", Error: errText, Target: target})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	fail("Exit code 1\nFAIL: TestToken (0.01s)", "go test ./auth")
	rep := fail("Exit code 1\nFAIL: TestToken (0.03s)", "go test ./auth")
	if rep.Run != 2 || len(rep.Stalls) != 0 {
		t.Fatalf("second: %+v", rep)
	}
	rep = fail("Exit code 1\nFAIL: TestToken (0.20s)", "go test ./auth")
	if rep.Run != 3 || len(rep.Stalls) != 1 || !strings.Contains(rep.Stalls[0].Message, "Bash: Exit code 1 — FAIL: TestToken (0.20s) at go test ./auth") {
		t.Fatalf("third: %+v", rep)
	}
	rep = fail("Exit code 1\nFAIL: TestToken (0.01s)", "go vet ./auth")
	if rep.Run != 1 || len(rep.Stalls) != 0 {
		t.Fatalf("another command: %+v", rep)
	}
	long := fail("x", strings.Repeat("y", 200))
	rt, _ := s.Runtime(se.ID)
	if long.Run != 1 || len(rt.LastError) > 200 {
		t.Fatalf("a long target is kept whole: %q", rt.LastError)
	}
}
