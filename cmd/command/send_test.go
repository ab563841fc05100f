package command

import (
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestSendOptions(t *testing.T) {
	checkParse(t, "", (*runner).sendCommand, []parseCase[SendOptions]{
		{name: "defaults", argv: []string{"send", "k3x"}, want: SendOptions{Issue: "k3x", Agent: "primary", Category: domain.CategoryProject, Format: formatText}},
		{name: "quiet", argv: []string{"send", "k3x", "-q"}, want: SendOptions{Issue: "k3x", Agent: "primary", Category: domain.CategoryProject, Format: formatText, Quiet: true}},
		{name: "all", argv: []string{"send", "k3x", "-m", "Start with the callback.", "--agent", "primary.ui", "-n", "ui", "--category", "meta", "--format", "markdown", "--session", "ses_1"},
			want: SendOptions{Session: "ses_1", Issue: "k3x", Message: "Start with the callback.", Agent: "primary.ui", Name: "ui", Category: domain.CategoryMeta, Format: formatMarkdown}},
		{name: "bad format", argv: []string{"send", "k3x", "--format", "html"}, usage: true},
		{name: "none", argv: []string{"send"}, usage: true},
	})
}

func TestPromoteOptions(t *testing.T) {
	checkParse(t, "", (*runner).promoteCommand, []parseCase[PromoteOptions]{
		{name: "defaults", argv: []string{"promote", "Flaky", "login", "test"}, want: PromoteOptions{Title: "Flaky login test", Type: "task", Priority: "P2"}},
		{name: "flags", argv: []string{"promote", "Flaky", "-t", "bug", "-p", "P1", "-l", "ci,auth", "-d", "One in ten.", "--no-parent"},
			want: PromoteOptions{Title: "Flaky", Type: "bug", Priority: "P1", Labels: []string{"ci,auth"}, Description: "One in ten.", NoParent: true}},
		{name: "none", argv: []string{"promote"}, usage: true},
	})
}

func TestAnchorOptions(t *testing.T) {
	checkParse(t, "anchor", (*runner).anchorListCommand, []parseCase[AnchorListOptions]{
		{name: "bound", argv: []string{"anchor", "list"}, want: AnchorListOptions{}},
		{name: "project", argv: []string{"anchor", "list", "--project"}, want: AnchorListOptions{AnchorScope{Project: true}}},
		{name: "argument", argv: []string{"anchor", "list", "x"}, usage: true},
	})
	checkParse(t, "anchor", (*runner).anchorAddCommand, []parseCase[AnchorAddOptions]{
		{name: "normal", argv: []string{"anchor", "add", "Prefer", "table", "tests"}, want: AnchorAddOptions{Priority: "normal", Text: "Prefer table tests"}},
		{name: "critical", argv: []string{"anchor", "add", "Never log tokens", "--priority", "critical", "--issue", "k3x"},
			want: AnchorAddOptions{AnchorScope: AnchorScope{Issue: "k3x"}, Priority: "critical", Text: "Never log tokens"}},
		{name: "none", argv: []string{"anchor", "add"}, usage: true},
	})
	checkParse(t, "anchor", (*runner).anchorRmCommand, []parseCase[AnchorRmOptions]{
		{name: "text", argv: []string{"anchor", "rm", "public", "API", "--project"}, want: AnchorRmOptions{AnchorScope: AnchorScope{Project: true}, Text: "public API"}},
		{name: "alias", argv: []string{"anchor", "remove", "x"}, want: AnchorRmOptions{Text: "x"}},
		{name: "none", argv: []string{"anchor", "rm"}, usage: true},
	})
}
