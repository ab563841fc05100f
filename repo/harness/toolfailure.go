package harness

import (
	"encoding/json"
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
)

// ToolFailure is a harness tool call that failed, as stall detection
// counts it.
type ToolFailure struct {
	// Tool is the tool's name, such as Bash or Edit.
	Tool string
	// Error is the error the harness reported, whole.
	Error string
	// Target is what the call acted on: the command of a shell tool, the
	// file of a file tool; "" when the tool names neither.
	Target string
}

// maxTargetText bounds the target a recorded error keeps.
const maxTargetText = 80

// Message is the failure as td records it: the tool's name and the first
// line of its error that says something. A line that only gives an exit
// status ("Exit code 1") says the same for every failing command, so the
// next line comes with it.
func (f ToolFailure) Message() string {
	var lines []string
	for _, l := range strings.Split(f.Error, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	msg := "failed"
	if len(lines) > 0 {
		msg = lines[0]
		if len(lines) > 1 && onlyExitStatus(lines[0]) {
			msg += " — " + lines[1]
		}
	}
	tool := strings.TrimSpace(f.Tool)
	if tool == "" {
		tool = "tool"
	}
	return tool + ": " + msg
}

// onlyExitStatus reports whether a line says nothing but that a command
// failed with some status.
func onlyExitStatus(l string) bool {
	generic := map[string]bool{"error": true, "exit": true, "exited": true, "code": true, "status": true,
		"command": true, "with": true, "non-zero": true, "nonzero": true, "process": true, "failed": true, "returned": true}
	for _, w := range strings.Fields(strings.ToLower(l)) {
		w = strings.Trim(w, ":.,;()[]")
		if w == "" || generic[w] || strings.Trim(w, "0123456789-") == "" {
			continue
		}
		return false
	}
	return true
}

// RecordToolFailure records a failed tool call as a session error, as td
// session error does: the message is Message(), the location the target,
// so the same call failing the same way three times in a row is a stall,
// whatever digits its output carries.
func RecordToolFailure(s *repo.Store, se *repo.Session, f ToolFailure) (*sessions.ErrorReport, error) {
	return sessions.RecordError(s, se, f.Message(), repo.Clip(f.Target, maxTargetText))
}

// ToolResponseFailure reads a harness's tool_response and reports whether
// it describes a failed call, with the error text. A response fails when
// it says so (is_error or isError true, success false, a non-empty error)
// or carries a non-zero exit code (exit_code, exitCode, returnCode,
// return_code). A call the user interrupted (interrupted true) is not a
// failure of the agent's, and anything else, a plain string included, is
// a success.
func ToolResponseFailure(resp json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(resp, &m); err != nil || m == nil {
		return "", false
	}
	if isTrue(m["interrupted"]) {
		return "", false
	}
	errText := JSONText(m["error"])
	code := ""
	for _, k := range []string{"exit_code", "exitCode", "returnCode", "return_code"} {
		var n json.Number
		if json.Unmarshal(m[k], &n) == nil && n != "" && n != "0" {
			code = string(n)
			break
		}
	}
	failed := isTrue(m["is_error"]) || isTrue(m["isError"]) || isFalse(m["success"]) || errText != "" || code != ""
	if !failed {
		return "", false
	}
	for _, k := range []string{"message", "stderr", "content", "stdout"} {
		if errText != "" {
			break
		}
		errText = JSONText(m[k])
	}
	if code != "" {
		errText = strings.TrimSpace("Exit code " + code + "\n" + errText)
	}
	return errText, true
}

func isTrue(raw json.RawMessage) bool {
	var b bool
	return json.Unmarshal(raw, &b) == nil && b
}

func isFalse(raw json.RawMessage) bool {
	var b bool
	return len(raw) > 0 && json.Unmarshal(raw, &b) == nil && !b
}

// JSONText is the text a JSON value in a hook payload carries: a string
// (trimmed), an object's "message" or "text", or the text parts of a list,
// one a line; "" for anything else.
func JSONText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return strings.TrimSpace(str)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for _, k := range []string{"message", "text"} {
			if t := JSONText(obj[k]); t != "" {
				return t
			}
		}
		return ""
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var parts []string
		for _, it := range list {
			if t := JSONText(it); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
