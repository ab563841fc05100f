package command

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// didYouMean returns the candidate nearest to typed when it is near
// enough to be a typo (a letter missed, added, changed or two swapped per
// three letters typed; nothing is suggested for one or two letters), and
// "" otherwise.
func didYouMean(typed string, candidates []string) string {
	best, bestD := "", -1
	limit := len([]rune(typed)) / 3
	for _, c := range candidates {
		d := editDistance(typed, c)
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// commandNames lists the names and aliases of commands, hidden ones left
// out.
func commandNames(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c.Names()...)
		}
	}
	return out
}

// unknownCommand is the usage error for a command name td does not know:
// parent is "" at the top, "todo" for td todo's subcommands.
func unknownCommand(parent, name string, cmds []*cli.Command) error {
	full, list := name, "td help lists the commands"
	if parent != "" {
		full, list = parent+" "+name, "td "+parent+" --help lists its commands"
	}
	if s := didYouMean(name, commandNames(cmds)); s != "" {
		if parent != "" {
			s = parent + " " + s
		}
		return usagef("unknown command %q; did you mean %q? %s", full, s, list)
	}
	return usagef("unknown command %q; %s", full, list)
}

// unknownFlag rewrites the flag package's "flag provided but not defined:
// -name" as td says it, with the nearest flag the command has, ending in
// the punctuation that the next sentence follows; "" when msg is another
// error.
func unknownFlag(msg string, flags []cli.Flag) string {
	const prefix = "flag provided but not defined: -"
	if !strings.HasPrefix(msg, prefix) {
		return ""
	}
	name := strings.TrimLeft(strings.TrimPrefix(msg, prefix), "-")
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	if s := didYouMean(name, names); s != "" {
		return fmt.Sprintf("unknown flag %s; did you mean %s?", dashed(name), dashed(s))
	}
	return fmt.Sprintf("unknown flag %s;", dashed(name))
}

// dashed is a flag name as typed: -p, --status.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
