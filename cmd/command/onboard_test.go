package command

import (
	"testing"
)

func TestOnboardOptions(t *testing.T) {
	checkParse(t, "", (*runner).onboardCommand, []parseCase[OnboardOptions]{
		{name: "print", argv: []string{"onboard"}, want: OnboardOptions{Files: []string{}}},
		{name: "check", argv: []string{"onboard", "--check", "docs/agents.md"}, want: OnboardOptions{Check: true, Files: []string{"docs/agents.md"}}},
		{name: "write", argv: []string{"onboard", "--write", "AGENTS.md"}, want: OnboardOptions{Write: "AGENTS.md", Files: []string{}}},
		{name: "both", argv: []string{"onboard", "--check", "--write", "AGENTS.md"}, usage: true},
		{name: "write two", argv: []string{"onboard", "--write", "AGENTS.md", "CLAUDE.md"}, usage: true},
		{name: "files alone", argv: []string{"onboard", "AGENTS.md"}, usage: true},
	})
}
