package command

import (
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
)

func TestSessionStartOptions(t *testing.T) {
	checkParse(t, "session", (*runner).sessionStartCommand, []parseCase[SessionStartOptions]{
		{name: "operator", argv: []string{"session", "start"}, want: SessionStartOptions{Category: domain.CategoryProject, Format: formatText}},
		{name: "agent", argv: []string{"session", "start", "--agent", "primary", "-n", "login", "--category", "meta", "--use", "-q", "--format", "markdown"},
			want: SessionStartOptions{Name: "login", Agent: "primary", Category: domain.CategoryMeta, Use: true, Quiet: true, Format: formatMarkdown}},
		{name: "argument", argv: []string{"session", "start", "x"}, usage: true},
	})
}

func TestSessionUseOptions(t *testing.T) {
	checkParse(t, "session", (*runner).sessionUseCommand, []parseCase[SessionUseOptions]{
		{name: "id", argv: []string{"session", "use", "ses_1"}, want: SessionUseOptions{ID: "ses_1"}},
		{name: "none", argv: []string{"session", "use"}, usage: true},
		{name: "two", argv: []string{"session", "use", "a", "b"}, usage: true},
	})
}

func TestSessionListOptions(t *testing.T) {
	checkParse(t, "session", (*runner).sessionListCommand, []parseCase[SessionListOptions]{
		{name: "plain", argv: []string{"session", "list", "--session", "ses_1"}, want: SessionListOptions{Session: "ses_1"}},
		{name: "argument", argv: []string{"session", "list", "x"}, usage: true},
	})
}

func TestSessionShowOptions(t *testing.T) {
	checkParse(t, "session", (*runner).sessionShowCommand, []parseCase[SessionShowOptions]{
		{name: "current", argv: []string{"session", "show"}, want: SessionShowOptions{}},
		{name: "id", argv: []string{"session", "show", "ses_1"}, want: SessionShowOptions{ID: "ses_1"}},
		{name: "two", argv: []string{"session", "show", "a", "b"}, usage: true},
	})
}

func TestSessionBindOptions(t *testing.T) {
	checkParse(t, "session", (*runner).sessionBindCommand, []parseCase[SessionBindOptions]{
		{name: "issue", argv: []string{"session", "bind", "k3x", "--session", "ses_1"}, want: SessionBindOptions{Session: "ses_1", Issue: "k3x"}},
		{name: "none", argv: []string{"session", "bind"}, usage: true},
	})
	checkParse(t, "session", (*runner).sessionUnbindCommand, []parseCase[SessionUnbindOptions]{
		{name: "plain", argv: []string{"session", "unbind"}, want: SessionUnbindOptions{}},
		{name: "argument", argv: []string{"session", "unbind", "k3x"}, usage: true},
	})
}

func TestSessionLifecycleOptions(t *testing.T) {
	checkParse(t, "session", (*runner).sessionCompactCommand, []parseCase[SessionCompactOptions]{
		{name: "plain", argv: []string{"session", "compact"}, want: SessionCompactOptions{Format: formatText}},
		{name: "markdown", argv: []string{"session", "compact", "--format", "markdown"}, want: SessionCompactOptions{Format: formatMarkdown}},
		{name: "argument", argv: []string{"session", "compact", "x"}, usage: true},
	})
	checkParse(t, "session", (*runner).sessionStopCommand, []parseCase[SessionStopOptions]{
		{name: "plain", argv: []string{"session", "stop", "--session", "ses_1"}, want: SessionStopOptions{Session: "ses_1"}},
		{name: "argument", argv: []string{"session", "stop", "x"}, usage: true},
	})
	checkParse(t, "session", (*runner).sessionResumeCommand, []parseCase[SessionResumeOptions]{
		{name: "current", argv: []string{"session", "resume"}, want: SessionResumeOptions{Format: formatText}},
		{name: "id", argv: []string{"session", "resume", "ses_1", "--format", "markdown"}, want: SessionResumeOptions{ID: "ses_1", Format: formatMarkdown}},
		{name: "two", argv: []string{"session", "resume", "a", "b"}, usage: true},
	})
	checkParse(t, "session", (*runner).sessionErrorCommand, []parseCase[SessionErrorOptions]{
		{name: "words", argv: []string{"session", "error", "go", "test:", "undefined", "--at", "a.go:4"}, want: SessionErrorOptions{Message: "go test: undefined", At: "a.go:4"}},
		{name: "none", argv: []string{"session", "error"}, usage: true},
	})
}

func TestWhoamiContextOptions(t *testing.T) {
	checkParse(t, "", (*runner).whoamiCommand, []parseCase[WhoamiOptions]{
		{name: "plain", argv: []string{"whoami"}, want: WhoamiOptions{}},
		{name: "session", argv: []string{"whoami", "--session", "ses_1"}, want: WhoamiOptions{Session: "ses_1"}},
		{name: "argument", argv: []string{"whoami", "x"}, usage: true},
	})
	checkParse(t, "", (*runner).contextCommand, []parseCase[ContextOptions]{
		{name: "plain", argv: []string{"context"}, want: ContextOptions{Format: formatText}},
		{name: "markdown", argv: []string{"context", "--format", "markdown", "--session", "ses_1"}, want: ContextOptions{Session: "ses_1", Format: formatMarkdown}},
		{name: "argument", argv: []string{"context", "x"}, usage: true},
	})
}

func TestSessionPruneOptions(t *testing.T) {
	checkParse(t, "session", (*runner).sessionPruneCommand, []parseCase[SessionPruneOptions]{
		{name: "default idle", argv: []string{"session", "prune"}, want: SessionPruneOptions{Idle: 720 * time.Hour}},
		{name: "idle and dry run", argv: []string{"session", "prune", "--idle", "36h", "--dry-run"}, want: SessionPruneOptions{Idle: 36 * time.Hour, DryRun: true}},
		{name: "zero idle", argv: []string{"session", "prune", "--idle", "0s"}, usage: true},
		{name: "an argument", argv: []string{"session", "prune", "ses_12345678"}, usage: true},
	})
}
