package claude

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

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
)

// SettingsFile is Claude Code's project settings file, relative to the
// work tree root: committed, so every clone's harness runs td's hooks.
const SettingsFile = ".claude/settings.json"

// hookPrefix starts every hook command td writes; a hook whose command
// starts with it, followed by the event, is td's.
const hookPrefix = "td hook " + Name + " "

// HookEntry is one entry td adds under "hooks" in the settings file.
type HookEntry struct {
	Event Event `json:"event"`
	// Matcher selects the tools a tool event fires for; "" for events
	// without tools, where the entry has no matcher.
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
}

// HookEntries returns the harness events td listens to, in the order a
// conversation meets them: its start (every source: startup, resume,
// clear, compact), each shell command and file write before it runs (to
// deny an agent the td commands that escalate and a project agent a hand
// edit of td's records), each tool call that succeeded or failed, the end
// of each turn, and the end of the conversation.
func HookEntries() []HookEntry {
	hooks := []HookEntry{
		{Event: SessionStart},
		{Event: PreToolUse, Matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit"},
		{Event: PostToolUse, Matcher: "*"},
		{Event: PostToolUseFailure, Matcher: "*"},
		{Event: Stop},
		{Event: SessionEnd},
	}
	for i := range hooks {
		hooks[i].Command = hookPrefix + string(hooks[i].Event)
	}
	return hooks
}

// group is the matcher group td appends to an event's list, its keys in the
// order the harness's documentation shows them.
func (h HookEntry) group() json.RawMessage {
	hooks := `"hooks":[{"type":"command","command":` + string(jsonString(h.Command)) + `}]`
	if h.Matcher == "" {
		return json.RawMessage("{" + hooks + "}")
	}
	return json.RawMessage(`{"matcher":` + string(jsonString(h.Matcher)) + "," + hooks + "}")
}

// SettingsFragment returns td's entries as a settings fragment,
// {"hooks": {...}}, to paste by hand (td hooks install --claude --print).
func SettingsFragment() []byte {
	out, _, _ := mergeSettings(nil, "  ")
	return out
}

// EventInstall says what td did about one event.
type EventInstall struct {
	Event   Event  `json:"event"`
	Command string `json:"command"`
	// Action is "added", or repo.HookCurrent when a td hook for the event
	// was there already.
	Action string `json:"action"`
}

// Install says what InstallHooks did to the settings file.
type Install struct {
	Path string `json:"path"` // relative to the work tree root
	// Action is repo.HookInstalled (the file was made), repo.HookUpdated
	// (entries were added to it) or repo.HookCurrent (nothing to do).
	Action string         `json:"action"`
	Events []EventInstall `json:"events"`
}

// maxSettingsSize bounds the settings file td reads.
const maxSettingsSize = 1 << 20

// InstallHooks merges td's hook entries into the .claude/settings.json of
// the work tree at root: every other key, hook and matcher group stays, an
// event that already runs a td hook is left alone, and a file that needs
// nothing is not rewritten. A file td cannot read as a JSON object is
// reported and never overwritten; a symlink is refused.
func InstallHooks(root string) (*Install, error) {
	p := filepath.Join(root, filepath.FromSlash(SettingsFile))
	res := &Install{Path: SettingsFile, Action: sessions.HookInstalled}
	fi, err := os.Lstat(p)
	var data []byte
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", SettingsFile, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, refusal(repo.CodeRefused, "%s is a symlink, and td does not write through one; add the entries td hooks install --claude --print shows to the file it points to", SettingsFile)
	case !fi.Mode().IsRegular():
		return nil, refusal(repo.CodeRefused, "%s is not a regular file; remove it or add td's entries (td hooks install --claude --print) by hand", SettingsFile)
	case fi.Size() > maxSettingsSize:
		return nil, refusal(repo.CodeRefused, "%s is over %d bytes; add td's entries (td hooks install --claude --print) by hand", SettingsFile, maxSettingsSize)
	default:
		if data, err = os.ReadFile(p); err != nil {
			return nil, fmt.Errorf("read %s: %w", SettingsFile, err)
		}
		res.Action = sessions.HookUpdated
	}
	out, events, err := mergeSettings(data, detectIndent(data))
	if err != nil {
		return nil, err
	}
	res.Events = events
	added := false
	for _, e := range events {
		added = added || e.Action != sessions.HookCurrent
	}
	if !added && data != nil {
		res.Action = sessions.HookCurrent
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(SettingsFile), err)
	}
	if err := repo.WriteFileAtomic(p, out); err != nil {
		return nil, fmt.Errorf("write %s: %w", SettingsFile, err)
	}
	return res, nil
}

// jsonMember is one key of a JSON object with its value as written.
type jsonMember struct {
	key string
	val json.RawMessage
}

// mergeSettings adds td's hook entries to a settings document (nil
// or blank for a new one), keeping its keys in their order, and returns
// the document indented with indent, and what it did per event.
func mergeSettings(data []byte, indent string) ([]byte, []EventInstall, error) {
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
				return nil, nil, refusal(repo.CodeParse, "%s: the key \"hooks\" appears twice; keep one, then run td hooks install --claude again", SettingsFile)
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
	var events []EventInstall
	for _, h := range HookEntries() {
		ev := EventInstall{Event: h.Event, Command: h.Command, Action: "added"}
		at := -1
		for i, m := range hooks {
			if m.key == string(h.Event) {
				at = i
			}
		}
		if at < 0 {
			hooks = append(hooks, jsonMember{key: string(h.Event), val: json.RawMessage("[" + string(h.group()) + "]")})
			events = append(events, ev)
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(hooks[at].val, &groups); err != nil {
			return nil, nil, refusal(repo.CodeParse, "%s: \"hooks\".%q is not a list of matcher groups; fix it, then run td hooks install --claude again", SettingsFile, h.Event)
		}
		if hasTdHook(groups, h.Event) {
			ev.Action = sessions.HookCurrent
		} else {
			groups = append(groups, h.group())
			hooks[at].val = encodeArray(groups)
		}
		events = append(events, ev)
	}
	top[hi].val = encodeObject(hooks)
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(top), "", indent); err != nil {
		return nil, nil, fmt.Errorf("lay out %s: %w", SettingsFile, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), events, nil
}

// hasTdHook reports whether any matcher group already runs td's hook for
// the event (whatever its matcher or options).
func hasTdHook(groups []json.RawMessage, event Event) bool {
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
			if strings.HasPrefix(strings.Join(f, " ")+" ", hookPrefix) && len(f) >= 4 && Event(f[3]) == event {
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
		return &repo.ParseError{Path: SettingsFile, Line: line, Msg: se.Error() + "; td does not rewrite a file it cannot read: fix it, then run td hooks install --claude again"}
	}
	if errors.Is(err, errNotObject) {
		return &repo.ParseError{Path: SettingsFile, Msg: what + " is not a JSON object; td does not rewrite a file it cannot read: fix it, then run td hooks install --claude again"}
	}
	return &repo.ParseError{Path: SettingsFile, Msg: err.Error() + "; td does not rewrite a file it cannot read: fix it, then run td hooks install --claude again"}
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

// refusal is a repo.Error of the code, its message formatted.
func refusal(code repo.Code, format string, args ...any) error {
	return &repo.Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}
