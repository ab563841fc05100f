package codex

import (
	"encoding/json"
	"strings"
	"testing"
)

// Codex sends a Bash call's tool_response as the command's output alone:
// the failure is read from the text.
func TestShellFailure(t *testing.T) {
	for _, c := range []struct {
		name, output string
		failed       bool
		msg          string
	}{
		{"a missing file", "ls: cannot access '/x': No such file or directory\n", true, "ls: cannot access '/x': No such file or directory"},
		{"no such command", "bash: line 1: tdx: command not found\n", true, "bash: line 1: tdx: command not found"},
		{"dash's not found", "sh: 1: tdx: not found\n", true, "sh: 1: tdx: not found"},
		{"permission", "cat: /etc/shadow: Permission denied\n", true, "cat: /etc/shadow: Permission denied"},
		{"go test", "--- FAIL: TestCallback (0.00s)\n    callback_test.go:41: state mismatch\nFAIL\nFAIL\tapp/auth\t0.012s\n", true, "--- FAIL: TestCallback (0.00s)"},
		{"go build", "# app/auth\nauth/callback.go:12:9: undefined: verifyState\n", true, "auth/callback.go:12:9: undefined: verifyState"},
		{"gcc", "main.c: In function 'main':\nmain.c:3:5: error: expected ';' before 'return'\n", true, "main.c:3:5: error: expected ';' before 'return'"},
		{"rust", "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:2:5\n", true, "error[E0425]: cannot find value `x` in this scope"},
		{"git", "fatal: not a git repository (or any of the parent directories): .git\n", true, "fatal: not a git repository (or any of the parent directories): .git"},
		{"npm", "npm ERR! code ENOENT\nnpm ERR! syscall open\n", true, "npm ERR! code ENOENT"},
		{"make", "cc -o app app.c\nmake: *** [Makefile:2: app] Error 1\n", true, "make: *** [Makefile:2: app] Error 1"},
		{"python", "Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n    import nope\nModuleNotFoundError: No module named 'nope'\n", true, "ModuleNotFoundError: No module named 'nope'"},
		{"go run", "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n", true, "panic: runtime error: index out of range [3] with length 3"},
		{"exit status", "some output\nexit status 2\n", true, "exit status 2"},
		{"apply_patch", "apply_patch verification failed: Failed to find expected lines in auth/callback.go\n", true, "apply_patch verification failed: Failed to find expected lines in auth/callback.go"},
		{"a listing", "README.md\nauth\ngo.mod\n", false, ""},
		{"tests that pass", "ok  \tapp/auth\t0.012s\n", false, ""},
		{"grep's hits", "auth/callback.go:12:\treturn errors.New(\"state mismatch\")\n", false, ""},
		{"an applied patch", "Success. Updated the following files:\nM auth/callback.go\n", false, ""},
		{"exit status 0", "exit status 0\n", false, ""},
		{"empty", "", false, ""},
	} {
		raw, _ := json.Marshal(c.output)
		msg, failed := shellFailure(raw)
		if failed != c.failed || msg != c.msg {
			t.Errorf("%s: got (%q, %v), want (%q, %v)", c.name, msg, failed, c.msg, c.failed)
		}
	}
	if _, failed := shellFailure(json.RawMessage(`{"exit_code": 1}`)); failed {
		t.Error("an object is not a shell command's output")
	}
	// A long output is read at its head and its tail.
	long := strings.Repeat("ok\n", 5000) + "fatal: the end\n"
	raw, _ := json.Marshal(long)
	if msg, failed := shellFailure(raw); !failed || msg != "fatal: the end" {
		t.Errorf("a long output: %q, %v", msg, failed)
	}
}

// FuzzShellFailure: any output is read without a panic, and a failure's
// message is one of the output's lines.
func FuzzShellFailure(f *testing.F) {
	f.Add("ls: cannot access '/x': No such file or directory\n")
	f.Add("--- FAIL: TestX\nFAIL\n")
	f.Add("Traceback (most recent call last):\nValueError: x\n")
	f.Add("plain\noutput\n")
	f.Fuzz(func(t *testing.T, out string) {
		raw, err := json.Marshal(out)
		if err != nil {
			return
		}
		msg, failed := shellFailure(raw)
		if !failed {
			if msg != "" {
				t.Fatalf("no failure but a message %q", msg)
			}
			return
		}
		var sent string // what Codex's JSON holds: invalid bytes replaced
		json.Unmarshal(raw, &sent)
		found := false
		for _, l := range strings.Split(sent, "\n") {
			found = found || strings.TrimSpace(l) == msg
		}
		if !found {
			t.Fatalf("the message %q is no line of %q", msg, out)
		}
	})
}
