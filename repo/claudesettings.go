package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ClaudeSettingsFile is Claude Code's project settings file, relative to the
// work tree root: committed, so every clone's harness runs td's hooks.
const ClaudeSettingsFile = ".claude/settings.json"

// claudeHookPrefix starts every hook command td writes; a hook whose
// command starts with it, followed by the event, is td's.
const claudeHookPrefix = "td hook claude "

// ClaudeHook is one entry td adds under "hooks" in the settings file.
type ClaudeHook struct {
	Event string `json:"event"`
	// Matcher selects the tools a tool event fires for; "" for events
	// without tools, where the entry has no matcher.
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
}

// ClaudeHooks returns the harness events td listens to, in the order a
// conversation meets them: its start (every source: startup, resume,
// clear, compact), each tool call that succeeded or failed, the end of each
// turn, and the end of the conversation.
func ClaudeHooks() []ClaudeHook {
	hooks := []ClaudeHook{
		{Event: "SessionStart"},
		{Event: "PostToolUse", Matcher: "*"},
		{Event: "PostToolUseFailure", Matcher: "*"},
		{Event: "Stop"},
		{Event: "SessionEnd"},
	}
	for i := range hooks {
		hooks[i].Command = claudeHookPrefix + hooks[i].Event
	}
	return hooks
}

// group is the matcher group td appends to an event's list, its keys in the
// order the harness's documentation shows them.
func (h ClaudeHook) group() json.RawMessage {
	hooks := `"hooks":[{"type":"command","command":` + string(jsonString(h.Command)) + `}]`
	if h.Matcher == "" {
		return json.RawMessage("{" + hooks + "}")
	}
	return json.RawMessage(`{"matcher":` + string(jsonString(h.Matcher)) + "," + hooks + "}")
}

// ClaudeHooksSettings returns td's entries as a settings fragment,
// {"hooks": {...}}, to paste by hand (td hooks install --claude --print).
func ClaudeHooksSettings() []byte {
	out, _, _ := mergeClaudeSettings(nil, "  ")
	return out
}

// ClaudeHookInstall says what td did about one event.
type ClaudeHookInstall struct {
	Event   string `json:"event"`
	Command string `json:"command"`
	// Action is "added", or HookCurrent when a td hook for the event was
	// there already.
	Action string `json:"action"`
}

// ClaudeInstall says what InstallClaudeHooks did to the settings file.
type ClaudeInstall struct {
	Path string `json:"path"` // relative to the work tree root
	// Action is HookInstalled (the file was made), HookUpdated (entries
	// were added to it) or HookCurrent (nothing to do).
	Action string              `json:"action"`
	Events []ClaudeHookInstall `json:"events"`
}

// maxSettingsSize bounds the settings file td reads.
const maxSettingsSize = 1 << 20

// InstallClaudeHooks merges td's hook entries into the project's
// .claude/settings.json: every other key, hook and matcher group stays, an
// event that already runs a td hook is left alone, and a file that needs
// nothing is not rewritten. A file td cannot read as a JSON object is
// reported and never overwritten; a symlink is refused.
func (s *Store) InstallClaudeHooks() (*ClaudeInstall, error) {
	p := filepath.Join(s.Root, filepath.FromSlash(ClaudeSettingsFile))
	res := &ClaudeInstall{Path: ClaudeSettingsFile, Action: HookInstalled}
	fi, err := os.Lstat(p)
	var data []byte
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", ClaudeSettingsFile, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, errorf(CodeRefused, "%s is a symlink, and td does not write through one; add the entries td hooks install --claude --print shows to the file it points to", ClaudeSettingsFile)
	case !fi.Mode().IsRegular():
		return nil, errorf(CodeRefused, "%s is not a regular file; remove it or add td's entries (td hooks install --claude --print) by hand", ClaudeSettingsFile)
	case fi.Size() > maxSettingsSize:
		return nil, errorf(CodeRefused, "%s is over %d bytes; add td's entries (td hooks install --claude --print) by hand", ClaudeSettingsFile, maxSettingsSize)
	default:
		if data, err = os.ReadFile(p); err != nil {
			return nil, fmt.Errorf("read %s: %w", ClaudeSettingsFile, err)
		}
		res.Action = HookUpdated
	}
	out, events, err := mergeClaudeSettings(data, detectIndent(data))
	if err != nil {
		return nil, err
	}
	res.Events = events
	added := false
	for _, e := range events {
		added = added || e.Action != HookCurrent
	}
	if !added && data != nil {
		res.Action = HookCurrent
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(ClaudeSettingsFile), err)
	}
	if err := writeFileAtomic(p, out); err != nil {
		return nil, fmt.Errorf("write %s: %w", ClaudeSettingsFile, err)
	}
	return res, nil
}

// jsonMember is one key of a JSON object with its value as written.
type jsonMember struct {
	key string
	val json.RawMessage
}

// mergeClaudeSettings adds td's hook entries to a settings document (nil
// or blank for a new one), keeping its keys in their order, and returns
// the document indented with indent, and what it did per event.
func mergeClaudeSettings(data []byte, indent string) ([]byte, []ClaudeHookInstall, error) {
	var top []jsonMember
	if len(bytes.TrimSpace(data)) > 0 {
		var err error
		if top, err = decodeObject(data); err != nil {
			return nil, nil, settingsError(data, err, "")
		}
	}
	hi := -1
	for i, m := range top {
		if m.key == "hooks" {
			if hi >= 0 {
				return nil, nil, errorf(CodeParse, "%s: the key \"hooks\" appears twice; keep one, then run td hooks install --claude again", ClaudeSettingsFile)
			}
			hi = i
		}
	}
	var hooks []jsonMember
	if hi >= 0 {
		var err error
		if hooks, err = decodeObject(top[hi].val); err != nil {
			return nil, nil, settingsError(data, err, "\"hooks\"")
		}
	} else {
		top = append(top, jsonMember{key: "hooks"})
		hi = len(top) - 1
	}
	var events []ClaudeHookInstall
	for _, h := range ClaudeHooks() {
		ev := ClaudeHookInstall{Event: h.Event, Command: h.Command, Action: "added"}
		at := -1
		for i, m := range hooks {
			if m.key == h.Event {
				at = i
			}
		}
		if at < 0 {
			hooks = append(hooks, jsonMember{key: h.Event, val: json.RawMessage("[" + string(h.group()) + "]")})
			events = append(events, ev)
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(hooks[at].val, &groups); err != nil {
			return nil, nil, errorf(CodeParse, "%s: \"hooks\".%q is not a list of matcher groups; fix it, then run td hooks install --claude again", ClaudeSettingsFile, h.Event)
		}
		if hasTdHook(groups, h.Event) {
			ev.Action = HookCurrent
		} else {
			groups = append(groups, h.group())
			hooks[at].val = encodeArray(groups)
		}
		events = append(events, ev)
	}
	top[hi].val = encodeObject(hooks)
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(top), "", indent); err != nil {
		return nil, nil, fmt.Errorf("lay out %s: %w", ClaudeSettingsFile, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), events, nil
}

// hasTdHook reports whether any matcher group already runs td's hook for
// the event (whatever its matcher or options).
func hasTdHook(groups []json.RawMessage, event string) bool {
	for _, g := range groups {
		var grp struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &grp) != nil {
			continue
		}
		for _, h := range grp.Hooks {
			f := strings.Fields(h.Command)
			if strings.HasPrefix(strings.Join(f, " ")+" ", claudeHookPrefix) && len(f) >= 4 && f[3] == event {
				return true
			}
		}
	}
	return false
}

// decodeObject reads a JSON object's members in their order.
func decodeObject(data []byte) ([]jsonMember, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var out []jsonMember
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{key: key, val: val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return out, nil
}

var (
	errNotObject = errors.New("not a JSON object")
	errTrailing  = errors.New("text after the JSON object")
)

// encodeObject writes members back as a compact JSON object.
func encodeObject(members []jsonMember) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(m.key))
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// encodeArray writes values back as a JSON array, each as it was written
// (json.Marshal would escape the user's & < > into \u0026 and the like).
func encodeArray(vals []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// jsonString quotes s as a JSON string without HTML escaping.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// settingsError reports a settings file td cannot merge into, with the
// line when the JSON itself is broken.
func settingsError(data []byte, err error, where string) error {
	what := "the file"
	if where != "" {
		what = where
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The decoder counts from where it stood; a whole-document check
		// gives the offset in the file.
		var whole any
		if werr := json.Unmarshal(data, &whole); werr != nil {
			errors.As(werr, &se)
		}
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return &ParseError{Path: ClaudeSettingsFile, Line: line, Msg: se.Error() + "; td does not rewrite a file it cannot read: fix it, then run td hooks install --claude again"}
	}
	if errors.Is(err, errNotObject) {
		return &ParseError{Path: ClaudeSettingsFile, Msg: what + " is not a JSON object; td does not rewrite a file it cannot read: fix it, then run td hooks install --claude again"}
	}
	return &ParseError{Path: ClaudeSettingsFile, Msg: err.Error() + "; td does not rewrite a file it cannot read: fix it, then run td hooks install --claude again"}
}

// detectIndent returns the indentation unit a JSON file uses (that of its
// first indented line), two spaces when it has none: the layout Claude
// Code writes itself.
func detectIndent(data []byte) string {
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimLeft(l, " \t")
		if t != "" && len(t) < len(l) {
			return l[:len(l)-len(t)]
		}
	}
	return "  "
}
