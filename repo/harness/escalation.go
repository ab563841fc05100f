package harness

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/tdproject/td/policy/shellcmd"
	"strings"
)

// Escalation reads a shell command an agent's Bash tool call would run
// and returns the sentence a harness's pre-tool hook denies it with, or ""
// to let it run: a td command that only an operator may run, or that would
// make the agent act as someone else (td approve or td close with
// --override-open-criteria or --self-close-exception, td session start
// without --agent, td session use, td feature set and unset, td operator
// add and rm). td approve itself is not one: the review policy judges it
// (Approvals, ApprovalDenial). It judges the td a shell would run
// (shellcmd.Read: through env, nice, command, exec, sudo, xargs, bash -c,
// eval, an absolute path or a link to td); a command that builds its
// words at run time (a variable holding td, a script file) is not seen,
// and td check --base in CI judges what slips through.
func Escalation(command string) string { return escalationIn(command, "") }

func escalationIn(command, dir string) string {
	if shellcmd.Read(command).Unread {
		return Unreadable
	}
	for _, c := range tdCommands(command, dir) {
		if why := escalation(c.Args[1:]); why != "" {
			return why
		}
	}
	return ""
}

// Unreadable is the denial of a shell command the guard cannot read whole
// (shellcmd.Script.Unread): judging part of it would let the rest through.
const Unreadable = "td's guard cannot read this shell command whole (over 1 MiB, nested over 24 substitutions or shells deep, or over 10,000 commands): split it into simpler commands."

// escalation judges the arguments of one td command (nil: not td).
func escalation(args []string) string {
	var verbs []string
	agent, override := false, ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--agent" || strings.HasPrefix(a, "--agent="):
			agent = true
		case overrideFlag(a) != "":
			override = overrideFlag(a)
		case a == "--session" || a == "-session" || a == "--dir" || a == "-dir" || a == "-C":
			i++ // td's global flags that take a value
		case strings.HasPrefix(a, "-"):
		case len(verbs) < 2:
			verbs = append(verbs, a)
		}
	}
	if len(verbs) == 0 {
		return ""
	}
	second := ""
	if len(verbs) > 1 {
		second = verbs[1]
	}
	switch {
	case (verbs[0] == "close" || verbs[0] == "approve") && override != "":
		return "td " + verbs[0] + " " + override + " is the operator's override, never an agent's: finish or drop the open items, then ask for sign-off with td review ID."
	case verbs[0] == "session" && second == "start" && !agent:
		return "An agent may start only agent sessions: run td session start --agent PATH, or ask the operator to act as themselves."
	case verbs[0] == "session" && second == "use":
		return "An agent may not switch this checkout's current session: name your own session with TD_SESSION or --session."
	case verbs[0] == "feature" && (second == "set" || second == "unset"):
		return "Feature flags are the operator's to change: ask the operator to run td feature " + second + "."
	case verbs[0] == "operator" && (second == "add" || second == "rm"):
		return "Only an operator changes who the operators are: ask the operator to run td operator " + second + "."
	}
	return ""
}

// Guarded reports whether the pre-tool guard has anything to judge in a
// shell command: a command that escalates, a td approve the review
// policy decides, or a file it writes (a governance file is the guard's
// to refuse).
func Guarded(command string) bool {
	if sc := shellcmd.Read(command); len(sc.Writes) > 0 || sc.Unread {
		return true
	}
	return Escalation(command) != "" || len(Approvals(command)) > 0
}

// Approval is one td approve a shell command runs, as the guard reads it.
type Approval struct {
	// Ref is the issue named, "" when none is.
	Ref string
	// Reason is --reason's value.
	Reason string
	// Session is the session the command names: --session's value, else
	// the value a TD_SESSION=… assignment (or env) gives it; "" when it
	// names none.
	Session string
	// Unsets is true when the command unsets TD_SESSION (env -u, or an
	// empty TD_SESSION=) and names no session: it would act as the
	// checkout's session.
	Unsets bool
}

// Approvals lists the td approve commands a shell command runs.
func Approvals(command string) []Approval { return approvalsIn(command, "") }

func approvalsIn(command, dir string) []Approval {
	var out []Approval
	for _, c := range tdCommands(command, dir) {
		a, ok := approval(c.Args[1:])
		if !ok {
			continue
		}
		if a.Session == "" {
			v, set := c.Env["TD_SESSION"]
			switch {
			case set && v != "":
				a.Session = v
			case set || c.Removes("TD_SESSION"):
				a.Unsets = true
			}
		}
		out = append(out, a)
	}
	return out
}

// approval reads td approve's arguments; ok is false for any other td
// command.
func approval(args []string) (a Approval, ok bool) {
	var verbs []string
	for i := 0; i < len(args); i++ {
		w := args[i]
		name, value, hasValue := strings.Cut(w, "=")
		switch name {
		case "--session", "-session", "--reason", "-reason", "-m", "--m", "--dir", "-dir", "-C", "--C", "--override-open-criteria", "-override-open-criteria":
			if !hasValue {
				if i+1 < len(args) {
					value = args[i+1]
				}
				i++
			}
			switch name {
			case "--session", "-session":
				a.Session = value
			case "--reason", "-reason", "-m", "--m":
				a.Reason = value
			}
			continue
		}
		switch {
		case strings.HasPrefix(w, "-"):
		case len(verbs) == 0:
			verbs = append(verbs, w)
		case len(verbs) == 1 && a.Ref == "":
			a.Ref = w
		}
	}
	return a, len(verbs) == 1 && verbs[0] == "approve"
}

// overrideFlag names the td close flag a word gives, when it is one of the
// overrides only an operator may pass; "" otherwise.
func overrideFlag(a string) string {
	for _, f := range []string{"--override-open-criteria", "--self-close-exception"} {
		if a == f || strings.HasPrefix(a, f+"=") {
			return f
		}
	}
	return ""
}

// tdCommands lists the td commands a shell command runs, dir the
// directory it runs in ("" for this process's).
func tdCommands(command, dir string) []shellcmd.Command {
	var out []shellcmd.Command
	for _, c := range shellcmd.Read(command).Commands {
		if isTD(c, dir) {
			out = append(out, c)
		}
	}
	return out
}

// isTD reports whether the program c runs is td: a word named td (any
// path, td.exe), or one that leads through symbolic links to a file
// named td or to this very executable (a link in PATH, ./bin/x -> td). A
// program named by a variable is not seen.
func isTD(c shellcmd.Command, dir string) bool {
	w := c.Args[0]
	if shellcmd.Program(w) == "td" {
		return true
	}
	if w == "" || strings.ContainsAny(w, "$`*?[") {
		return false
	}
	p := w
	switch {
	case strings.HasPrefix(p, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		p = filepath.Join(home, p[2:])
	case strings.Contains(p, "/"):
		if !filepath.IsAbs(p) {
			base := dir
			if c.Dir != "" {
				base = filepath.Join(dir, filepath.FromSlash(c.Dir))
				if filepath.IsAbs(c.Dir) {
					base = c.Dir
				}
			}
			p = filepath.Join(base, p)
		}
	default:
		found, err := exec.LookPath(p)
		if err != nil {
			return false
		}
		p = found
	}
	return leadsToTD(p)
}

// leadsToTD reports whether the file p resolves to is named td or is this
// executable.
func leadsToTD(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	if shellcmd.Program(real) == "td" {
		return true
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, err1 := os.Stat(real)
	b, err2 := os.Stat(self)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// ShellWrites lists the files a shell command visibly writes, as paths
// the guard judges (absolute, or relative to dir): a redirection, tee,
// sed -i, cp, mv, rm, dd, an interpreter's open for writing
// (shellcmd.Read). A glob is expanded against the files that exist; a
// path through a symbolic link is judged where it leads too.
func ShellWrites(command, dir string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	base := dir
	if base == "" {
		base, _ = os.Getwd()
	}
	for _, w := range shellcmd.Read(command).Writes {
		p := w.Path
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		if !filepath.IsAbs(p) && w.Dir != "" {
			p = filepath.Join(filepath.FromSlash(w.Dir), p)
		}
		add(p)
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
		}
		matches := []string{abs}
		if strings.ContainsAny(p, "*?[") {
			if m, err := filepath.Glob(abs); err == nil {
				for _, f := range m {
					add(f)
				}
				matches = m
			}
		}
		for _, f := range matches {
			real, err := filepath.EvalSymlinks(f)
			switch {
			case err == nil && real != f:
				add(real)
			case err != nil:
				// A file not there yet: where its directory leads.
				if d, err := filepath.EvalSymlinks(filepath.Dir(f)); err == nil && d != filepath.Dir(f) {
					add(filepath.Join(d, filepath.Base(f)))
				}
			}
		}
	}
	return out
}
