package shellcmd

import "strings"

// simple is one simple command as written: its words, redirections and
// standard input where the line gives it.
type simple struct {
	words  []string
	redirs []redir
	// stdin is the text a here document or here string gives the
	// command; hasStdin says one does.
	stdin    string
	hasStdin bool
	// from is the command piping into this one, nil when none.
	from *simple
}

// redir is one redirection: its operator and target word.
type redir struct {
	op, target string
}

// parse splits a line into simple commands, in order, and returns the
// bodies of the command substitutions it holds.
func parse(line string, depth int) ([]*simple, []string) {
	l := newLexer(line, depth)
	var out []*simple
	cur := &simple{}
	var prev *simple
	piped := false
	flush := func() {
		if len(cur.words) > 0 || len(cur.redirs) > 0 || cur.hasStdin {
			if piped {
				cur.from = prev
			}
			out = append(out, cur)
			prev = cur
		} else {
			prev = nil
		}
		cur = &simple{}
		piped = false
	}
	for {
		t := l.next()
		if t == nil {
			break
		}
		switch t.op {
		case "":
			cur.words = append(cur.words, t.word)
		case "|", "|&":
			flush()
			piped = prev != nil
		case ">", ">>", ">|", "&>", "&>>", "<>", ">&", "<", "<&", "<<<", "<<", "<<-":
			// An io number written against the operator (2>, 1>>) is
			// no word of the command.
			if n := len(cur.words); n > 0 && isIONumber(cur.words[n-1]) && l.adjacent(t) {
				cur.words = cur.words[:n-1]
			}
			target := l.peek()
			if target == nil || target.op != "" {
				continue
			}
			l.next()
			switch t.op {
			case "<<<":
				cur.stdin, cur.hasStdin = target.word+"\n", true
			case "<<", "<<-":
				cur.hasStdin = true
				l.pending = append(l.pending, &heredoc{delim: target.word, strip: t.op == "<<-", body: &cur.stdin})
			default:
				cur.redirs = append(cur.redirs, redir{op: t.op, target: target.word})
			}
		default:
			flush()
		}
	}
	flush()
	return out, l.subs
}

// adjacent reports whether the token before t ended where t starts.
func (l *lexer) adjacent(t *token) bool {
	return t.start > 0 && t.start <= len(l.s) && !isBlank(l.s[t.start-1]) && l.s[t.start-1] != '\n'
}

func isIONumber(w string) bool {
	if w == "" || len(w) > 4 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// splitWords splits text into words as a shell would split an unquoted
// string (env -S, watch's joined arguments), quotes removed.
func splitWords(text string) []string {
	cmds, _ := parse(text, maxDepth)
	var out []string
	for _, c := range cmds {
		out = append(out, c.words...)
	}
	return out
}

// isAssignment reports whether w is a NAME=value assignment word.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && validName(strings.TrimSuffix(name, "+"))
}

func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
