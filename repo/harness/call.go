package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Call is one run of a harness's hook as its adapter read it: the
// harness's own event name, the moment it maps onto, and the directory
// the harness ran it in.
type Call struct {
	// Native is the harness's name of the event (PreToolUse, beforeShellExecution).
	Native string
	Event  Event
	// Cwd is the directory the payload names, "" when none.
	Cwd string
}

// Acts reports whether the call does anything to a td session, so that
// one that does not (a tool call that worked, a command the guard has
// nothing to judge in) needs no repository.
func (c *Call) Acts() bool {
	ev := c.Event
	switch ev.Moment {
	case Start, Prompt, Stop, End:
		return true
	case PreTool:
		return len(ev.Tool.Paths) > 0 || (ev.Tool.Command != "" && Guarded(ev.Tool.Command))
	case PostTool:
		return ev.Failure != nil || ev.ReinjectAtTool
	case Edited:
		return len(ev.Tool.Paths) > 0
	case PreCompact:
		return true // the handoff, or the mark of a compaction announced
	case PostCompact:
		return ev.CompactionDropped
	case Failed, SubagentStart, SubagentStop:
		return true
	}
	return false
}

// MaxPayload bounds the payload td reads: a tool response carries the
// tool's whole output, so it can be large, but not without limit.
const MaxPayload = 32 << 20

// ReadPayload reads a hook payload of at most MaxPayload bytes and decodes
// it into v; title names the harness in what td says.
func ReadPayload(in io.Reader, title string, v any) error {
	raw, err := io.ReadAll(io.LimitReader(in, MaxPayload+1))
	if err != nil {
		return fmt.Errorf("read the hook payload: %w", err)
	}
	if len(raw) > MaxPayload {
		return fmt.Errorf("the hook payload is over %d bytes; nothing recorded", MaxPayload)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return fmt.Errorf("no hook payload on standard input; %s passes one as JSON", title)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("the hook payload is not JSON (%v at byte %d); nothing recorded", syn, syn.Offset)
		case errors.As(err, &typ) && typ.Field != "":
			return fmt.Errorf("the hook payload's %s is a JSON %s, which %s does not send there; nothing recorded", typ.Field, typ.Value, title)
		}
		return fmt.Errorf("the hook payload is not the JSON object %s sends; nothing recorded", title)
	}
	return nil
}

// EventName picks the event of a call: named, the event the hook's
// command gives, or else the payload's; they must agree, and the event
// must be one of known.
func EventName(named, inPayload, title, file string, known []string) (string, error) {
	ev := named
	switch {
	case ev == "":
		ev = inPayload
	case inPayload != "" && inPayload != named:
		return "", fmt.Errorf("the command names the event %s but the payload is for %s; fix the hook's command in %s", named, inPayload, file)
	}
	if ev == "" {
		return "", fmt.Errorf("no event: name it after td hook, or pass it in the payload")
	}
	for _, k := range known {
		if k == ev {
			return ev, nil
		}
	}
	return "", fmt.Errorf("td does not handle the %s event %s; it handles %s", title, ev, strings.Join(known, ", "))
}

// PatchPaths are the files an apply_patch style patch writes: the paths
// of its "*** Add File:", "*** Update File:", "*** Delete File:" and
// "*** Move to:" lines.
func PatchPaths(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if rest, ok := strings.CutPrefix(l, p); ok && strings.TrimSpace(rest) != "" {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	return out
}

// InputPaths reads the files a file tool's input names: the first of the
// keys that holds a string, or a list of strings.
func InputPaths(input json.RawMessage, keys ...string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return nil
	}
	for _, k := range keys {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var one string
		if json.Unmarshal(raw, &one) == nil && strings.TrimSpace(one) != "" {
			return []string{one}
		}
		var many []string
		if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
			return many
		}
	}
	return nil
}

// InputString is the string a tool input holds under key, "" when none.
func InputString(input json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	return JSONText(m[key])
}

// EncodeJSON encodes v as a hook's answer: indented, HTML left unescaped.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}

// writingWords are the words a tool's name has when the tool writes the
// files its input names.
var writingWords = []string{"write", "edit", "create", "delete", "remove", "move", "rename", "patch", "replace", "append", "insert", "save"}

// WritingTool reports whether a tool writes the files its input names, by
// its name: Write, Delete, edit, create, write_file, move_file and
// apply_patch do; Read, Grep, view, glob, read_file and list_directory do
// not, and the guard does not judge their paths (reading td's records is
// fine). It is for the tools a harness does not list in its payload
// reference: Cursor's, Copilot's, OpenCode's and any MCP server's.
func WritingTool(name string) bool {
	n := strings.ToLower(name)
	for _, w := range writingWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
