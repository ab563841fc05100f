// Command td is a git-native issue and todo tracker for teams of people and
// coding agents. Run `td demo` to see it at work, `td help` for commands.
package main

import (
	"os"
	"runtime/debug"

	"github.com/tdproject/td/cmd/command"
)

func main() {
	// td lives for milliseconds: collecting garbage four times less often
	// saves time on large lists and costs a few megabytes at most.
	debug.SetGCPercent(400)
	os.Exit(command.Main())
}
