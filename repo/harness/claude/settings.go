package claude

import (
	"github.com/tdproject/td/repo/harness"
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
// clear, compact, fork), each prompt (the claim's heartbeat), each shell
// command and file write before it runs (to deny an agent the td commands
// that escalate and a project agent a hand edit of td's records), each
// tool call that succeeded or failed, the compaction (the handoff), each
// subagent's start and stop, the end of each turn, a turn ended by an
// API error, and the end of the conversation. PostCompact is not
// installed: the reminder comes with SessionStart's compact source; nor
// is WorktreeCreate, whose hook replaces Claude Code's own work tree
// creation.
func HookEntries() []HookEntry {
	hooks := []HookEntry{
		{Event: SessionStart},
		{Event: UserPromptSubmit},
		{Event: PreToolUse, Matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit"},
		{Event: PostToolUse, Matcher: "*"},
		{Event: PostToolUseFailure, Matcher: "*"},
		{Event: PreCompact},
		{Event: SubagentStart},
		{Event: SubagentStop},
		{Event: Stop},
		{Event: StopFailure},
		{Event: SessionEnd},
	}
	for i := range hooks {
		hooks[i].Command = hookPrefix + string(hooks[i].Event)
	}
	return hooks
}

// Config is td's entries in .claude/settings.json, for the merge every
// JSON harness config shares (harness.HookConfig).
func Config() harness.HookConfig {
	var entries []harness.HookEntry
	for _, h := range HookEntries() {
		entries = append(entries, harness.HookEntry{Event: string(h.Event), Matcher: h.Matcher, Command: h.Command})
	}
	return harness.HookConfig{Harness: Name, Path: SettingsFile, Layout: harness.MatcherGroups, Entries: entries}
}

// SettingsFragment returns td's entries as a settings fragment,
// {"hooks": {...}}, to paste by hand (td hooks install --claude --print).
func SettingsFragment() []byte { return Config().Fragment() }

// InstallHooks merges td's hook entries into the .claude/settings.json of
// the work tree at root: every other byte of the file stays as it was
// (td's groups come after the user's, laid out as the file is), an event
// that already runs a td hook is left alone, and a file that needs nothing
// is not rewritten. A file td cannot read as a JSON object is reported and
// never overwritten; a symlink is refused.
func InstallHooks(root string) (*harness.ConfigInstall, error) {
	return Config().Install(root)
}
