package command

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tdproject/td/cmd/command/help"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/ci"
	"github.com/urfave/cli/v2"
)

// completeFiles is what td __complete prints, alone, when the word being
// completed is a path: the shell completes file names itself.
const completeFiles = ":files"

// completeCommand is td __complete WORD...: the candidates for the last
// word of a td command line (the words after "td", the last the one being
// typed, "" for a new one), one a line as VALUE, a tab and a description
// when there is one. The completion scripts call it; it is hidden, parses
// no flags of its own and never fails aloud.
func (r *runner) completeCommand() *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			// One write: at 10,000 issues a printf a line cost more than
			// finding them.
			var b strings.Builder
			for _, cand := range r.complete(c.App, words) {
				b.WriteString(cand.value)
				if cand.desc != "" {
					b.WriteByte('\t')
					b.WriteString(oneLineDesc(cand.desc))
				}
				b.WriteByte('\n')
			}
			r.st.print(b.String())
			return nil
		},
	}
}

// candidate is one completion: a value and what it is.
type candidate struct{ value, desc string }

// oneLineDesc is a description as one line of at most 80 characters,
// with nothing in it that could drive a terminal.
func oneLineDesc(s string) string {
	plain := len(s) <= 80
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain {
		return s
	}
	s = strings.Join(strings.Fields(safe(s)), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// complete finds the candidates for the last of words in app's command
// tree: subcommands and flags, a flag's values, a command's arguments
// (issue IDs, sessions, help topics), or completeFiles.
func (r *runner) complete(app *cli.App, words []string) []candidate {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	var path []string
	cmds, flags := app.Commands, []cli.Flag{}
	global := app.Flags
	var cmd *cli.Command
	var pending cli.Flag // a flag whose value is the next word
	args := 0            // positional arguments given to cmd
	dashdash := false
	lookup := func(name string) cli.Flag {
		for _, fs := range [][]cli.Flag{flags, global} {
			for _, f := range fs {
				if slices.Contains(f.Names(), name) {
					return f
				}
			}
		}
		return nil
	}
	for i := 0; i < len(words)-1; i++ {
		w := words[i]
		switch {
		case pending != nil:
			if slices.Contains(pending.Names(), "dir") {
				r.dirFlag = w
			}
			pending = nil
		case dashdash || !strings.HasPrefix(w, "-") || w == "-":
			if sub := completeSub(cmds, w); sub != nil && args == 0 {
				cmd, cmds, flags = sub, sub.Subcommands, sub.Flags
				path = append(path, sub.Name)
				continue
			}
			args++
		case w == "--":
			dashdash = true
		default:
			name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := lookup(name); f != nil && takesValue(f) && !hasValue {
				pending = f
			} else if f != nil && hasValue && slices.Contains(f.Names(), "dir") {
				r.dirFlag = value
			}
		}
	}
	if pending != nil {
		return r.flagValues(path, pending, cur)
	}
	if !dashdash && strings.HasPrefix(cur, "-") {
		if name, value, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			if f := lookup(name); f != nil && takesValue(f) {
				prefix := cur[:len(cur)-len(value)]
				var out []candidate
				for _, c := range r.flagValues(path, f, value) {
					if c.value == completeFiles {
						return []candidate{c}
					}
					out = append(out, candidate{prefix + c.value, c.desc})
				}
				return out
			}
			return nil
		}
		return flagCandidates(append(slices.Clone(flags), global...), cur)
	}
	var out []candidate
	if args == 0 {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			for _, n := range c.Names() {
				if strings.HasPrefix(n, cur) {
					out = append(out, candidate{n, c.Usage})
				}
			}
		}
	}
	if cmd == nil {
		return out
	}
	return append(out, r.argValues(path, args, cur)...)
}

func completeSub(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if slices.Contains(c.Names(), name) {
			return c
		}
	}
	return nil
}

// takesValue reports whether a flag takes a value: every flag but a
// boolean one.
func takesValue(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

// flagCandidates are the flags that start with cur, --long and -s.
func flagCandidates(flags []cli.Flag, cur string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, f := range flags {
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
		}
		for _, n := range f.Names() {
			w := "--" + n
			if len(n) == 1 {
				w = "-" + n
			}
			if strings.HasPrefix(w, cur) && !seen[w] {
				seen[w] = true
				out = append(out, candidate{w, usage})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].value < out[j].value })
	return out
}

// fileFlags are the flags whose value is a path.
var fileFlags = map[string]bool{"file": true, "description-file": true, "html": true, "dir": true, "write": true}

// orWords reads the choices a flag's usage lists: "jsonl or github",
// "text, markdown or json".
var orWords = regexp.MustCompile(`^([a-z][a-z_-]*(?:, [a-z][a-z_-]*)*) or ([a-z][a-z_-]*)\b`)

// flagValues are the candidates for the value of flag f of the command
// at path.
func (r *runner) flagValues(path []string, f cli.Flag, cur string) []candidate {
	name := f.Names()[0]
	if fileFlags[name] {
		return []candidate{{value: completeFiles}}
	}
	words := func(vs ...string) []candidate {
		var out []candidate
		for _, v := range vs {
			if strings.HasPrefix(v, cur) {
				out = append(out, candidate{value: v})
			}
		}
		return out
	}
	cmd := strings.Join(path, " ")
	switch name {
	case "status":
		return words(strs(domain.Statuses())...)
	case "type":
		return words(strs(domain.IssueTypes())...)
	case "priority":
		return words(strs(domain.Priorities())...)
	case "resolution":
		return words(string(domain.ResolutionDone), string(domain.ResolutionWontfix))
	case "sort":
		return words(repo.SortKeys()...)
	case "ci":
		return words(ci.Services()...)
	case "kind":
		if strings.HasSuffix(cmd, "security") {
			return words(securityKinds()...)
		}
		return words(string(domain.KindStep), string(domain.KindCriterion))
	case "label", "add-label", "remove-label", "assignee", "author":
		return r.inUse(name, cur)
	case "issue", "epic", "duplicate-of":
		only := []domain.Status(nil)
		return r.issueIDs(cur, only, name == "epic")
	case "session":
		return r.sessionIDs(cur)
	}
	if d, ok := f.(cli.DocGenerationFlag); ok {
		if m := orWords.FindStringSubmatch(d.GetUsage()); m != nil {
			return words(append(strings.Split(m[1], ", "), m[2])...)
		}
	}
	return nil // a free value: no flags, no files
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// issueArgs are the statuses of the issues a command's ID argument may
// name, for the commands that take one; nil for any status.
var issueArgs = map[string][]domain.Status{
	"show": nil, "edit": nil, "comment": nil, "log": nil, "links": nil, "link": nil, "unlink": nil,
	"send": nil, "reclaim": nil, "session bind": nil, "anchor add": nil,
	"start":   {domain.StatusOpen, domain.StatusBlocked},
	"unstart": {domain.StatusInProgress},
	"review":  {domain.StatusInProgress},
	"approve": {domain.StatusInReview},
	"reject":  {domain.StatusInReview},
	"block":   {domain.StatusOpen, domain.StatusInProgress, domain.StatusInReview},
	"unblock": {domain.StatusBlocked},
	"close":   {domain.StatusOpen, domain.StatusInProgress, domain.StatusBlocked, domain.StatusInReview},
	"reopen":  {domain.StatusClosed},
}

// argValues are the candidates for positional argument n (from 0) of
// the command at path.
func (r *runner) argValues(path []string, n int, cur string) []candidate {
	cmd := strings.Join(path, " ")
	switch cmd {
	case "help":
		if n > 0 {
			return nil
		}
		var out []candidate
		if ts, err := help.Topics(); err == nil {
			for _, t := range ts {
				if strings.HasPrefix(t.Name, cur) {
					out = append(out, candidate{t.Name, t.Summary})
				}
			}
		}
		return out
	case "completion":
		if n > 0 {
			return nil
		}
		var out []candidate
		for _, sh := range []string{"bash", "zsh", "fish"} {
			if strings.HasPrefix(sh, cur) {
				out = append(out, candidate{value: sh})
			}
		}
		return out
	case "session show", "session use":
		if n > 0 {
			return nil
		}
		return r.sessionIDs(cur)
	case "import github", "import jsonl", "import beads", "import backlog", "import marcus-td":
		return []candidate{{value: completeFiles}}
	case "link":
		switch n {
		case 1:
			var out []candidate
			for _, k := range []string{"child_of", "duplicate_of", "blocked_by", "relates_to", "parent_of", "blocks"} {
				if strings.HasPrefix(k, cur) {
					out = append(out, candidate{value: k})
				}
			}
			return out
		case 0, 2:
			return r.issueIDs(cur, nil, false)
		}
		return nil
	}
	only, ok := issueArgs[cmd]
	if !ok || n > 0 && cmd != "show" {
		return nil
	}
	return r.issueIDs(cur, only, false)
}

// issueIDs are the issues whose ID starts with cur (with or without the
// prefix), of the statuses only allows (any when nil), epics alone when
// epics: open ones first, in td list's order, the title as description.
func (r *runner) issueIDs(cur string, only []domain.Status, epics bool) []candidate {
	s, err := r.openStore()
	if err != nil {
		return nil
	}
	// Unordered: only the issues that match are sorted, as td list sorts.
	_, all, _, err := s.ListAllUnordered(repo.Filter{All: true})
	if err != nil {
		return nil
	}
	var match []*repo.Issue
	for _, is := range all {
		if only != nil && !slices.Contains(only, is.Status) || epics && is.Type != domain.TypeEpic {
			continue
		}
		_, short, _ := strings.Cut(is.ID, "-")
		if strings.HasPrefix(is.ID, cur) || strings.HasPrefix(short, cur) {
			match = append(match, is)
		}
	}
	repo.SortIssues(match)
	var open, closed []candidate
	for _, is := range match {
		c := candidate{is.ID, is.Title + " (" + string(is.Status) + ")"}
		if is.Status == domain.StatusClosed {
			closed = append(closed, c)
		} else {
			open = append(open, c)
		}
	}
	return append(open, closed...)
}

// sessionIDs are the sessions whose ID starts with cur, named.
func (r *runner) sessionIDs(cur string) []candidate {
	s, err := r.openStore()
	if err != nil {
		return nil
	}
	list, _ := s.Sessions()
	var out []candidate
	for _, se := range list {
		if strings.HasPrefix(se.ID, cur) {
			out = append(out, candidate{se.ID, se.Name})
		}
	}
	return out
}

// inUse are the values of a field the issues hold: labels, or the
// people issues are assigned to, most used first.
func (r *runner) inUse(flag, cur string) []candidate {
	s, err := r.openStore()
	if err != nil {
		return nil
	}
	_, all, _, err := s.ListAllUnordered(repo.Filter{All: true})
	if err != nil {
		return nil
	}
	count := map[string]int{}
	for _, is := range all {
		switch flag {
		case "assignee", "author":
			if is.Assignee != "" && !strings.HasPrefix(is.Assignee, domain.AssigneeSessionPrefix) {
				count[is.Assignee]++
			}
		default:
			for _, l := range is.Labels {
				count[l]++
			}
		}
	}
	vals := make([]string, 0, len(count))
	for v := range count {
		if strings.HasPrefix(v, cur) {
			vals = append(vals, v)
		}
	}
	sort.Slice(vals, func(i, j int) bool {
		if count[vals[i]] != count[vals[j]] {
			return count[vals[i]] > count[vals[j]]
		}
		return vals[i] < vals[j]
	})
	out := make([]candidate, len(vals))
	for i, v := range vals {
		out[i] = candidate{v, plural(count[v], "1 issue", strconv.Itoa(count[v])+" issues")}
	}
	return out
}
