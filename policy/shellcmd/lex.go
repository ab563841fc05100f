// Package shellcmd reads a shell command line the way a guard must: it
// finds every program the line would run, through the wrappers a shell
// offers (env, nice, command, exec, sudo, xargs, find -exec, timeout, a
// nested bash -c or sh -c, eval, a script piped or fed to a shell, a
// command substitution), with the environment each runs under, and every
// file the line visibly writes (a redirection, tee, sed -i, cp, mv, rm,
// dd, an interpreter's open for writing). It is a reader, not a shell:
// expansions stay as written, and what only running the line can tell (a
// variable holding a program, a script file's content, a link made by
// the same line) is not seen. It never fails: any input reads as some
// list of commands.
package shellcmd

import (
	"strings"
)

// maxDepth bounds how deep command substitutions and nested shells are
// read; deeper text is not read as commands.
const maxDepth = 24

// maxInput bounds the text read; a longer line is read up to it.
const maxInput = 1 << 20

// token is one word or operator of a shell line.
type token struct {
	op string // the operator, "" for a word
	// word is the word with quotes removed; command substitutions stay in
	// it as written.
	word string
	// quoted is true when any part of the word was quoted (a here
	// document's delimiter then keeps its body unexpanded).
	quoted     bool
	start, end int
}

// lexer splits a line into tokens, reading here-document bodies at the
// newline that ends their command, and collects the bodies of command and
// process substitutions, which run as commands of their own.
type lexer struct {
	s        string
	i        int
	depth    int
	subs     []string
	pending  []*heredoc
	peeked   *token
	stopAtCl bool // a substitution's body: stop at its unmatched ")"
	parens   int
	stopped  bool
}

// heredoc is a here document awaiting its body.
type heredoc struct {
	delim string
	strip bool
	body  *string
}

func newLexer(s string, depth int) *lexer {
	if len(s) > maxInput {
		s = s[:maxInput]
	}
	return &lexer{s: s, depth: depth}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func isMeta(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')'
}

var ops = []string{"&&", "||", ";;&", ";;", ";&", "|&", "&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ";", "&", "|", "(", ")", ">", "<"}

// next returns the next token, or nil at the end.
func (l *lexer) next() *token {
	if l.peeked != nil {
		t := l.peeked
		l.peeked = nil
		return t
	}
	for l.i < len(l.s) && !l.stopped {
		c := l.s[l.i]
		switch {
		case isBlank(c):
			l.i++
			continue
		case c == '\\' && l.i+1 < len(l.s) && l.s[l.i+1] == '\n':
			l.i += 2
			continue
		case c == '#':
			for l.i < len(l.s) && l.s[l.i] != '\n' {
				l.i++
			}
			continue
		case c == '\n':
			start := l.i
			l.i++
			l.readHeredocs()
			return &token{op: "\n", start: start, end: start + 1}
		case (c == '<' || c == '>') && l.i+1 < len(l.s) && l.s[l.i+1] == '(':
			// A process substitution is a word whose command runs.
			start := l.i
			l.i += 2
			body := l.substitution()
			return l.wordFrom(start, string(c)+"("+body+")")
		}
		for _, op := range ops {
			if strings.HasPrefix(l.s[l.i:], op) {
				if l.stopAtCl {
					switch op {
					case "(":
						l.parens++
					case ")":
						if l.parens == 0 {
							l.stopped = true
							return nil
						}
						l.parens--
					}
				}
				start := l.i
				l.i += len(op)
				return &token{op: op, start: start, end: l.i}
			}
		}
		return l.wordFrom(l.i, "")
	}
	return nil
}

// peek returns the next token without taking it.
func (l *lexer) peek() *token {
	if l.peeked == nil {
		l.peeked = l.next()
	}
	return l.peeked
}

// wordFrom reads a word starting at l.i, prefix already read (a process
// substitution), up to the next unquoted metacharacter.
func (l *lexer) wordFrom(start int, prefix string) *token {
	var b strings.Builder
	b.WriteString(prefix)
	quoted := false
	for l.i < len(l.s) {
		c := l.s[l.i]
		if isMeta(c) {
			break
		}
		switch {
		case c == '\'':
			quoted = true
			j := strings.IndexByte(l.s[l.i+1:], '\'')
			if j < 0 {
				b.WriteString(l.s[l.i+1:])
				l.i = len(l.s)
				continue
			}
			b.WriteString(l.s[l.i+1 : l.i+1+j])
			l.i += j + 2
		case c == '"':
			quoted = true
			l.i++
			l.doubleQuoted(&b)
		case c == '\\':
			quoted = true
			if l.i+1 < len(l.s) {
				if l.s[l.i+1] != '\n' {
					b.WriteByte(l.s[l.i+1])
				}
				l.i += 2
			} else {
				l.i++
			}
		case c == '$' && l.i+1 < len(l.s) && l.s[l.i+1] == '\'':
			quoted = true
			l.i += 2
			b.WriteString(l.ansiC())
		case l.expansion(&b):
		default:
			b.WriteByte(c)
			l.i++
		}
	}
	return &token{word: b.String(), quoted: quoted, start: start, end: l.i}
}

// doubleQuoted reads the rest of a double-quoted string, l.i past its
// opening quote.
func (l *lexer) doubleQuoted(b *strings.Builder) {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return
		case c == '\\' && l.i+1 < len(l.s):
			switch n := l.s[l.i+1]; n {
			case '$', '`', '"', '\\':
				b.WriteByte(n)
			case '\n':
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			l.i += 2
		case l.expansion(b):
		default:
			b.WriteByte(c)
			l.i++
		}
	}
}

// expansion writes a command substitution ($(...) or `...`) or a ${...}
// parameter expansion that starts at l.i, as written, and reports whether
// there was one; l.i is then past it.
func (l *lexer) expansion(b *strings.Builder) bool {
	switch {
	case l.s[l.i] == '$' && l.i+1 < len(l.s) && l.s[l.i+1] == '(':
		l.i += 2
		b.WriteString("$(" + l.substitution() + ")")
	case l.s[l.i] == '$' && l.i+1 < len(l.s) && l.s[l.i+1] == '{':
		b.WriteString(l.braced())
	case l.s[l.i] == '`':
		l.i++
		b.WriteString("$(" + l.backquoted() + ")")
	default:
		return false
	}
	return true
}

// braced reads a ${...} parameter expansion as written, l.i at its $.
func (l *lexer) braced() string {
	start := l.i
	l.i += 2
	for depth := 1; l.i < len(l.s) && depth > 0; l.i++ {
		switch l.s[l.i] {
		case '{':
			depth++
		case '}':
			depth--
		case '\\':
			l.i++
		}
	}
	return l.s[start:min(l.i, len(l.s))]
}

// ansiC reads a $'...' string, l.i past its opening quote, decoding the
// escapes bash decodes there.
func (l *lexer) ansiC() string {
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		if c == '\'' {
			l.i++
			break
		}
		if c != '\\' || l.i+1 >= len(l.s) {
			b.WriteByte(c)
			l.i++
			continue
		}
		l.i++
		e := l.s[l.i]
		l.i++
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x':
			v, n := digits(l.s[l.i:], 16, 2)
			l.i += n
			if n > 0 {
				b.WriteByte(byte(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := digits(l.s[l.i-1:], 8, 3)
			l.i += n - 1
			b.WriteByte(byte(v))
		case 'u', 'U':
			size := 4
			if e == 'U' {
				size = 8
			}
			v, n := digits(l.s[l.i:], 16, size)
			l.i += n
			if n > 0 && v <= 0x10FFFF {
				b.WriteRune(rune(v))
			}
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

// digits reads up to max digits of base from s.
func digits(s string, base, max int) (int, int) {
	v, n := 0, 0
	for n < max && n < len(s) {
		d := digitValue(s[n])
		if d < 0 || d >= base {
			break
		}
		v = v*base + d
		n++
	}
	return v, n
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// substitution reads the body of $( ) or <( ), l.i past its opening
// parenthesis, up to its unmatched closing one, and keeps it to be read
// as commands. A body nested too deep is skipped unread.
func (l *lexer) substitution() string {
	start := l.i
	sub := &lexer{s: l.s, i: l.i, depth: l.depth + 1, stopAtCl: true}
	if l.depth+1 > maxDepth {
		// Too deep to read: skip to the matching parenthesis by count.
		depth := 1
		for ; l.i < len(l.s) && depth > 0; l.i++ {
			switch l.s[l.i] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		return l.s[start:max(start, l.i-1)]
	}
	for sub.next() != nil {
	}
	body := l.s[start:min(sub.i, len(l.s))]
	l.i = sub.i
	if sub.stopped {
		l.i++ // the closing parenthesis
	}
	l.subs = append(l.subs, body)
	return body
}

// backquoted reads the body of `...`, l.i past the opening backquote.
func (l *lexer) backquoted() string {
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		if c == '`' {
			l.i++
			break
		}
		if c == '\\' && l.i+1 < len(l.s) && strings.IndexByte("$`\\", l.s[l.i+1]) >= 0 {
			c = l.s[l.i+1]
			l.i++
		}
		b.WriteByte(c)
		l.i++
	}
	l.subs = append(l.subs, b.String())
	return b.String()
}

// readHeredocs reads the bodies of the here documents pending, l.i at the
// start of the line after the command that opened them.
func (l *lexer) readHeredocs() {
	for _, h := range l.pending {
		var body strings.Builder
		for l.i < len(l.s) {
			end := strings.IndexByte(l.s[l.i:], '\n')
			line := l.s[l.i:]
			if end >= 0 {
				line = l.s[l.i : l.i+end]
				l.i += end + 1
			} else {
				l.i = len(l.s)
			}
			check := line
			if h.strip {
				check = strings.TrimLeft(line, "\t")
			}
			if strings.TrimSuffix(check, "\r") == h.delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		*h.body = body.String()
	}
	l.pending = nil
}
