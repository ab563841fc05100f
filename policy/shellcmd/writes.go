package shellcmd

import (
	"regexp"
	"slices"
	"strings"
)

// writesBy notes the files a program writes by its arguments: tee's
// files, sed -i's and perl -i's, the target of cp, install, ln and rsync,
// every path mv, rm, touch, truncate and the like name, dd's of=, an
// editor's file, git checkout's or restore's paths.
func (sc *Script) writesBy(words []string, st *state) {
	prog := program(words[0])
	args := words[1:]
	add := func(p string) {
		if p != "" && !strings.HasPrefix(p, "/dev/") {
			sc.Writes = append(sc.Writes, Write{Path: p, Dir: st.dir, By: prog})
		}
	}
	switch prog {
	case "tee", "sponge":
		for _, a := range operands(args) {
			add(a)
		}
	case "sed", "gsed":
		if !slices.ContainsFunc(args, inPlace) {
			return
		}
		ops := operands(withoutValues(args, "e", "f", "expression", "file", "l", "line-length"))
		if !slices.ContainsFunc(args, func(a string) bool {
			return a == "-e" || a == "-f" || strings.HasPrefix(a, "--expression") || strings.HasPrefix(a, "--file")
		}) && len(ops) > 0 {
			ops = ops[1:] // the script
		}
		for _, a := range ops {
			add(a)
		}
	case "perl", "ruby":
		if !slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i")
		}) {
			return
		}
		for _, a := range operands(withoutValues(args, "e", "E", "I", "M", "m")) {
			add(a)
		}
	case "awk", "gawk":
		if !slices.Contains(args, "inplace") {
			return
		}
		ops := operands(withoutValues(args, "i", "f", "v", "F"))
		if len(ops) > 0 {
			ops = ops[1:]
		}
		for _, a := range ops {
			add(a)
		}
	case "yq", "jq":
		if !slices.ContainsFunc(args, func(a string) bool { return a == "-i" || a == "--inplace" }) {
			return
		}
		for _, a := range operands(args)[1:] {
			add(a)
		}
	case "cp", "install", "ln", "rsync", "scp", "link":
		ops := operands(withoutValues(args, "S", "m", "o", "g", "suffix", "mode", "owner", "group", "e", "rsh"))
		if t := targetDir(args); t != "" {
			add(t)
			return
		}
		if len(ops) > 0 {
			add(ops[len(ops)-1])
		}
	case "mv", "rm", "unlink", "shred", "touch", "rmdir", "srm":
		if t := targetDir(args); t != "" {
			add(t)
		}
		for _, a := range operands(withoutValues(args, "t", "target-directory", "S", "suffix", "d", "r", "reference", "date", "n", "iterations", "s", "size")) {
			add(a)
		}
	case "truncate", "fallocate", "chmod", "chown", "chgrp", "setfacl", "chattr":
		ops := operands(withoutValues(args, "s", "r", "size", "reference", "l", "o", "length", "offset"))
		if prog != "truncate" && prog != "fallocate" && len(ops) > 0 {
			ops = ops[1:] // the mode or owner
		}
		for _, a := range ops {
			add(a)
		}
	case "dd":
		for _, a := range args {
			if p, ok := strings.CutPrefix(a, "of="); ok {
				add(p)
			}
		}
	case "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro", "kak", "hx":
		for _, a := range operands(withoutValues(args, "c", "S", "u", "i")) {
			if !strings.HasPrefix(a, "+") {
				add(a)
			}
		}
	case "git":
		sc.gitWrites(args, add)
	case "patch":
		for _, a := range operands(withoutValues(args, "p", "i", "o", "d", "F", "B", "r", "z", "input", "output", "directory")) {
			add(a)
		}
	case "tar":
		if i := slices.IndexFunc(args, func(a string) bool { return a == "-C" || a == "--directory" }); i >= 0 && i+1 < len(args) {
			if slices.ContainsFunc(args, func(a string) bool {
				return a == "-x" || a == "--extract" || (!strings.HasPrefix(a, "--") && strings.HasPrefix(strings.TrimPrefix(a, "-"), "x"))
			}) {
				add(args[i+1])
			}
		}
	}
}

// gitWrites notes the paths git checkout, restore, rm and mv write in the
// work tree: checkout's after "--", the others' operands.
func (sc *Script) gitWrites(args []string, add func(string)) {
	args = skipOptions(args, "C", "c", "git-dir", "work-tree", "namespace")
	if len(args) == 0 {
		return
	}
	verb, rest := args[0], args[1:]
	switch verb {
	case "checkout":
		if i := slices.Index(rest, "--"); i >= 0 {
			for _, a := range rest[i+1:] {
				add(a)
			}
		}
	case "restore", "rm", "mv":
		for _, a := range operands(withoutValues(rest, "s", "source", "pathspec-from-file")) {
			add(a)
		}
	}
}

// inPlace reports whether a sed argument asks for in-place editing.
func inPlace(a string) bool {
	if strings.HasPrefix(a, "--in-place") {
		return true
	}
	if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
		return false
	}
	i := strings.IndexByte(a, 'i')
	ef := strings.IndexAny(a, "ef")
	return i > 0 && (ef < 0 || i < ef)
}

// targetDir is the directory -t or --target-directory names, "" when none.
func targetDir(args []string) string {
	for i, a := range args {
		switch {
		case a == "-t" || a == "--target-directory":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "--target-directory="):
			return strings.TrimPrefix(a, "--target-directory=")
		case strings.HasPrefix(a, "-t") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			return a[2:]
		}
	}
	return ""
}

// withoutValues drops the options named (short "s", long "size") and the
// value word that follows each, so that operands reads only files.
func withoutValues(args []string, names ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := ""
		switch {
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			name = a[2:]
		case len(a) == 2 && a[0] == '-':
			name = a[1:]
		}
		if name != "" && slices.Contains(names, name) {
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// operands are the arguments that are not options ("--" ends options).
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// interpreterCode is the program text an interpreter runs from its
// arguments (python -c, perl -e, ruby -e, node -e, php -r) or from a here
// document on its standard input; ok is false for any other program.
func interpreterCode(prog string, words []string, c *simple) (string, bool) {
	var flags []string
	switch {
	case prog == "python" || strings.HasPrefix(prog, "python2") || strings.HasPrefix(prog, "python3") || prog == "pypy" || prog == "pypy3":
		flags = []string{"-c"}
	case prog == "perl" || prog == "ruby":
		flags = []string{"-e", "-E"}
	case prog == "node" || prog == "deno" || prog == "bun":
		flags = []string{"-e", "--eval", "-p", "--print"}
	case prog == "php":
		flags = []string{"-r"}
	default:
		return "", false
	}
	var code []string
	for i := 1; i < len(words); i++ {
		w := words[i]
		if slices.Contains(flags, w) && i+1 < len(words) {
			code = append(code, words[i+1])
			i++
			continue
		}
		// Clustered flags ending in the code flag: perl -pe, ruby -ne.
		if strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && len(w) > 2 && slices.Contains(flags, "-"+w[len(w)-1:]) && i+1 < len(words) {
			code = append(code, words[i+1])
			i++
		}
	}
	if len(code) == 0 {
		if text, ok := stdinText(c); ok {
			return text, true
		}
		return "", false
	}
	return strings.Join(code, "\n"), true
}

var (
	// literal is a string literal of the languages interpreterCode reads.
	literal = regexp.MustCompile(`'''[\s\S]*?'''|"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'`)
	// openCall is a call that opens a file, its first argument a literal.
	openCall = regexp.MustCompile(`\b(?:open|fopen|File\.open|io\.open|codecs\.open|os\.open|File\.new|IO\.write|File\.write|writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream|file_put_contents|sysopen)\s*\(\s*(?:[A-Za-z_$][\w$]*\s*,\s*)?('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*(?:,\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[A-Za-z_.|\s]+))?`)
	// pathWrite is a pathlib or shutil call that writes a literal path.
	pathWrite = regexp.MustCompile(`\bPath\s*\(\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*\)\s*\.\s*(?:write_text|write_bytes|open|unlink|rename|replace|touch)\b`)
	// fileOps are calls every literal argument of which may be written.
	fileOps = regexp.MustCompile(`\b(?:shutil\.(?:copy|copy2|copyfile|move|rmtree)|os\.(?:rename|replace|remove|unlink|truncate)|unlink|rename|copy|FileUtils\.\w+|fs\.(?:renameSync|unlinkSync|rmSync|copyFileSync|truncateSync))\s*\(([^()]*)\)`)
)

// code reads interpreter code: a string literal that is a shell command
// (os.system, subprocess with a string) runs as one; a list of literals
// starting with td (subprocess.run(["td", "approve"])) runs as that
// program; open for writing, pathlib writes and file operations on a
// literal path write it. Paths built at run time are not seen.
func (sc *Script) code(prog, code string, st *state, depth int) {
	lits := literal.FindAllStringIndex(code, -1)
	values := make([]string, len(lits))
	for i, m := range lits {
		values[i] = unquote(code[m[0]:m[1]])
	}
	for i := 0; i < len(values); i++ {
		if v := values[i]; strings.ContainsAny(v, " \t;|&") {
			sc.read(v, st.copy(), depth+1)
		}
	}
	// A list of literals: ["td", "approve", "x"], read once from its first.
	for i := 0; i < len(values); {
		j := i + 1
		for j < len(values) && listSeparated(code[lits[j-1][1]:lits[j][0]]) {
			j++
		}
		if j-i > 1 && !strings.ContainsAny(values[i], " \t") && values[i] != "" {
			sc.run(&simple{}, slices.Clone(values[i:j]), st.copy(), depth+1, false)
		}
		i = j
	}
	add := func(p string) {
		if p != "" && !strings.HasPrefix(p, "/dev/") {
			sc.Writes = append(sc.Writes, Write{Path: p, Dir: st.dir, By: prog})
		}
	}
	for _, m := range openCall.FindAllStringSubmatch(code, -1) {
		target, mode := unquote(m[1]), strings.TrimSpace(m[2])
		if strings.HasPrefix(mode, "'") || strings.HasPrefix(mode, `"`) {
			mode = unquote(mode)
		}
		switch {
		case strings.HasPrefix(target, ">") || strings.HasPrefix(target, "+<"):
			add(strings.TrimSpace(strings.TrimLeft(target, ">+<")))
		case strings.Contains(m[0], "write") || strings.Contains(m[0], "Write") || strings.Contains(m[0], "append") || strings.Contains(m[0], "put_contents"):
			add(target)
		case strings.ContainsAny(mode, "wax+") || strings.Contains(mode, "WR") || strings.Contains(mode, "CREAT") || strings.Contains(mode, "TRUNC") || strings.Contains(mode, "APPEND") || mode == ">" || mode == ">>":
			add(target)
		}
	}
	for _, m := range pathWrite.FindAllStringSubmatch(code, -1) {
		add(unquote(m[1]))
	}
	for _, m := range fileOps.FindAllStringSubmatch(code, -1) {
		for _, l := range literal.FindAllString(m[1], -1) {
			add(unquote(l))
		}
	}
}

// listSeparated reports whether the text between two literals makes them
// neighbours in a list: a comma, and space.
func listSeparated(between string) bool {
	return strings.TrimSpace(between) == ","
}

// unquote strips a literal's quotes and reads its common escapes.
func unquote(l string) string {
	for _, q := range []string{`'''`, `"""`} {
		if len(l) >= 6 && strings.HasPrefix(l, q) && strings.HasSuffix(l, q) {
			return l[3 : len(l)-3]
		}
	}
	if len(l) < 2 {
		return l
	}
	l = l[1 : len(l)-1]
	if !strings.Contains(l, `\`) {
		return l
	}
	r := strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`, `\n`, "\n", `\t`, "\t")
	return r.Replace(l)
}
