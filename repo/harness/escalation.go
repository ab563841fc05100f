package harness

import (
	"path"
	"strings"
)

// Escalation reads a shell command an agent's Bash tool call would run
// and returns the sentence a harness's pre-tool hook denies it with, or ""
// to let it run: a td command that only an operator may run, or that would
// make the agent act as someone else (td approve or td close with
// --override-open-criteria or --self-close-exception, td session start
// without --agent, td session use, td feature set and unset, td operator
// add and rm). td approve itself is not one: the review policy judges it
// (Approvals, ApprovalDenial). It reads the command as words between
// shell separators, skipping leading VAR=value assignments and env; a
// command that builds its words at run time (eval, a variable holding td)
// is not seen, and td check --base in CI judges what slips through.
func Escalation(command string) string {
	for _, words := range simpleCommands(command) {
		if why := escalation(tdArgs(words)); why != "" {
			return why
		}
	}
	return ""
}

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
// shell command: a command that escalates, or a td approve the review
// policy decides.
func Guarded(command string) bool {
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
func Approvals(command string) []Approval {
	var out []Approval
	for _, words := range simpleCommands(command) {
		args, env, unset := tdCall(words)
		a, ok := approval(args)
		if !ok {
			continue
		}
		if a.Session == "" {
			v, set := env["TD_SESSION"]
			switch {
			case set && v != "":
				a.Session = v
			case set || unset:
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

// tdCall is tdArgs with the environment the command gives td: its
// VAR=value assignments (and env's), and whether env -u unsets
// TD_SESSION.
func tdCall(words []string) (args []string, env map[string]string, unsetSession bool) {
	env = map[string]string{}
	i := 0
	for i < len(words) {
		w := words[i]
		switch {
		case isAssignment(w):
			k, v, _ := strings.Cut(w, "=")
			env[k] = v
			i++
		case w == "env" || w == "command" || w == "exec" || w == "sudo":
			i++
			for i < len(words) && strings.HasPrefix(words[i], "-") {
				if words[i] == "-u" && i+1 < len(words) {
					i++
					if words[i] == "TD_SESSION" {
						unsetSession = true
					}
				}
				i++
			}
		default:
			if path.Base(w) == "td" {
				return append([]string{}, words[i+1:]...), env, unsetSession
			}
			return nil, nil, false
		}
	}
	return nil, nil, false
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

// tdArgs returns the arguments of a simple command that runs td, after
// VAR=value assignments and env with its options; nil when it is not td.
func tdArgs(words []string) []string {
	i := 0
	for i < len(words) {
		w := words[i]
		switch {
		case isAssignment(w):
			i++
		case w == "env" || w == "command" || w == "exec" || w == "sudo":
			i++
			for i < len(words) && strings.HasPrefix(words[i], "-") {
				if words[i] == "-u" && i+1 < len(words) {
					i++
				}
				i++
			}
		default:
			if path.Base(w) == "td" {
				return append([]string{}, words[i+1:]...)
			}
			return nil
		}
	}
	return nil
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// simpleCommands splits a shell command line into simple commands (at ;
// & | newlines, parentheses and backquotes, and $( ), each a list of
// words with quotes removed. It is a reader for a guard, not a shell:
// expansions stay as written.
func simpleCommands(s string) [][]string {
	var out [][]string
	var words []string
	var w strings.Builder
	inWord := false
	flushWord := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	flushCmd := func() {
		flushWord()
		if len(words) > 0 {
			out = append(out, words)
			words = nil
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				w.WriteString(s[i+1:])
				i = len(s)
				continue
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				w.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			inWord = true
			i++
			if s[i] != '\n' {
				w.WriteByte(s[i])
			}
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			flushCmd()
			i++
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')' || c == '`' || c == '{' || c == '}':
			flushCmd()
		case c == ' ' || c == '\t' || c == '\r':
			flushWord()
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	flushCmd()
	return out
}
