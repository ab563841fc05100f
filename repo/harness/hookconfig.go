package harness

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

// Layout is how a harness's JSON config lists its hooks.
type Layout int

// The layouts of the harnesses' hook configs.
const (
	// MatcherGroups: {"hooks": {"Event": [{"matcher": "...", "hooks":
	// [{"type": "command", "command": "..."}]}]}} (Claude Code, Codex CLI,
	// Gemini CLI).
	MatcherGroups Layout = iota
	// CommandList: {"version": 1, "hooks": {"event": [{"command": "..."}]}}
	// (Cursor).
	CommandList
	// ShellCommands: {"version": 1, "hooks": {"event": [{"type":
	// "command", "bash": "...", "powershell": "...", "timeoutSec": n}]}}
	// (GitHub Copilot).
	ShellCommands
)

// HookEntry is one hook td runs from a harness's config.
type HookEntry struct {
	Event string `json:"event"`
	// Matcher selects the tools (or sources) a matcher group fires for;
	// "" for none.
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
}

// HookConfig describes the config file td merges its hooks into.
type HookConfig struct {
	// Harness is the word after td hook (codex).
	Harness string
	// Path is the file, relative to the work tree root, slash-separated.
	Path   string
	Layout Layout
	// Entries are td's hooks, in the order a conversation meets them.
	Entries []HookEntry
}

// EventInstall says what td did about one event.
type EventInstall struct {
	Event   string `json:"event"`
	Command string `json:"command"`
	// Action is "added", or already installed when a td hook for the
	// event was there.
	Action string `json:"action"`
}

// ConfigInstall says what InstallHookConfig did to the file.
type ConfigInstall struct {
	Path string `json:"path"`
	// Action is installed (the file was made), updated (entries were
	// added) or already installed (nothing to do).
	Action string         `json:"action"`
	Events []EventInstall `json:"events"`
}

// maxConfigSize bounds a harness config td reads.
const maxConfigSize = 1 << 20

// Fragment is td's entries as the file would hold them alone, to paste by
// hand (td hooks install --<harness> --print).
func (c HookConfig) Fragment() []byte {
	out, _, _ := c.merge(nil, "  ")
	return out
}

// Install merges td's hooks into the config at root: every other byte of
// the file stays as it was (td's entries are inserted, laid out as the
// text around them), an event that already runs td's hook is left
// alone, and a file that needs nothing is not rewritten. A file td cannot
// read as a JSON object is reported and never overwritten; a symlink is
// refused.
func (c HookConfig) Install(root string) (*ConfigInstall, error) {
	p := filepath.Join(root, filepath.FromSlash(c.Path))
	res := &ConfigInstall{Path: c.Path, Action: sessions.HookInstalled}
	fi, err := os.Lstat(p)
	var data []byte
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", c.Path, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, repo.Errorf(repo.CodeRefused, "%s is a symlink, and td does not write through one; add the entries td hooks install --%s --print shows to the file it points to", c.Path, c.Harness)
	case !fi.Mode().IsRegular():
		return nil, repo.Errorf(repo.CodeRefused, "%s is not a regular file; remove it or add td's entries (td hooks install --%s --print) by hand", c.Path, c.Harness)
	case fi.Size() > maxConfigSize:
		return nil, repo.Errorf(repo.CodeRefused, "%s is over %d bytes; add td's entries (td hooks install --%s --print) by hand", c.Path, maxConfigSize, c.Harness)
	default:
		if data, err = os.ReadFile(p); err != nil {
			return nil, fmt.Errorf("read %s: %w", c.Path, err)
		}
		res.Action = sessions.HookUpdated
	}
	out, events, err := c.merge(data, detectIndent(data))
	if err != nil {
		return nil, err
	}
	if data != nil && len(bytes.TrimSpace(data)) > 0 {
		// The file is valid and merge knows what to add: add it to the
		// file's own bytes, so the rest of the file stays as it was.
		out = c.splice(data, events, detectIndent(data))
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
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(c.Path), err)
	}
	if err := repo.WriteFileAtomic(p, out); err != nil {
		return nil, fmt.Errorf("write %s: %w", c.Path, err)
	}
	return res, nil
}

// jsonMember is one key of a JSON object with its value as written.
type jsonMember struct {
	key string
	val json.RawMessage
}

// merge adds td's entries to a config document (nil or blank for a new
// one), keeping its keys in their order.
func (c HookConfig) merge(data []byte, indent string) ([]byte, []EventInstall, error) {
	var top []jsonMember
	if len(bytes.TrimSpace(data)) > 0 {
		var err error
		if top, err = decodeObject(data); err != nil {
			return nil, nil, c.parseError(data, err, "")
		}
	}
	if c.Layout != MatcherGroups {
		vi := memberIndex(top, "version")
		if vi < 0 {
			top = append([]jsonMember{{key: "version", val: json.RawMessage("1")}}, top...)
		} else if string(bytes.TrimSpace(top[vi].val)) != "1" {
			return nil, nil, &repo.ParseError{Path: c.Path, Msg: fmt.Sprintf("\"version\" is %s, and td writes hooks of version 1 only; add td's entries (td hooks install --%s --print) by hand", bytes.TrimSpace(top[vi].val), c.Harness)}
		}
	}
	hi := -1
	for i, m := range top {
		if m.key == "hooks" {
			if hi >= 0 {
				return nil, nil, &repo.ParseError{Path: c.Path, Msg: fmt.Sprintf("the key \"hooks\" appears twice; keep one, then run td hooks install --%s again", c.Harness)}
			}
			hi = i
		}
	}
	var hooks []jsonMember
	if hi >= 0 {
		var err error
		if hooks, err = decodeObject(top[hi].val); err != nil {
			return nil, nil, c.parseError(data, err, "\"hooks\"")
		}
	} else {
		top = append(top, jsonMember{key: "hooks"})
		hi = len(top) - 1
	}
	var events []EventInstall
	for _, h := range c.Entries {
		ev := EventInstall{Event: h.Event, Command: h.Command, Action: "added"}
		at := memberIndex(hooks, h.Event)
		if at < 0 {
			hooks = append(hooks, jsonMember{key: h.Event, val: json.RawMessage("[" + string(c.entry(h)) + "]")})
			events = append(events, ev)
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(hooks[at].val, &list); err != nil {
			what := "a list"
			if c.Layout == MatcherGroups {
				what = "a list of matcher groups"
			}
			return nil, nil, &repo.ParseError{Path: c.Path, Msg: fmt.Sprintf("\"hooks\".%q is not %s; fix it, then run td hooks install --%s again", h.Event, what, c.Harness)}
		}
		if c.hasTdHook(list, h.Event) {
			ev.Action = sessions.HookCurrent
		} else {
			list = append(list, c.entry(h))
			hooks[at].val = encodeArray(list)
		}
		events = append(events, ev)
	}
	top[hi].val = encodeObject(hooks)
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(top), "", indent); err != nil {
		return nil, nil, fmt.Errorf("lay out %s: %w", c.Path, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), events, nil
}

// entry is the JSON td appends to an event's list.
func (c HookConfig) entry(h HookEntry) json.RawMessage {
	cmd := string(jsonString(h.Command))
	switch c.Layout {
	case CommandList:
		if h.Matcher != "" {
			return json.RawMessage(`{"command":` + cmd + `,"matcher":` + string(jsonString(h.Matcher)) + `}`)
		}
		return json.RawMessage(`{"command":` + cmd + `}`)
	case ShellCommands:
		return json.RawMessage(`{"type":"command","bash":` + cmd + `,"powershell":` + cmd + `,"timeoutSec":30}`)
	}
	hooks := `"hooks":[{"type":"command","command":` + cmd + `}]`
	if h.Matcher == "" {
		return json.RawMessage("{" + hooks + "}")
	}
	return json.RawMessage(`{"matcher":` + string(jsonString(h.Matcher)) + "," + hooks + "}")
}

// hasTdHook reports whether an event's list already runs td's hook for
// the event (whatever its matcher or options).
func (c HookConfig) hasTdHook(list []json.RawMessage, event string) bool {
	prefix := "td hook " + c.Harness + " "
	isTd := func(cmd string) bool {
		f := strings.Fields(cmd)
		return strings.HasPrefix(strings.Join(f, " ")+" ", prefix) && len(f) >= 4 && f[3] == event
	}
	for _, raw := range list {
		var e struct {
			Command string `json:"command"`
			Bash    string `json:"bash"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		if isTd(e.Command) || isTd(e.Bash) {
			return true
		}
		for _, h := range e.Hooks {
			if isTd(h.Command) {
				return true
			}
		}
	}
	return false
}

func memberIndex(ms []jsonMember, key string) int {
	at := -1
	for i, m := range ms {
		if m.key == key {
			at = i
		}
	}
	return at
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

// encodeArray writes values back as a JSON array, each as it was written.
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

// parseError reports a config td cannot merge into, with the line when
// the JSON itself is broken.
func (c HookConfig) parseError(data []byte, err error, where string) error {
	fix := fmt.Sprintf("td does not rewrite a file it cannot read: fix it, then run td hooks install --%s again", c.Harness)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		var whole any
		if werr := json.Unmarshal(data, &whole); werr != nil {
			errors.As(werr, &se)
		}
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return &repo.ParseError{Path: c.Path, Line: line, Msg: se.Error() + "; " + fix}
	}
	what := "the file"
	if where != "" {
		what = where
	}
	if errors.Is(err, errNotObject) {
		return &repo.ParseError{Path: c.Path, Msg: what + " is not a JSON object; " + fix}
	}
	return &repo.ParseError{Path: c.Path, Msg: err.Error() + "; " + fix}
}

// detectIndent returns the indentation unit a JSON file uses (that of its
// first indented line), two spaces when it has none.
func detectIndent(data []byte) string {
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimLeft(l, " \t")
		if t != "" && len(t) < len(l) {
			return l[:len(l)-len(t)]
		}
	}
	return "  "
}
