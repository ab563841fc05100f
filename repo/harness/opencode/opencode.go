// Package opencode is td's adapter for OpenCode, whose hooks are
// JavaScript plugins: the plugin td writes to .opencode/plugins/td.js
// (plugin.js beside this file), which hands td a small JSON payload at each
// moment and acts on its answer, and the mapping of those moments onto
// td's session lifecycle.
//
//	session.created        start the session; its context goes into the
//	                       next system prompt
//	session.resumed        (the plugin's: a session's first message in a
//	                       new OpenCode process) resume the session
//	tool.execute.before    deny an escalating td command (bash) or a
//	                       project agent's edit of td's records: the plugin
//	                       throws td's sentence as the tool's error
//	tool.execute.after     a bash call with a non-zero exit is a session
//	                       error; the stall warning is added to the output
//	experimental.session.compacting
//	                       the session is compacted
//	session.compacted      the reminder, for the next system prompt
//	session.error          the turn ended on an error (an API error): it is
//	                       a session error, the session stops and its
//	                       claim's lease ends after a grace
//	session.idle           stop the session at the end of the turn
//	session.deleted        the handoff is written, the session stops and
//	                       its claim's lease ends
//
// shell.env gives the agent's shell commands TD_SESSION; chat.message's
// model is sent with each payload and recorded with the session.
//
// The plugin is written in the plugin API of @opencode-ai/plugin 1.x (an
// exported async function returning hooks: form v1). OpenCode's next
// plugin API (define({id, setup}), loaded from the config key plugins)
// will not load it; everything td knows of the API is in the one file, so
// a plugin of the new form replaces it whole, and PluginForm tells which
// form a file is.
package opencode

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/harness"
	"github.com/tdproject/td/repo/sessions"
)

// Name names OpenCode among harnesses.
const Name = "opencode"

// Title is how td names the harness to people.
const Title = "OpenCode"

// ConfigFile is the plugin td writes.
const ConfigFile = ".opencode/plugins/td.js"

// Plugin is the plugin's source, as td writes it.
//
//go:embed plugin.js
var Plugin []byte

// pluginMarker starts the plugin's first line: a file that starts with it
// is td's to rewrite.
var pluginMarker = []byte("// td's OpenCode plugin")

// Events are the moments the plugin reports.
var Events = []string{"session.created", "session.resumed", "tool.execute.before", "tool.execute.after",
	"experimental.session.compacting", "session.compacted", "session.error", "session.idle", "session.deleted"}

// Payload is what the plugin sends td: OpenCode's session id (the root's
// for a subagent, whose own id is then agent_id), the tool call's name,
// args, output and metadata, or the session's error.
type Payload struct {
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
	AgentID   string          `json:"agent_id"`
	AgentType string          `json:"agent_type"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Output    string          `json:"output"`
	Metadata  json.RawMessage `json:"metadata"`
	Error     json.RawMessage `json:"error"`
	// Model is the provider/model of the session's last message.
	Model string `json:"model"`
}

// ReadCall reads the plugin's payload and maps its moment.
func ReadCall(in io.Reader, named string, conv harness.Conversation) (*harness.Call, error) {
	var p Payload
	if err := harness.ReadPayload(in, "td's OpenCode plugin", &p); err != nil {
		return nil, err
	}
	ev, err := harness.EventName(named, "", Title, ConfigFile, Events)
	if err != nil {
		return nil, err
	}
	conv.Harness, conv.ID = Name, p.SessionID
	e := harness.Event{Conversation: conv, Dir: p.Cwd, CompactionDropped: true, Model: p.Model}
	if p.AgentID != "" {
		e.Subagent = &harness.Subagent{ID: p.AgentID, Type: p.AgentType}
	}
	tool := harness.ToolCall{Name: p.Tool}
	if cmd := harness.InputString(p.Args, "command"); cmd != "" && p.Tool == "bash" {
		tool.Command, tool.Target = cmd, harness.ToolTarget("", cmd, "")
	} else if p.Tool != "read" {
		tool.Paths = harness.InputPaths(p.Args, "filePath", "file_path", "path")
		if patch := harness.InputString(p.Args, "patchText"); patch != "" {
			tool.Paths = harness.PatchPaths(patch)
		}
	}
	switch ev {
	case "session.created":
		e.Moment, e.Source = harness.Start, harness.SourceStartup
	case "session.resumed":
		e.Moment, e.Source = harness.Start, harness.SourceResume
	case "tool.execute.before":
		e.Moment, e.Tool = harness.PreTool, tool
		if !harness.WritingTool(p.Tool) {
			e.Tool.Paths = nil // grep, glob, list read what they name
		}
	case "tool.execute.after":
		e.Moment, e.Tool = harness.PostTool, tool
		if len(tool.Paths) > 0 {
			e.Tool.Target = harness.ToolTarget(p.Cwd, "", tool.Paths[0])
		}
		e.Tool.Paths = nil
		var meta struct {
			Exit *int `json:"exit"`
		}
		if json.Unmarshal(p.Metadata, &meta) == nil && meta.Exit != nil && *meta.Exit != 0 {
			e.Failure = &harness.ToolFailure{Tool: p.Tool, Error: fmt.Sprintf("Exit code %d\n%s", *meta.Exit, p.Output)}
		}
	case "experimental.session.compacting":
		e.Moment = harness.PreCompact
	case "session.compacted":
		e.Moment = harness.Prompt
	case "session.error":
		e.Moment, e.Reason = harness.Failed, errorText(p.Error)
	case "session.idle":
		e.Moment = harness.Stop
	case "session.deleted":
		e.Moment = harness.End
	}
	return &harness.Call{Native: ev, Cwd: p.Cwd, Event: e}, nil
}

// errorText reads an OpenCode session error ({"name", "data":
// {"message"}}).
func errorText(raw json.RawMessage) string {
	var e struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Data.Message != "" {
		return e.Data.Message
	}
	if t := harness.JSONText(raw); t != "" {
		return t
	}
	return e.Name
}

// Render is td's answer to the plugin: {"session": td's session id,
// "context": the block or stall warning to add, "deny": the sentence the
// tool call is refused with}, empty keys left out; nothing when there is
// nothing to say.
func Render(c *harness.Call, out *harness.Outcome, text string) ([]byte, error) {
	a := answer{Context: text}
	if out.Session != nil && c.Event.Moment == harness.Start {
		a.Session = out.Session.ID
	}
	if out.Deny != "" {
		a.Deny = "td: " + out.Deny
	}
	if a == (answer{}) {
		return nil, nil
	}
	return harness.EncodeJSON(a)
}

// answer is td's answer to the plugin.
type answer struct {
	Session string `json:"session,omitempty"`
	Context string `json:"context,omitempty"`
	Deny    string `json:"deny,omitempty"`
}

// Install writes the plugin into the work tree at root: a new file, td's
// older plugin replaced, nothing done when it is current. A file at the
// path that is not td's plugin is never overwritten, and a symlink is
// refused.
func Install(root string) (*harness.ConfigInstall, error) {
	p := filepath.Join(root, filepath.FromSlash(ConfigFile))
	res := &harness.ConfigInstall{Path: ConfigFile, Action: sessions.HookInstalled,
		Events: []harness.EventInstall{{Event: "plugin", Command: "td hook " + Name + " EVENT", Action: "added"}}}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", ConfigFile, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, repo.Errorf(repo.CodeRefused, "%s is a symlink, and td does not write through one; copy td hooks install --opencode --print into the file it points to", ConfigFile)
	case !fi.Mode().IsRegular():
		return nil, repo.Errorf(repo.CodeRefused, "%s is not a regular file; remove it, then run td hooks install --opencode again", ConfigFile)
	default:
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", ConfigFile, err)
		}
		if bytes.Equal(data, Plugin) {
			res.Action, res.Events[0].Action = sessions.HookCurrent, sessions.HookCurrent
			return res, nil
		}
		if !bytes.HasPrefix(data, pluginMarker) {
			return nil, repo.Errorf(repo.CodeRefused, "%s is not td's plugin, and td does not overwrite it; move it to another name under .opencode/plugins, then run td hooks install --opencode again", ConfigFile)
		}
		res.Action, res.Events[0].Action = sessions.HookUpdated, sessions.HookUpdated
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(ConfigFile), err)
	}
	if err := repo.WriteFileAtomic(p, Plugin); err != nil {
		return nil, fmt.Errorf("write %s: %w", ConfigFile, err)
	}
	return res, nil
}

// Plugin forms: the plugin APIs OpenCode loads plugins by.
const (
	// FormV1 is @opencode-ai/plugin 1.x's: a module exporting async
	// functions that return hooks, loaded from .opencode/plugins.
	FormV1 = "v1"
	// FormV2 is the next API's: define({id, setup}), loaded from the
	// config key plugins.
	FormV2 = "v2"
)

// PluginForm tells which plugin API a plugin file is written in: the
// form td's plugin names on its second line, else FormV2 for a module
// that calls define with an id and a setup, else FormV1; "" for a file
// that is not td's plugin.
func PluginForm(data []byte) string {
	if !bytes.HasPrefix(data, pluginMarker) {
		return ""
	}
	for _, l := range bytes.SplitN(data, []byte("\n"), 4)[1:] {
		if v, ok := bytes.CutPrefix(bytes.TrimSpace(l), []byte("// td-plugin-form: ")); ok {
			form, _, _ := bytes.Cut(v, []byte(" "))
			return string(form)
		}
	}
	if bytes.Contains(data, []byte("define(")) && bytes.Contains(data, []byte("setup")) {
		return FormV2
	}
	return FormV1
}

// Readiness says whether OpenCode will run td's plugin in the work tree
// at root, and in which plugin form it is written: OpenCode loads every
// plugin under .opencode/plugins, with no review of its own, in the form
// its plugin API takes (FormV1 for @opencode-ai/plugin 1.x).
func Readiness(root string) (*harness.Readiness, error) {
	r := &harness.Readiness{Harness: Name, Config: ConfigFile, Runs: harness.RunsNo}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(ConfigFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	form := PluginForm(data)
	if form == "" {
		r.Notes = append(r.Notes, ConfigFile+" is not td's plugin: td hooks install --opencode will not overwrite it; move it to another name, then run td hooks install --opencode")
		return r, nil
	}
	r.Installed, r.Form = true, form
	switch {
	case bytes.Equal(data, Plugin):
		r.Runs = harness.RunsYes
	case form != PluginForm(Plugin):
		r.Missing = []string{"plugin"}
		r.Notes = append(r.Notes, fmt.Sprintf("td's plugin there is of form %s, and this td writes form %s for the OpenCode it was built for: td hooks install --opencode rewrites it", form, PluginForm(Plugin)))
		r.Runs = harness.RunsUnknown
	default:
		r.Missing = []string{"plugin"}
		r.Runs = harness.RunsYes
	}
	return r, nil
}
