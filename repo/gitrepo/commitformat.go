package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// The commit object format: td decodes the commits it reads and encodes
// the ones it makes. go-git's object package would do both, but links
// OpenPGP into td and adds its initialisation to every start; the format
// takes a few lines, and the tests compare both directions with git.

// parseCommit decodes a commit object's content: header lines ("tree",
// "parent", "author", "committer", and others that are skipped, with their
// continuation lines starting with a space), a blank line, the message.
func parseCommit(data []byte) (*Commit, error) {
	c := &Commit{}
	haveTree := false
	rest := data
	for len(rest) > 0 {
		line := rest
		nl := bytes.IndexByte(rest, '\n')
		if nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = nil
		}
		if len(line) == 0 {
			c.Message = string(rest)
			break
		}
		if line[0] == ' ' {
			continue // continuation of a multi-line header such as gpgsig
		}
		key, value, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			h, ok := parseFullHash(string(value))
			if !ok {
				return nil, fmt.Errorf("bad tree line %q", line)
			}
			c.tree, haveTree = h, true
		case "parent":
			h, ok := parseFullHash(string(value))
			if !ok {
				return nil, fmt.Errorf("bad parent line %q", line)
			}
			c.parent = append(c.parent, h)
			c.Parents = append(c.Parents, h.String())
		case "author":
			c.Author = parseSignature(value)
		case "committer":
			c.Committer = parseSignature(value)
		}
	}
	if !haveTree {
		return nil, errors.New("it names no tree")
	}
	c.Trailers = parseTrailers(c.Message)
	return c, nil
}

// parseSignature decodes "Name <email> seconds ±hhmm", leniently as git does:
// a malformed date leaves When zero.
func parseSignature(b []byte) Signature {
	s := string(b)
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return Signature{Name: strings.TrimSpace(s)}
	}
	sig := Signature{Name: strings.TrimSpace(s[:lt]), Email: s[lt+1 : gt]}
	fields := strings.Fields(s[gt+1:])
	if len(fields) == 0 {
		return sig
	}
	sec, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return sig
	}
	zone := time.UTC
	if len(fields) > 1 {
		if off, ok := parseZone(fields[1]); ok {
			zone = time.FixedZone("", off)
		}
	}
	sig.When = time.Unix(sec, 0).In(zone)
	return sig
}

// parseZone decodes git's "+hhmm" time zone into seconds east of UTC.
func parseZone(tz string) (int, bool) {
	if len(tz) != 5 || tz[0] != '+' && tz[0] != '-' {
		return 0, false
	}
	hh, err1 := strconv.Atoi(tz[1:3])
	mm, err2 := strconv.Atoi(tz[3:5])
	if err1 != nil || err2 != nil {
		return 0, false
	}
	off := (hh*60 + mm) * 60
	if tz[0] == '-' {
		off = -off
	}
	return off, true
}

// headerValue returns the value of the first header line named key in a
// commit or tag object.
func headerValue(data []byte, key string) (string, bool) {
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte{' '}); ok && string(k) == key {
			return string(v), true
		}
	}
	return "", false
}

// parseTrailers returns the trailers of a commit message the way git's
// interpret-trailers finds them: the last paragraph, which is never the first
// one (the title), is a trailer block when all its lines are "Key: value"
// trailers or their indented continuations, or when it holds a line git
// itself writes (Signed-off-by:, "(cherry picked from commit") and at least a
// quarter of its lines are trailers. Comment lines are ignored.
func parseTrailers(msg string) []Trailer {
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			kept = append(kept, l)
		}
	}
	lines = kept
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	titleEnd := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			titleEnd = i
			break
		}
	}
	if titleEnd < 0 {
		return nil
	}
	start := len(lines)
	for start > titleEnd+1 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	block := lines[start:]
	if len(block) == 0 {
		return nil
	}
	var trailers []Trailer
	nTrailer, nOther, gitWritten := 0, 0, false
	inTrailer := false
	for _, l := range block {
		if l[0] == ' ' || l[0] == '\t' {
			if inTrailer {
				t := &trailers[len(trailers)-1]
				t.Value = strings.TrimSpace(t.Value + " " + strings.TrimSpace(l))
				continue
			}
			nOther++
			continue
		}
		if strings.HasPrefix(l, "(cherry picked from commit ") {
			nTrailer++
			gitWritten = true
			inTrailer = false
			continue
		}
		key, value, ok := splitTrailer(l)
		if !ok {
			nOther++
			inTrailer = false
			continue
		}
		if strings.EqualFold(key, "Signed-off-by") {
			gitWritten = true
		}
		nTrailer++
		inTrailer = true
		trailers = append(trailers, Trailer{Key: key, Value: value})
	}
	if nOther > 0 && (!gitWritten || nTrailer*3 < nOther) {
		return nil
	}
	return trailers
}

// splitTrailer parses "Key: value", where the key is letters, digits and
// dashes, optionally followed by blanks before the colon.
func splitTrailer(l string) (key, value string, ok bool) {
	i := 0
	for i < len(l) && (isAlnum(rune(l[i])) || l[i] == '-') {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	key = l[:i]
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i >= len(l) || l[i] != ':' {
		return "", "", false
	}
	return key, strings.TrimSpace(l[i+1:]), true
}

// commitObject encodes a commit object's content.
func commitObject(tree, parent plumbing.Hash, req CommitRequest) []byte {
	var b bytes.Buffer
	b.WriteString("tree " + tree.String() + "\n")
	if !parent.IsZero() {
		b.WriteString("parent " + parent.String() + "\n")
	}
	b.WriteString("author " + formatSignature(req.Author) + "\n")
	b.WriteString("committer " + formatSignature(req.Committer) + "\n\n")
	b.WriteString(req.Message)
	if !strings.HasSuffix(req.Message, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// formatSignature encodes an author or committer line's value as git
// writes it: "Name <email> seconds ±hhmm". Angle brackets and line breaks,
// which would corrupt the line, are dropped from the name and the email.
func formatSignature(s Signature) string {
	clean := func(v string) string {
		return strings.TrimSpace(strings.Map(func(r rune) rune {
			if r == '<' || r == '>' || r == '\n' || r == '\r' || r == 0 {
				return -1
			}
			return r
		}, v))
	}
	_, off := s.When.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", clean(s.Name), clean(s.Email), s.When.Unix(), sign, off/3600, off%3600/60)
}

// BodyTrailerBlocks returns the trailers of every paragraph of the
// message between its title and its last paragraph (whose trailers are
// Trailers) that is made of trailer lines only, in order. A squash merge
// writes the messages of the commits it squashed into its body one after
// another, each with its trailer block, so the blocks before the last
// still say who did what; git reads only the last one as trailers.
func (c *Commit) BodyTrailerBlocks() [][]Trailer {
	var paras [][]string
	var cur []string
	for _, l := range strings.Split(strings.ReplaceAll(c.Message, "\r\n", "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
		case strings.TrimSpace(l) == "":
			if len(cur) > 0 {
				paras, cur = append(paras, cur), nil
			}
		default:
			cur = append(cur, l)
		}
	}
	if len(cur) > 0 {
		paras = append(paras, cur)
	}
	var blocks [][]Trailer
	for i, para := range paras {
		if i == 0 || i == len(paras)-1 {
			continue // the title, and the trailers git reads
		}
		var block []Trailer
		for _, l := range para {
			if l[0] == ' ' || l[0] == '\t' {
				if len(block) == 0 {
					block = nil
					break
				}
				t := &block[len(block)-1]
				t.Value = strings.TrimSpace(t.Value + " " + strings.TrimSpace(l))
				continue
			}
			key, value, ok := splitTrailer(l)
			if !ok {
				block = nil
				break
			}
			block = append(block, Trailer{Key: key, Value: value})
		}
		if len(block) > 0 {
			blocks = append(blocks, block)
		}
	}
	return blocks
}
