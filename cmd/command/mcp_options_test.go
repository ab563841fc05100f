package command

import (
	"testing"
)

func TestMCPOptions(t *testing.T) {
	checkParse(t, "", (*runner).mcpCommand, []parseCase[MCPOptions]{
		{name: "default", argv: []string{"mcp"}, want: MCPOptions{}},
		{name: "pinned", argv: []string{"mcp", "--session", "ses_1", "-C", "src/app"}, want: MCPOptions{Session: "ses_1", Dir: "src/app"}},
		{name: "argument", argv: []string{"mcp", "serve"}, usage: true},
	})
}
