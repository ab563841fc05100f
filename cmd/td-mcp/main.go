// Command td-mcp serves td's todo and issue tools to coding agents over the
// Model Context Protocol (stdio). td mcp starts it; it is a program of its
// own so that the MCP SDK stays out of td's start-up.
package main

import (
	"os"

	"github.com/tdproject/td/cmd/command/mcpserver"
)

func main() {
	os.Exit(mcpserver.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
