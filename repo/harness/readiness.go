package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Whether a harness will run td's hooks (Readiness.Runs).
const (
	// RunsYes: the harness's own records say it runs them.
	RunsYes = "yes"
	// RunsNo: it will not, until the step Notes name is taken.
	RunsNo = "no"
	// RunsUnknown: td cannot read whether it will; Notes name the step
	// that makes sure.
	RunsUnknown = "unknown"
)

// Readiness says whether a harness will run td's hooks in a work tree:
// whether its config holds them, whether it holds all this td installs,
// and whether the harness trusts them (a harness may skip a project hook
// the user has not reviewed, or every hook of a folder it does not
// trust). td doctor reports it, and td hooks install says it after
// writing the hooks.
type Readiness struct {
	Harness string `json:"harness"`
	// Config is td's hooks file for the harness, relative to the work
	// tree.
	Config string `json:"config"`
	// Installed is true when the file holds td's hooks.
	Installed bool `json:"installed"`
	// Missing are the events this td installs that the file lacks (an
	// older td wrote it): td hooks install adds them.
	Missing []string `json:"missing,omitempty"`
	// Form is the plugin API td's plugin is written in, for a harness
	// whose hooks are a plugin (OpenCode's "v1"); "" for a config file.
	Form string `json:"form,omitempty"`
	// Runs is RunsYes, RunsNo or RunsUnknown.
	Runs string `json:"runs"`
	// Notes say why, each with the step the user must take.
	Notes []string `json:"notes,omitempty"`
}

// Home reads the directories a harness keeps its user records in: env is
// the environment td runs in (HOME, and the harness's own variable).
type Home func(key string) string

// Dir is the directory the environment variable key names, else
// $HOME/rel; "" when neither is set.
func (h Home) Dir(key, rel string) string {
	if key != "" {
		if v := h(key); v != "" {
			return v
		}
	}
	home := h("HOME")
	if home == "" {
		return ""
	}
	return filepath.Join(home, rel)
}

// Show is a path as td names it to people: under HOME, as ~/rel.
func (h Home) Show(path string) string {
	home := h("HOME")
	if home == "" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && filepath.IsLocal(rel) {
		return "~/" + filepath.ToSlash(rel)
	}
	return path
}

// Readiness reads td's hooks file at root: whether it holds td's hooks,
// and which of this td's events it lacks. Runs is left for the adapter,
// which knows what its harness trusts; it is RunsNo when td's hooks are
// not there at all.
func (c HookConfig) Readiness(root string) (*Readiness, error) {
	r := &Readiness{Harness: c.Harness, Config: c.Path, Runs: RunsUnknown}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Path)))
	if errors.Is(err, fs.ErrNotExist) {
		r.Runs = RunsNo
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	top, err := decodeObject(data)
	if err != nil {
		return nil, c.parseError(data, err, "")
	}
	var hooks []jsonMember
	if i := memberIndex(top, "hooks"); i >= 0 {
		if hooks, err = decodeObject(top[i].val); err != nil {
			return nil, c.parseError(data, err, "\"hooks\"")
		}
	}
	for _, h := range c.Entries {
		var list []json.RawMessage
		if i := memberIndex(hooks, h.Event); i >= 0 {
			_ = json.Unmarshal(hooks[i].val, &list)
		}
		if c.hasTdHook(list, h.Event) {
			r.Installed = true
		} else {
			r.Missing = append(r.Missing, h.Event)
		}
	}
	if !r.Installed {
		r.Runs = RunsNo
	}
	return r, nil
}

// Groups returns, for each of td's events the file at root holds, the
// matcher group (index gi) and hook (index hi) running td's hook, with
// the group's matcher: what a harness that fingerprints hooks reads.
// Only the MatcherGroups layout has groups.
func (c HookConfig) Groups(root string) ([]TdHook, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Path)))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string          `json:"type"`
				Command string          `json:"command"`
				Timeout json.RawMessage `json:"timeout"`
				Async   bool            `json:"async"`
				Status  string          `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, c.parseError(data, err, "")
	}
	var out []TdHook
	for _, e := range c.Entries {
		for gi, g := range doc.Hooks[e.Event] {
			for hi, h := range g.Hooks {
				f := strings.Fields(h.Command)
				if len(f) < 4 || strings.Join(f[:3], " ") != "td hook "+c.Harness || f[3] != e.Event {
					continue
				}
				th := TdHook{Event: e.Event, Group: gi, Hook: hi, Type: h.Type, Command: h.Command, Async: h.Async, StatusMessage: h.Status}
				if g.Matcher != nil {
					th.Matcher, th.HasMatcher = *g.Matcher, true
				}
				var n json.Number
				if json.Unmarshal(h.Timeout, &n) == nil {
					if v, err := n.Int64(); err == nil {
						th.Timeout = &v
					}
				}
				out = append(out, th)
			}
		}
	}
	return out, nil
}

// TdHook is one of td's hooks as a harness config holds it.
type TdHook struct {
	Event string
	// Group and Hook are its matcher group's index in the event's list
	// and its own in the group's hooks.
	Group, Hook int
	Matcher     string
	HasMatcher  bool
	Type        string
	Command     string
	// Timeout is the timeout the file sets, nil for none.
	Timeout       *int64
	Async         bool
	StatusMessage string
}

// ReadJSONC reads a JSON file that may hold comments (// and /* */), as
// the Gemini CLI's and Claude Code's own files may, into v.
func ReadJSONC(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(StripJSONComments(data), v)
}

// StripJSONComments blanks the comments of a JSON text, strings left as
// they are; trailing commas are not JSON and stay an error.
func StripJSONComments(data []byte) []byte {
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}
