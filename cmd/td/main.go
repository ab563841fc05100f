// Command td is a git-native issue and todo tracker for teams of people and
// coding agents. Run `td demo` to see it at work, `td help` for commands.
package main

import "github.com/tdproject/td/cmd/command"

func main() { command.Exit() }
