package command

import (
	"testing"
)

func TestGuardOptions(t *testing.T) {
	checkParse(t, "", (*runner).guardCommand, []parseCase[GuardOptions]{
		{name: "staged", argv: []string{"guard"}, want: GuardOptions{Paths: []string{}}},
		{name: "staged flag", argv: []string{"guard", "--staged", "--session", "ses_1"}, want: GuardOptions{Session: "ses_1", Paths: []string{}}},
		{name: "paths", argv: []string{"guard", "src/main.go", ".todos/config.yaml"}, want: GuardOptions{Paths: []string{"src/main.go", ".todos/config.yaml"}}},
		{name: "both", argv: []string{"guard", "--staged", "a.go"}, usage: true},
	})
}

func TestHooksOptions(t *testing.T) {
	checkParse(t, "hooks", (*runner).hooksInstallCommand, []parseCase[HooksInstallOptions]{
		{name: "git", argv: []string{"hooks", "install"}, want: HooksInstallOptions{}},
		{name: "force", argv: []string{"hooks", "install", "--force"}, want: HooksInstallOptions{Force: true}},
		{name: "claude print", argv: []string{"hooks", "install", "--claude", "--print"}, want: HooksInstallOptions{Claude: true, Print: true}},
		{name: "claude force", argv: []string{"hooks", "install", "--claude", "--force"}, usage: true},
		{name: "print alone", argv: []string{"hooks", "install", "--print"}, usage: true},
		{name: "argument", argv: []string{"hooks", "install", "x"}, usage: true},
	})
	checkParse(t, "hooks", (*runner).hooksPrepareCommitMsgCommand, []parseCase[HooksPrepareCommitMsgOptions]{
		{name: "editor", argv: []string{"hooks", "prepare-commit-msg", ".git/COMMIT_EDITMSG"}, want: HooksPrepareCommitMsgOptions{File: ".git/COMMIT_EDITMSG"}},
		{name: "amend", argv: []string{"hooks", "prepare-commit-msg", "MSG", "commit", "HEAD"}, want: HooksPrepareCommitMsgOptions{File: "MSG", Source: "commit"}},
		{name: "none", argv: []string{"hooks", "prepare-commit-msg"}, usage: true},
		{name: "four", argv: []string{"hooks", "prepare-commit-msg", "a", "b", "c", "d"}, usage: true},
	})
	checkParse(t, "hooks", (*runner).hooksCommitMsgCommand, []parseCase[HooksCommitMsgOptions]{
		{name: "file", argv: []string{"hooks", "commit-msg", "MSG", "--session", "ses_1"}, want: HooksCommitMsgOptions{Session: "ses_1", File: "MSG"}},
		{name: "none", argv: []string{"hooks", "commit-msg"}, usage: true},
	})
}
