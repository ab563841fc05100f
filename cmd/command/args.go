package command

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs lets flags stand before or after positional arguments, for
// every command. urfave/cli v2 stops parsing flags at the first positional
// argument, so `td approve td-k3x9qa --reason "…"` would otherwise treat
// --reason as an argument. The result puts global flags first, then the
// command path, then the command's flags, then "--" and the positionals.
// Everything after a literal "--" stays positional.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) == 0 {
		return args
	}
	var global, path, flags, pos []string
	var cmds = app.Commands
	var leaf *cli.Command
	descending := true
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, hasValue := flagName(a)
			f, isGlobal := lookupFlag(app.Flags, name), true
			if f == nil && leaf != nil {
				f, isGlobal = lookupFlag(leaf.Flags, name), false
			}
			if f == nil {
				isGlobal = false // unknown: let the parser report it
			}
			takesValue := f != nil && !hasValue && !isBoolFlag(f)
			dst := &flags
			if isGlobal {
				dst = &global
			}
			*dst = append(*dst, a)
			if takesValue && i+1 < len(rest) {
				i++
				*dst = append(*dst, rest[i])
			}
			continue
		}
		if descending {
			if c := findCommand(cmds, a); c != nil {
				path = append(path, a)
				leaf = c
				cmds = c.Subcommands
				continue
			}
			descending = false
		}
		pos = append(pos, a)
	}
	out := append([]string{args[0]}, global...)
	out = append(out, path...)
	out = append(out, flags...)
	if len(pos) > 0 {
		if len(path) > 0 {
			out = append(out, "--")
		}
		out = append(out, pos...)
	}
	return out
}

func flagName(a string) (name string, hasValue bool) {
	a = strings.TrimLeft(a, "-")
	if i := strings.IndexByte(a, '='); i >= 0 {
		return a[:i], true
	}
	return a, false
}

func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func isBoolFlag(f cli.Flag) bool {
	_, ok := f.(*cli.BoolFlag)
	return ok
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
