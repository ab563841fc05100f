package shellcmd

import (
	"path"
	"slices"
	"strings"
)

// Command is one program a line runs, as far as reading it tells.
type Command struct {
	// Args is the program and its arguments, quotes removed, past every
	// wrapper that runs another program (env, nice, sudo, xargs, ...).
	Args []string
	// Env holds the variables the line sets for the program: its own
	// NAME=value words, env's, and those set or exported earlier on the
	// line.
	Env map[string]string
	// Unset names the variables removed for it (env -u, unset); Cleared
	// is true when env -i started it with an empty environment.
	Unset   []string
	Cleared bool
	// Dir is the directory cd or pushd named earlier on the line (or
	// env -C), "" when none; relative to the line's own directory unless
	// absolute.
	Dir string
}

// Removes reports whether the program runs without the variable name.
func (c Command) Removes(name string) bool {
	if _, set := c.Env[name]; set {
		return false
	}
	return c.Cleared || slices.Contains(c.Unset, name)
}

// Write is one file the line visibly writes (or removes).
type Write struct {
	// Path is the file as written on the line, quotes removed.
	Path string
	// Dir is the directory cd named before the write, as Command.Dir.
	Dir string
	// By names what writes it: ">" for a redirection, else the program.
	By string
}

// Script is what reading a line finds: the programs it runs, in order,
// and the files it writes.
type Script struct {
	Commands []Command
	Writes   []Write
	// Unread is true when part of the line was not read: it is longer
	// than the reader reads (1 MiB), nests deeper than 24 substitutions
	// or shells, runs more than 10,000 commands, or re-reads (eval, bash
	// -c) more text than 4 MiB in all. A guard refuses such a line
	// rather than judge part of it.
	Unread bool
	// budget is what is left of the text the reader may still read.
	budget int
}

// Read reads a shell command line.
func Read(line string) Script {
	sc := Script{budget: maxRead}
	st := &state{env: map[string]string{}}
	sc.read(line, st, 0)
	return sc
}

// state is the shell's state as the line changes it: variables set or
// unset, the directory cd moved to.
type state struct {
	env   map[string]string
	unset []string
	dir   string
}

func (st *state) copy() *state {
	env := make(map[string]string, len(st.env))
	for k, v := range st.env {
		env[k] = v
	}
	return &state{env: env, unset: slices.Clone(st.unset), dir: st.dir}
}

func (st *state) set(k, v string) {
	st.env[k] = v
	st.unset = slices.DeleteFunc(st.unset, func(u string) bool { return u == k })
}

// read reads line as a shell in state st would run it.
func (sc *Script) read(line string, st *state, depth int) {
	sc.budget -= len(line)
	if depth > maxDepth || len(sc.Commands) > maxCommands || len(line) > maxInput || sc.budget < 0 {
		sc.Unread = true
		if depth > maxDepth || len(sc.Commands) > maxCommands || sc.budget < 0 {
			return
		}
	}
	cmds, subs := parse(line, depth)
	for _, c := range cmds {
		if len(sc.Commands) > maxCommands {
			sc.Unread = true
			return
		}
		for _, r := range c.redirs {
			if writes(r) {
				sc.Writes = append(sc.Writes, Write{Path: r.target, Dir: st.dir, By: ">"})
			}
		}
		sc.simple(c, st, depth)
	}
	// A substitution runs in a subshell with the state the line had.
	for _, sub := range subs {
		sc.read(sub, st.copy(), depth+1)
	}
}

// maxCommands bounds the commands one line is read into.
const maxCommands = 10000

// maxRead bounds the text one line makes the reader read, the line itself
// and every substitution, nested shell and eval it reads again.
const maxRead = 4 << 20

// writes reports whether a redirection writes its target as a file.
func writes(r redir) bool {
	switch r.op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
	case ">&":
		if r.target == "-" || isIONumber(strings.TrimSuffix(r.target, "-")) {
			return false
		}
	default:
		return false
	}
	return r.target != "" && !strings.HasPrefix(r.target, "/dev/")
}

// simple reads one simple command in state st: the shell's own builtins
// that change the state, and the program it runs past its wrappers.
func (sc *Script) simple(c *simple, st *state, depth int) {
	words := c.words
	env := map[string]string{}
	for len(words) > 0 && isAssignment(words[0]) {
		k, v, _ := strings.Cut(words[0], "=")
		env[strings.TrimSuffix(k, "+")] = v
		words = words[1:]
	}
	// Reserved words that open or close a compound command.
	for len(words) > 0 && slices.Contains([]string{"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until", "fi", "done", "esac", "coproc"}, words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		for k, v := range env {
			st.set(k, v)
		}
		return
	}
	switch words[0] {
	case "for", "select", "case", "function":
		return
	case "export", "declare", "typeset", "local", "readonly":
		for _, w := range words[1:] {
			if isAssignment(w) {
				k, v, _ := strings.Cut(w, "=")
				st.set(strings.TrimSuffix(k, "+"), v)
			}
		}
		return
	case "unset":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") {
				delete(st.env, w)
				st.unset = append(st.unset, w)
			}
		}
		return
	case "cd", "pushd":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") {
				st.dir = joinDir(st.dir, w)
				break
			}
		}
		return
	}
	run := st.copy()
	for k, v := range env {
		run.set(k, v)
	}
	sc.run(c, words, run, depth, false)
}

// joinDir is where cd dir moves from cur.
func joinDir(cur, dir string) string {
	if path.IsAbs(dir) || strings.HasPrefix(dir, "~") || cur == "" {
		return dir
	}
	return path.Join(cur, dir)
}

// run reads the program words runs in state st, unwrapping every wrapper
// that runs another program; cleared is true once env -i emptied the
// environment.
func (sc *Script) run(c *simple, words []string, st *state, depth int, cleared bool) {
	for len(words) > 0 && len(sc.Commands) <= maxCommands {
		prog := program(words[0])
		var rest []string
		switch prog {
		case "env":
			var cl bool
			rest, cl = sc.env(words[1:], st)
			cleared = cleared || cl
		case "nice":
			rest = skipOptions(words[1:], "n", "adjustment")
		case "nohup", "builtin", "unbuffer", "caffeinate", "setsid", "doas", "chroot", "fakeroot", "catchsegv":
			rest = skipOptions(words[1:], "u")
			if prog == "chroot" && len(rest) > 0 {
				rest = rest[1:]
			}
		case "time":
			rest = skipOptions(words[1:], "f", "o", "format", "output")
		case "command":
			rest = skipOptions(words[1:])
			if slices.ContainsFunc(words[1:len(words)-len(rest)], func(o string) bool { return o == "-v" || o == "-V" }) {
				return // command -v only looks the program up
			}
		case "exec":
			rest = skipOptions(words[1:], "a")
		case "sudo":
			rest = skipOptions(words[1:], "u", "g", "h", "p", "C", "D", "R", "T", "U", "r", "t", "user", "group", "host", "prompt", "chdir", "role", "type", "close-from", "other-user")
		case "stdbuf":
			rest = skipOptions(words[1:], "i", "o", "e", "input", "output", "error")
		case "ionice":
			rest = skipOptions(words[1:], "c", "n", "class", "classdata")
		case "chrt":
			rest = skipOptions(words[1:])
			if len(rest) > 0 {
				rest = rest[1:] // the priority
			}
		case "taskset":
			rest = skipOptions(words[1:])
			if len(rest) > 0 {
				rest = rest[1:] // the mask or list
			}
		case "timeout":
			rest = skipOptions(words[1:], "s", "k", "signal", "kill-after")
			if len(rest) > 0 {
				rest = rest[1:] // the duration
			}
		case "flock":
			rest = skipOptions(words[1:], "w", "E", "timeout", "conflict-exit-code")
			if len(rest) > 0 {
				rest = rest[1:] // the lock file
			}
			if i := slices.IndexFunc(words, func(w string) bool { return w == "-c" || w == "--command" }); i > 0 && i+1 < len(words) {
				sc.read(words[i+1], st.copy(), depth+1)
				return
			}
		case "watch":
			rest = skipOptions(words[1:], "n", "d", "interval", "differences")
			if len(rest) > 0 {
				sc.read(strings.Join(rest, " "), st.copy(), depth+1)
			}
			return
		case "xargs":
			rest = skipOptions(words[1:], "I", "L", "n", "P", "d", "E", "s", "a", "max-args", "max-procs", "delimiter", "eof", "max-chars", "arg-file", "replace", "max-lines", "process-slot-var")
			if len(rest) == 0 {
				rest = []string{"echo"}
			}
		case "find":
			sc.find(c, words[1:], st, depth)
			return
		case "eval":
			sc.read(strings.Join(words[1:], " "), st.copy(), depth+1)
			return
		case "su", "runuser", "script":
			if i := slices.IndexFunc(words, func(w string) bool { return w == "-c" || w == "--command" }); i > 0 && i+1 < len(words) {
				sc.read(words[i+1], st.copy(), depth+1)
			}
			return
		case "go":
			// go run ./cmd/td approve ...: the program is the package.
			if len(words) > 2 && words[1] == "run" {
				args := skipOptions(words[2:], "C", "exec", "tags", "ldflags", "gcflags", "mod", "modfile", "o", "p", "pgo", "overlay", "toolexec")
				if len(args) > 0 {
					rest = args
					break
				}
			}
		case "busybox":
			rest = words[1:]
		}
		if rest != nil {
			words = rest
			continue
		}
		if isShell(prog) {
			sc.shell(c, words, st, depth)
			return
		}
		if code, ok := interpreterCode(prog, words, c); ok {
			sc.code(prog, code, st, depth)
		}
		break
	}
	if len(words) == 0 {
		return
	}
	sc.Commands = append(sc.Commands, Command{Args: slices.Clone(words), Env: st.env, Unset: st.unset, Cleared: cleared, Dir: st.dir})
	sc.writesBy(words, st)
}

// env reads env's options and assignments into st, returning the words of
// the program it runs and whether -i cleared the environment.
func (sc *Script) env(words []string, st *state) ([]string, bool) {
	cleared := false
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "--":
			words = words[1:]
			return assignments(words, st), cleared
		case w == "-i" || w == "--ignore-environment" || w == "-":
			cleared = true
			st.env = map[string]string{}
			words = words[1:]
		case w == "-u" || w == "--unset":
			if len(words) > 1 {
				delete(st.env, words[1])
				st.unset = append(st.unset, words[1])
			}
			words = words[min(2, len(words)):]
		case strings.HasPrefix(w, "--unset="):
			name := strings.TrimPrefix(w, "--unset=")
			delete(st.env, name)
			st.unset = append(st.unset, name)
			words = words[1:]
		case strings.HasPrefix(w, "-u") && len(w) > 2:
			delete(st.env, w[2:])
			st.unset = append(st.unset, w[2:])
			words = words[1:]
		case w == "-C" || w == "--chdir":
			if len(words) > 1 {
				st.dir = joinDir(st.dir, words[1])
			}
			words = words[min(2, len(words)):]
		case strings.HasPrefix(w, "--chdir="):
			st.dir = joinDir(st.dir, strings.TrimPrefix(w, "--chdir="))
			words = words[1:]
		case w == "-S" || w == "--split-string":
			if len(words) > 1 {
				words = append(splitWords(words[1]), words[2:]...)
			} else {
				words = nil
			}
		case strings.HasPrefix(w, "--split-string="):
			words = append(splitWords(strings.TrimPrefix(w, "--split-string=")), words[1:]...)
		case strings.HasPrefix(w, "-S") && len(w) > 2:
			words = append(splitWords(w[2:]), words[1:]...)
		case w == "-P":
			words = words[min(2, len(words)):]
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if strings.Contains(strings.TrimLeft(w, "-"), "i") && !strings.HasPrefix(w, "--") {
				cleared = true
				st.env = map[string]string{}
			}
			words = words[1:]
		default:
			return assignments(words, st), cleared
		}
	}
	return nil, cleared
}

// assignments reads leading NAME=value words into st and returns the rest.
func assignments(words []string, st *state) []string {
	for len(words) > 0 && isAssignment(words[0]) {
		k, v, _ := strings.Cut(words[0], "=")
		st.set(k, v)
		words = words[1:]
	}
	return words
}

// skipOptions returns words past the options a wrapper takes before its
// program: "-x", "--long", "--long=value", and the value word after
// those named in withValue (short names "n", long names "adjustment");
// "--" ends them. A short option with its value attached (-n10) is one
// word; a negative number (nice -5) is an option.
func skipOptions(words []string, withValue ...string) []string {
	for len(words) > 0 {
		w := words[0]
		if w == "--" {
			return words[1:]
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			return words
		}
		words = words[1:]
		if strings.HasPrefix(w, "--") {
			name := strings.TrimPrefix(w, "--")
			if !strings.Contains(name, "=") && slices.Contains(withValue, name) && len(words) > 0 {
				words = words[1:]
			}
			continue
		}
		// A cluster of short options: the last may take the next word.
		if len(w) == 2 && slices.Contains(withValue, w[1:]) && len(words) > 0 {
			words = words[1:]
		}
	}
	return words
}

// program is the name a program word runs: the base of its path, with a
// Windows executable's extension dropped. A word that is a command
// substitution looking a program up (which td, command -v td) names the
// program it finds.
func program(w string) string {
	if inner, ok := strings.CutPrefix(w, "$("); ok && strings.HasSuffix(inner, ")") {
		f := strings.Fields(strings.TrimSuffix(inner, ")"))
		if len(f) > 1 && slices.Contains([]string{"which", "command", "type", "whereis", "realpath", "readlink"}, f[0]) {
			w = f[len(f)-1]
		}
	}
	base := path.Base(strings.ReplaceAll(w, `\`, "/"))
	for _, ext := range []string{".exe", ".EXE", ".Exe"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// isShell reports whether prog is a shell that runs a -c string or its
// standard input.
func isShell(prog string) bool {
	switch prog {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "pdksh", "posh", "rbash", "busybox sh":
		return true
	}
	return false
}

// shell reads a shell's run: its -c string, else its standard input (a
// here document, a here string, or what echo, printf or cat of a here
// document pipes into it). A script file is not seen.
func (sc *Script) shell(c *simple, words []string, st *state, depth int) {
	args := words[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++
		case a == "--":
			if i+1 < len(args) {
				return // a script file
			}
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if strings.Contains(a[1:], "c") {
				if i+1 < len(args) {
					sc.read(args[i+1], st.copy(), depth+1)
				}
				return
			}
		default:
			return // a script file: its content is not seen
		}
	}
	if text, ok := stdinText(c); ok {
		sc.read(text, st.copy(), depth+1)
	}
}

// stdinText is the text a command reads on standard input, where the line
// shows it: a here document or string, or the output of echo, printf or
// cat of a here document piped into it.
func stdinText(c *simple) (string, bool) {
	if c.hasStdin {
		return c.stdin, true
	}
	from := c.from
	if from == nil {
		return "", false
	}
	if from.hasStdin && len(from.words) > 0 && program(from.words[0]) == "cat" {
		return from.stdin, true
	}
	if len(from.words) > 0 {
		switch program(from.words[0]) {
		case "echo", "printf":
			args := from.words[1:]
			for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
				args = args[1:]
			}
			return strings.ReplaceAll(strings.Join(args, " "), `\n`, "\n"), true
		}
	}
	return "", false
}

// find reads the commands find's -exec, -execdir, -ok and -okdir run.
func (sc *Script) find(c *simple, args []string, st *state, depth int) {
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			if j > i+1 {
				sc.run(c, args[i+1:j], st.copy(), depth+1, false)
			}
			i = j
		case "-delete":
			sc.Writes = append(sc.Writes, Write{Path: findRoot(args), Dir: st.dir, By: "find -delete"})
		case "-fprint", "-fprintf", "-fprint0", "-fls":
			if i+1 < len(args) {
				sc.Writes = append(sc.Writes, Write{Path: args[i+1], Dir: st.dir, By: "find " + args[i]})
			}
		}
	}
}

// findRoot is the first path find searches.
func findRoot(args []string) string {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "!" && args[0] != "(" {
		return args[0]
	}
	return "."
}

// Program is the name a program word runs (the base of its path), as
// Command.Args[0] names it.
func Program(word string) string { return program(word) }
