package codex

import (
	"strings"
	"unicode/utf8"
)

// scalars reads the string and boolean values of a TOML document as
// Codex writes its config.toml, each under its whole key path (table
// headers and dotted keys, quoted segments unquoted), the path's segments
// joined by keySep. It reads what td needs of that file, [projects."…"]
// trust_level and [hooks.state."…"] trusted_hash and enabled, and skips
// what it does not: numbers, dates, arrays, inline tables, multi-line
// strings, arrays of tables. A line it cannot read is skipped, never an
// error: Codex, not td, is the judge of its own file.
func scalars(doc string) map[string]string {
	out := map[string]string{}
	var table []string
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		switch {
		case l == "" || l[0] == '#':
			continue
		case strings.HasPrefix(l, "[["):
			table = nil // an array of tables: nothing td reads
			continue
		case l[0] == '[':
			path, rest, ok := keyPath(l[1:])
			rest = strings.TrimSpace(rest)
			if !ok || !strings.HasPrefix(rest, "]") || !isComment(rest[1:]) {
				table = nil
				continue
			}
			table = path
			continue
		}
		key, rest, ok := keyPath(l)
		rest = strings.TrimSpace(rest)
		if !ok || !strings.HasPrefix(rest, "=") {
			continue
		}
		rest = strings.TrimSpace(rest[1:])
		if strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''") {
			// A multi-line string: skip to its end.
			delim := rest[:3]
			for body := rest[3:]; !strings.Contains(body, delim) && i+1 < len(lines); {
				i++
				body = lines[i]
			}
			continue
		}
		v, tail, ok := scalar(rest)
		if !ok || !isComment(tail) || table == nil && len(key) == 0 {
			continue
		}
		full := append(append([]string{}, table...), key...)
		out[strings.Join(full, keySep)] = v
	}
	return out
}

// keySep joins the segments of a key path in scalars' map.
const keySep = "\x00"

// isComment reports whether what follows a value on its line is nothing
// or a comment.
func isComment(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s[0] == '#'
}

// keyPath reads a dotted key (bare and quoted segments) at the start of
// s and returns its segments and what follows it.
func keyPath(s string) ([]string, string, bool) {
	var path []string
	for {
		s = strings.TrimLeft(s, " \t")
		var seg string
		switch {
		case s == "":
			return nil, "", false
		case s[0] == '"':
			v, rest, ok := basicString(s)
			if !ok {
				return nil, "", false
			}
			seg, s = v, rest
		case s[0] == '\'':
			j := strings.IndexByte(s[1:], '\'')
			if j < 0 {
				return nil, "", false
			}
			seg, s = s[1:1+j], s[2+j:]
		default:
			j := 0
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '-') {
				j++
			}
			if j == 0 {
				return nil, "", false
			}
			seg, s = s[:j], s[j:]
		}
		path = append(path, seg)
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return path, s, true
		}
		s = s[1:]
	}
}

// scalar reads a string or boolean value at the start of s.
func scalar(s string) (string, string, bool) {
	switch {
	case strings.HasPrefix(s, `"`):
		return basicString(s)
	case strings.HasPrefix(s, "'"):
		j := strings.IndexByte(s[1:], '\'')
		if j < 0 {
			return "", "", false
		}
		return s[1 : 1+j], s[2+j:], true
	case strings.HasPrefix(s, "true"):
		return "true", s[4:], true
	case strings.HasPrefix(s, "false"):
		return "false", s[5:], true
	}
	return "", "", false
}

// basicString reads a one-line "…" string with TOML's escapes.
func basicString(s string) (string, string, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], true
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(s[i])
			case 'u', 'U':
				n := 4
				if s[i] == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", "", false
				}
				var r rune
				for _, h := range s[i+1 : i+1+n] {
					d := strings.IndexRune("0123456789abcdef", h|0x20)
					if d < 0 {
						return "", "", false
					}
					r = r<<4 | rune(d)
				}
				if !utf8.ValidRune(r) {
					return "", "", false
				}
				b.WriteRune(r)
				i += n
			default:
				return "", "", false
			}
		case c == '\\':
			return "", "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}
