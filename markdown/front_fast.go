package markdown

import (
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The frontmatter td writes is a small YAML subset, and parsing it with
// yaml.v3 is a large share of reading an issue file. parseFast reads exactly
// that subset by hand and builds the node tree yaml.v3 would build, field
// for field (FuzzFrontFast compares the two). It never reports an error: for
// anything outside the subset, or any scalar whose resolved tag it cannot
// tell for certain, it declines and yaml.v3 parses the text as before.
//
// The subset, one item a line, every line ending in LF:
//
//	key: scalar
//	key: [scalar, {key: scalar, key: scalar}]
//	key: {key: scalar}
//	key:
//	  - scalar, [flow sequence] or {flow mapping}
//
// Keys start in the first column with a letter or '_' and hold letters,
// digits, '_' and '-'. A scalar is plain or double quoted on one line.
// Empty lines may separate the entries and end the text. Comments, anchors, tags, single
// quotes, block scalars, lines of spaces, tabs, CR, nested flow sequences
// and duplicate keys are all declined.

// fastParser is the state of one parseFast call.
type fastParser struct {
	raw       []byte
	text      string      // raw as a string, which scalar values slice
	nodes     []yaml.Node // room for nodes, to allocate them in bulk
	pos       int         // offset of the next byte to read
	line      int         // 1-based line of pos
	lineStart int         // offset where that line starts
}

// parseFast returns the document node yaml.v3 would decode raw into, or
// false when raw is outside the subset it reads.
func parseFast(raw []byte) (*yaml.Node, bool) {
	if len(raw) == 0 || raw[len(raw)-1] != '\n' || raw[0] == '\n' {
		return nil, false
	}
	p := &fastParser{raw: raw, text: string(raw), line: 1}
	// Room for the document, its mapping, two nodes a line and two more
	// for each flow collection and item in one: enough for td's files.
	size := 2
	for _, c := range raw {
		switch c {
		case '\n', ',', '[', '{':
			size += 2
		}
	}
	p.nodes = make([]yaml.Node, 0, size)
	root := p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1})
	root.Content = make([]*yaml.Node, 0, 32)
	for p.pos < len(raw) {
		if raw[p.pos] == '\n' {
			// A blank line between entries, as td writes them to
			// keep fields that change apart (see IssueLayout).
			p.newline()
			continue
		}
		key, ok := p.key()
		if !ok || len(root.Content) >= 2*MaxFrontmatterKeys || hasKey(root, key) {
			return nil, false // yaml.v3 reads it, and parseFront refuses it
		}
		value, ok := p.entryValue()
		if !ok {
			return nil, false
		}
		root.Content = append(root.Content, key, value)
	}
	if len(root.Content) == 0 {
		return nil, false // blank lines only: no document at all
	}
	doc := p.node(yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}})
	return doc, true
}

// hasKey reports whether the mapping m already holds a scalar key equal to
// k in tag and value.
func hasKey(m, k *yaml.Node) bool {
	for i := 0; i < len(m.Content); i += 2 {
		if c := m.Content[i]; c.Value == k.Value && c.Tag == k.Tag {
			return true
		}
	}
	return false
}

// node returns a pointer to a copy of n, taken from a block of nodes.
func (p *fastParser) node(n yaml.Node) *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]yaml.Node, 0, 16)
	}
	p.nodes = append(p.nodes, n)
	return &p.nodes[len(p.nodes)-1]
}

// column returns the 1-based column of pos, counted in characters as
// yaml.v3 counts them.
func (p *fastParser) column() int {
	return utf8.RuneCount(p.raw[p.lineStart:p.pos]) + 1
}

// newline consumes the LF at pos.
func (p *fastParser) newline() bool {
	if p.pos >= len(p.raw) || p.raw[p.pos] != '\n' {
		return false
	}
	p.pos++
	p.line++
	p.lineStart = p.pos
	return true
}

// key reads a top-level "key:" at the start of a line.
func (p *fastParser) key() (*yaml.Node, bool) {
	start := p.pos
	for p.pos < len(p.raw) && isKeyByte(p.raw[p.pos], p.pos == start) {
		p.pos++
	}
	if p.pos == start || p.pos-start > 128 || p.pos >= len(p.raw) || p.raw[p.pos] != ':' {
		return nil, false
	}
	k := p.node(yaml.Node{Kind: yaml.ScalarNode, Value: p.text[start:p.pos], Line: p.line, Column: 1})
	p.pos++
	if k.Tag = plainTag(k.Value); k.Tag != "!!str" {
		return nil, false
	}
	return k, true
}

// isKeyByte reports whether c may appear in a top-level key, first when it
// would be the first byte.
func isKeyByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-':
		return !first
	}
	return false
}

// entryValue reads what follows "key:": a value on the same line, or the
// items of a block sequence on the lines below.
func (p *fastParser) entryValue() (*yaml.Node, bool) {
	if p.pos < len(p.raw) && p.raw[p.pos] == ' ' {
		for p.pos < len(p.raw) && p.raw[p.pos] == ' ' {
			p.pos++
		}
		v, ok := p.inline(false)
		if !ok || !p.newline() {
			return nil, false
		}
		return v, true
	}
	if !p.newline() {
		return nil, false
	}
	// A block sequence: every item on its own line, indented alike.
	indent := 0
	for p.pos+indent < len(p.raw) && p.raw[p.pos+indent] == ' ' {
		indent++
	}
	seq := p.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: p.line, Column: indent + 1})
	for p.isItem(indent) {
		p.pos += indent + 2
		v, ok := p.inline(false)
		if !ok || !p.newline() {
			return nil, false
		}
		seq.Content = append(seq.Content, v)
	}
	if len(seq.Content) == 0 || p.pos < len(p.raw) && p.raw[p.pos] == ' ' {
		// "key:" with no value, or a line the subset does not cover.
		return nil, false
	}
	return seq, true
}

// isItem reports whether the line at pos is "- " after indent spaces.
func (p *fastParser) isItem(indent int) bool {
	i := p.pos
	if i+indent+2 > len(p.raw) {
		return false
	}
	for ; i < p.pos+indent; i++ {
		if p.raw[i] != ' ' {
			return false
		}
	}
	return p.raw[i] == '-' && p.raw[i+1] == ' '
}

// inline reads one value on the current line: a scalar, a flow sequence of
// scalars and flow mappings, or a flow mapping of scalars. flow is set
// inside a flow collection.
func (p *fastParser) inline(flow bool) (*yaml.Node, bool) {
	if p.pos >= len(p.raw) {
		return nil, false
	}
	switch p.raw[p.pos] {
	case '"':
		return p.quoted()
	case '[':
		if flow {
			return nil, false
		}
		return p.flowSeq()
	case '{':
		return p.flowMap()
	}
	return p.plain(flow)
}

// flowSeq reads "[a, b]" or "[]".
func (p *fastParser) flowSeq() (*yaml.Node, bool) {
	n := p.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Line: p.line, Column: p.column()})
	p.pos++
	if p.pos < len(p.raw) && p.raw[p.pos] == ']' {
		p.pos++
		return n, true
	}
	for {
		v, ok := p.inline(true)
		if !ok {
			return nil, false
		}
		n.Content = append(n.Content, v)
		if end, ok := p.flowNext(']'); !ok {
			return nil, false
		} else if end {
			return n, true
		}
	}
}

// flowMap reads "{k: v, k: v}" or "{}" with plain keys.
func (p *fastParser) flowMap() (*yaml.Node, bool) {
	n := p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: p.line, Column: p.column()})
	p.pos++
	if p.pos < len(p.raw) && p.raw[p.pos] == '}' {
		p.pos++
		return n, true
	}
	for {
		start := p.pos
		k, ok := p.plain(true)
		if !ok || p.pos-start > 128 || hasKey(n, k) {
			return nil, false
		}
		if p.pos+1 >= len(p.raw) || p.raw[p.pos] != ':' || p.raw[p.pos+1] != ' ' {
			return nil, false
		}
		p.pos += 2
		if p.pos >= len(p.raw) || p.raw[p.pos] == '[' || p.raw[p.pos] == '{' {
			return nil, false
		}
		v, ok := p.inline(true)
		if !ok {
			return nil, false
		}
		n.Content = append(n.Content, k, v)
		if end, ok := p.flowNext('}'); !ok {
			return nil, false
		} else if end {
			return n, true
		}
	}
}

// flowNext reads ", " before the next entry or the closing bracket, and
// reports which it was.
func (p *fastParser) flowNext(closing byte) (end, ok bool) {
	if p.pos < len(p.raw) && p.raw[p.pos] == closing {
		p.pos++
		return true, true
	}
	if p.pos+1 < len(p.raw) && p.raw[p.pos] == ',' && p.raw[p.pos+1] == ' ' {
		p.pos += 2
		return false, true
	}
	return false, false
}

// plain reads a plain scalar up to the end of the line, or in a flow
// collection up to the next ',', ':', ']' or '}'.
func (p *fastParser) plain(flow bool) (*yaml.Node, bool) {
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Line: p.line, Column: p.column()})
	start := p.pos
	if !isPlainStart(p.raw[start]) {
		return nil, false
	}
	for p.pos < len(p.raw) {
		c := p.raw[p.pos]
		if c == '\n' {
			break
		}
		if flow && (c == ',' || c == ':' || c == ']' || c == '}') {
			break
		}
		switch c {
		case '#', '\t', '\r':
			return nil, false
		case ':':
			if p.pos+1 < len(p.raw) && (p.raw[p.pos+1] == ' ' || p.raw[p.pos+1] == '\n') {
				return nil, false
			}
		case '?', '[', '{':
			if flow {
				return nil, false
			}
		}
		if w := charLen(p.raw, p.pos); w > 0 {
			p.pos += w
		} else {
			return nil, false
		}
	}
	if p.raw[p.pos-1] == ' ' {
		return nil, false
	}
	n.Value = p.text[start:p.pos]
	if n.Tag = plainTag(n.Value); n.Tag == "" {
		return nil, false
	}
	return n, true
}

// isPlainStart reports whether a plain scalar the subset reads may start
// with c: not a YAML indicator, a sign, a dot, a tilde or a space.
func isPlainStart(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '/':
		return true
	}
	return c >= 0x80
}

// charLen returns the length of the character at b[i] when it may appear
// in a scalar of the subset, or 0: printable ASCII, and the non-ASCII
// characters YAML allows other than line breaks and the byte order mark.
func charLen(b []byte, i int) int {
	c := b[i]
	if c < 0x80 {
		if c >= 0x20 && c < 0x7F {
			return 1
		}
		return 0
	}
	r, w := utf8.DecodeRune(b[i:])
	switch {
	case r == utf8.RuneError && w <= 1:
		return 0
	case r == 0x2028, r == 0x2029, r == 0xFEFF:
		return 0
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return w
	}
	return 0
}

// plainTag returns the tag yaml.v3 resolves the plain scalar s to, or ""
// when it is not certain. s starts with a letter, a digit, '_', '/' or a
// non-ASCII character (isPlainStart).
func plainTag(s string) string {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case "null", "Null", "NULL":
		return "!!null"
	}
	if c := s[0]; c < '0' || c > '9' {
		// yaml.v3 resolves anything else not starting with a digit, a
		// sign, '.' or '~' as a string.
		return "!!str"
	}
	if isDecimal(s) {
		return "!!int"
	}
	if isTimestamp(s) {
		return "!!timestamp"
	}
	return ""
}

// timestampLayouts are the shapes of the timestamps the subset reads, 'd'
// standing for a digit, and the layout yaml.v3 parses each with.
var timestampLayouts = [...]struct{ shape, layout string }{
	{"dddd-dd-ddTdd:dd:ddZ", "2006-1-2T15:4:5.999999999Z07:00"},
	{"dddd-dd-dd", "2006-1-2"},
}

// isDecimal reports whether s is a decimal integer without a leading zero
// that fits in an int64 for certain.
func isDecimal(s string) bool {
	if len(s) > 18 || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isTimestamp reports whether s is a UTC time in the form td writes,
// 2026-11-21T10:04:11Z, or a date, 2026-11-21, that yaml.v3 reads as a
// timestamp: it tries the layout yaml.v3 would succeed with.
func isTimestamp(s string) bool {
	for _, t := range timestampLayouts {
		if len(s) != len(t.shape) {
			continue
		}
		for i := 0; i < len(s); i++ {
			if t.shape[i] == 'd' {
				if s[i] < '0' || s[i] > '9' {
					return false
				}
			} else if s[i] != t.shape[i] {
				return false
			}
		}
		_, err := time.Parse(t.layout, s)
		return err == nil
	}
	return false
}

// quoted reads a double-quoted scalar on one line. It reads the escapes
// td writes and the other one-character escapes, as yaml.v3 does.
func (p *fastParser) quoted() (*yaml.Node, bool) {
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Line: p.line, Column: p.column()})
	p.pos++
	start := p.pos
	var val []byte // the value once an escape has been read
	escaped := false
	for {
		if p.pos >= len(p.raw) {
			return nil, false
		}
		c := p.raw[p.pos]
		switch c {
		case '"':
			if escaped {
				n.Value = string(val)
			} else {
				n.Value = p.text[start:p.pos]
			}
			p.pos++
			return n, true
		case '\\':
			if p.pos+1 >= len(p.raw) {
				return nil, false
			}
			if !escaped {
				escaped = true
				val = append(val, p.raw[start:p.pos]...)
			}
			e := p.raw[p.pos+1]
			p.pos += 2
			if r, ok := simpleEscape(e); ok {
				val = append(val, r...)
				continue
			}
			size := hexEscapeLen(e)
			if size == 0 || p.pos+size > len(p.raw) {
				return nil, false
			}
			r := 0
			for _, h := range p.raw[p.pos : p.pos+size] {
				d := hexValue(h)
				if d < 0 {
					return nil, false
				}
				r = r<<4 | d
			}
			if r >= 0xD800 && r <= 0xDFFF || r > 0x10FFFF {
				return nil, false
			}
			val = utf8.AppendRune(val, rune(r))
			p.pos += size
			continue
		}
		w := charLen(p.raw, p.pos)
		if w == 0 {
			return nil, false
		}
		if escaped {
			val = append(val, p.raw[p.pos:p.pos+w]...)
		}
		p.pos += w
	}
}

// simpleEscape returns the text of the one-character escape \e.
func simpleEscape(e byte) (string, bool) {
	switch e {
	case '0':
		return "\x00", true
	case 'a':
		return "\a", true
	case 'b':
		return "\b", true
	case 't':
		return "\t", true
	case 'n':
		return "\n", true
	case 'v':
		return "\v", true
	case 'f':
		return "\f", true
	case 'r':
		return "\r", true
	case 'e':
		return "\x1b", true
	case ' ':
		return " ", true
	case '"':
		return "\"", true
	case '\'':
		return "'", true
	case '\\':
		return "\\", true
	case 'N':
		return "\u0085", true
	case '_':
		return "\u00a0", true
	case 'L':
		return "\u2028", true
	case 'P':
		return "\u2029", true
	}
	return "", false
}

// hexEscapeLen returns the number of hex digits after \x, \u or \U, or 0
// for another escape.
func hexEscapeLen(e byte) int {
	switch e {
	case 'x':
		return 2
	case 'u':
		return 4
	case 'U':
		return 8
	}
	return 0
}

// hexValue returns the value of the hex digit h, or -1.
func hexValue(h byte) int {
	switch {
	case h >= '0' && h <= '9':
		return int(h - '0')
	case h >= 'a' && h <= 'f':
		return int(h-'a') + 10
	case h >= 'A' && h <= 'F':
		return int(h-'A') + 10
	}
	return -1
}
