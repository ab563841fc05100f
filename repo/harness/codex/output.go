package codex

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// maxOutputLines bounds the lines of a shell command's output that
// shellFailure reads: Codex truncates what it sends, and a failure is
// told in the first lines or the last.
const maxOutputLines = 400

// failureLine matches a line of a shell command's output that says the
// command failed: the shell's own complaints, a compiler's file:line:col
// diagnostic, a test runner's failure, a program's fatal error. Codex
// sends a Bash call's response as the command's output alone, with no
// exit code, so this is what td can read of a failure.
//
// It is compiled at its first use: most td commands never read a shell
// command's output, and none should pay for it at start-up.
var failureLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(failureExpr) })

const failureExpr = `(?:` +
	// the shell and coreutils
	`: command not found$|: [Nn]o such file or directory$|: Permission denied$|^[^:\s]+: cannot (?:access|open|stat|create|remove) |: Operation not permitted$|^[^:\s]+:(?: [^:]+:)+ not found$` +
	// compilers and linters: path:line:col: message, error[E0425]
	`|^\S+:\d+:\d+: \S|^error(?:\[[A-Z]?\d+\])?:|^ERROR[: ]|^Error:|^fatal:|^FATAL[: ]` +
	// test runners and build tools
	`|^--- FAIL: |^FAIL\s|^FAILED\b|^Tests?:.*\bfailed\b|^npm (?:ERR!|error) |^make(?:\[\d+\])?: \*\*\* |^BUILD FAILED` +
	// programs that died
	`|^panic: |^Traceback \(most recent call last\):$|^Exception in thread |^Segmentation fault|^exit status [1-9]\d*$|^Exit code [1-9]\d*$` +
	// apply_patch
	`|^apply_patch verification failed|^Failed to find expected lines` +
	`)`

// shellFailure reads a tool_response that is a plain string (a Bash
// call's output, an apply_patch result) and reports whether it tells of a
// failure, with the error text: the first line that does (for a Python
// traceback, its last line, which names the exception).
func shellFailure(resp json.RawMessage) (string, bool) {
	var out string
	if json.Unmarshal(resp, &out) != nil {
		return "", false
	}
	lines := strings.Split(out, "\n")
	if len(lines) > 2*maxOutputLines {
		lines = append(lines[:maxOutputLines], lines[len(lines)-maxOutputLines:]...)
	}
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if !failureLine().MatchString(l) {
			continue
		}
		msg := strings.TrimSpace(l)
		if strings.HasPrefix(msg, "Traceback") {
			// Python names the exception on the traceback's last line.
			for j := len(lines) - 1; j > i; j-- {
				if last := strings.TrimSpace(lines[j]); last != "" {
					return last, true
				}
			}
		}
		return msg, true
	}
	return "", false
}
