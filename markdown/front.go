package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Frontmatter is the YAML mapping between the frontmatter delimiters. It
// keeps the exact text and edits it by line range; see Set and Delete.
type Frontmatter struct {
	raw       []byte
	eol       string
	firstLine int // file line of the first YAML line

	// starts holds the byte offset in raw of every YAML line, split the way
	// the YAML scanner splits them (LF, CRLF, CR, NEL, LS and PS).
	starts []int
	// fileLines holds the file line ("\n" counted) of every YAML line.
	fileLines []int

	root    *yaml.Node // the top-level mapping; nil when the text is empty
	entries []entry
	indent  string // leading spaces of the top-level keys
	layout  string // why the text cannot be edited by line, "" if it can
}

// entry is one top-level key with the byte range of its lines in raw.
type entry struct {
	name       string
	key, value *yaml.Node
	start, end int
}

// NewFrontmatter returns an empty frontmatter for building a new file in the
// canonical form: add keys with Set in the order they should appear.
func NewFrontmatter() *Frontmatter {
	return &Frontmatter{eol: "\n", firstLine: 2}
}

// Keys returns the top-level keys in file order.
func (fm *Frontmatter) Keys() []string {
	keys := make([]string, len(fm.entries))
	for i, e := range fm.entries {
		keys[i] = e.name
	}
	return keys
}

// Has reports whether key is a top-level key.
func (fm *Frontmatter) Has(key string) bool {
	return fm.find(key) >= 0
}

// Line returns the file line of the top-level key, or 0 if it is absent.
func (fm *Frontmatter) Line(key string) int {
	i := fm.find(key)
	if i < 0 {
		return 0
	}
	return fm.fileLine(fm.entries[i].key.Line)
}

// Node returns the value node of the top-level key, or nil if it is absent.
// The node belongs to the frontmatter and must not be modified.
func (fm *Frontmatter) Node(key string) *yaml.Node {
	i := fm.find(key)
	if i < 0 {
		return nil
	}
	return fm.entries[i].value
}

// Bytes returns the YAML text between the delimiters.
func (fm *Frontmatter) Bytes() []byte {
	return bytes.Clone(fm.raw)
}

// Decode decodes the whole mapping into v with yaml.v3 semantics. A value of
// the wrong type is reported as an *Error at its file line.
func (fm *Frontmatter) Decode(v any) (err error) {
	if fm.root == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Line: fm.firstLine, Msg: fmt.Sprintf("frontmatter cannot be decoded: %v", r)}
		}
	}()
	if err := fm.root.Decode(v); err != nil {
		return fm.decodeError(err)
	}
	return nil
}

// Set replaces the lines of key with the canonical encoding of "key: value".
// A line comment on the old key or value is kept. When key is absent it is
// appended at the end of the mapping. Every other byte of the text stays as
// it was. The result is parsed again and Set returns an error, leaving the
// frontmatter unchanged, unless key reads back as value and every other key
// reads back as before.
func (fm *Frontmatter) Set(key string, value *yaml.Node) error {
	if value == nil {
		return fmt.Errorf("cannot set key %q to a nil node", key)
	}
	if value.Kind == yaml.DocumentNode && len(value.Content) == 1 {
		value = value.Content[0]
	}
	if err := checkValue(value); err != nil {
		return fmt.Errorf("cannot set key %q: %w", key, err)
	}
	if fm.layout != "" {
		return &Error{Line: fm.firstLine, Msg: fm.layout}
	}
	lines, err := renderEntry(key, value)
	if err != nil {
		return fmt.Errorf("cannot set key %q: %w", key, err)
	}
	i := fm.find(key)
	start := fm.appendAt()
	end := start
	line := fm.firstLine + bytes.Count(fm.raw[:start], []byte("\n"))
	if i >= 0 {
		e := fm.entries[i]
		start, end = e.start, e.end
		line = fm.fileLine(e.key.Line)
		if c, col := fm.lineComment(e); c != "" {
			lines[0] = attachComment(fm.indent+lines[0], c, col)[len(fm.indent):]
		}
	}
	var text strings.Builder
	for _, l := range lines {
		text.WriteString(fm.indent)
		text.WriteString(l)
		text.WriteString(fm.eol)
	}
	raw := make([]byte, 0, len(fm.raw)+text.Len())
	raw = append(raw, fm.raw[:start]...)
	raw = append(raw, text.String()...)
	raw = append(raw, fm.raw[end:]...)

	if msg := delimitable(raw); msg != "" {
		return &Error{Line: line, Msg: fmt.Sprintf("setting key %q %s", key, msg)}
	}
	next, err := parseFront(raw, fm.eol, fm.firstLine)
	if err != nil {
		return &Error{Line: line, Msg: fmt.Sprintf("setting key %q would break the frontmatter (%s)", key, errMsg(err))}
	}
	want := fm.Keys()
	if i < 0 {
		want = append(want, key)
	}
	if err := fm.verify(next, want, key); err != nil {
		return &Error{Line: line, Msg: fmt.Sprintf("setting key %q %s", key, err)}
	}
	j := next.find(key)
	if !sameNode(value, next.entries[j].value, true) {
		return &Error{Line: line, Msg: fmt.Sprintf("setting key %q would not read back as the value given", key)}
	}
	*fm = *next
	return nil
}

// Delete removes the lines of key. Nothing happens if key is absent, or if
// removing its lines would change how another key reads; use Remove to learn
// why a key was kept.
func (fm *Frontmatter) Delete(key string) {
	_ = fm.Remove(key)
}

// Remove removes the lines of key like Delete and reports an error if the
// key is absent or its lines cannot be removed without changing another key.
func (fm *Frontmatter) Remove(key string) error {
	i := fm.find(key)
	if i < 0 {
		return fmt.Errorf("key %q is not in the frontmatter", key)
	}
	if fm.layout != "" {
		return &Error{Line: fm.firstLine, Msg: fm.layout}
	}
	e := fm.entries[i]
	line := fm.fileLine(e.key.Line)
	raw := make([]byte, 0, len(fm.raw))
	raw = append(raw, fm.raw[:e.start]...)
	raw = append(raw, fm.raw[e.end:]...)
	if msg := delimitable(raw); msg != "" {
		return &Error{Line: line, Msg: fmt.Sprintf("removing key %q %s", key, msg)}
	}
	next, err := parseFront(raw, fm.eol, fm.firstLine)
	if err != nil {
		return &Error{Line: line, Msg: fmt.Sprintf("removing key %q would break the frontmatter (%s)", key, errMsg(err))}
	}
	want := fm.Keys()
	want = append(want[:i:i], want[i+1:]...)
	if err := fm.verify(next, want, key); err != nil {
		return &Error{Line: line, Msg: fmt.Sprintf("removing key %q %s", key, err)}
	}
	*fm = *next
	return nil
}

// appendAt returns where a new key goes: at the end of the text, or before
// an explicit "..." document end marker.
func (fm *Frontmatter) appendAt() int {
	for li := range fm.starts {
		line := fm.raw[fm.starts[li]:fm.lineEnd(li)]
		if isDocEnd(line) {
			return fm.starts[li]
		}
	}
	return len(fm.raw)
}

// delimitable checks that raw can sit between the frontmatter delimiters:
// it ends with a line feed and has no line of its own that reads as one.
func delimitable(raw []byte) string {
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		return "would leave the frontmatter without a final line feed"
	}
	for rest := raw; len(rest) > 0; {
		var line []byte
		line, rest = cutLine(rest)
		if isDelimiter(line) {
			return "would put a '---' line inside the frontmatter"
		}
	}
	return ""
}

// verify checks that next has exactly the keys want, in order, and that
// every key other than changed reads as it did in fm.
func (fm *Frontmatter) verify(next *Frontmatter, want []string, changed string) error {
	got := next.Keys()
	if len(got) != len(want) {
		return errors.New("would change the set of other keys")
	}
	for i := range got {
		if got[i] != want[i] {
			return errors.New("would change the set of other keys")
		}
	}
	j := 0
	for _, e := range fm.entries {
		if e.name == changed {
			if j < len(next.entries) && next.entries[j].name == changed {
				j++
			}
			continue
		}
		if !sameNode(e.value, next.entries[j].value, false) {
			return fmt.Errorf("would change the value of key %q", e.name)
		}
		j++
	}
	return nil
}

// lineComment returns the line comment of the entry's key or value and the
// column (0-based, in runes) where it starts on its line.
func (fm *Frontmatter) lineComment(e entry) (string, int) {
	c := e.key.LineComment
	if c == "" {
		c = e.value.LineComment
	}
	c = strings.TrimSpace(c)
	if c == "" || strings.ContainsAny(c, "\r\n") {
		return "", 0
	}
	span := fm.raw[e.start:e.end]
	for end := len(span); end > 0; {
		i := bytes.LastIndex(span[:end], []byte(c))
		if i <= 0 {
			break
		}
		if span[i-1] == ' ' || span[i-1] == '\t' {
			ls := bytes.LastIndexByte(span[:i], '\n') + 1
			return c, len([]rune(string(span[ls:i])))
		}
		end = i
	}
	return "", 0
}

// attachComment appends comment to line, at column col when the line is
// short enough and one space after it otherwise.
func attachComment(line, comment string, col int) string {
	pad := col - len([]rune(line))
	if pad < 1 {
		pad = 1
	}
	return line + strings.Repeat(" ", pad) + comment
}

func (fm *Frontmatter) find(key string) int {
	for i := range fm.entries {
		if fm.entries[i].name == key {
			return i
		}
	}
	return -1
}

// fileLine converts a 1-based YAML line to a file line, clamping it to the
// frontmatter.
func (fm *Frontmatter) fileLine(yamlLine int) int {
	if len(fm.fileLines) == 0 {
		return fm.firstLine
	}
	if yamlLine < 1 {
		yamlLine = 1
	}
	if yamlLine > len(fm.fileLines) {
		yamlLine = len(fm.fileLines)
	}
	return fm.fileLines[yamlLine-1]
}

// noFast makes parseFront skip parseFast; tests set it to compare the two.
var noFast bool

// parseFront parses the YAML text raw, whose first line is file line
// firstLine, and checks it against the rules for issue frontmatter. The
// frontmatter td writes is read by parseFast, which builds the same node
// tree yaml.v3 would in a fraction of the time; anything else is parsed
// by yaml.v3, which remains the authority and the source of every error.
func parseFront(raw []byte, eol string, firstLine int) (*Frontmatter, error) {
	fm := &Frontmatter{raw: raw, eol: eol, firstLine: firstLine}
	fm.splitLines()
	if off := firstNonYAMLChar(raw); off >= 0 {
		return nil, &Error{Line: firstLine + bytes.Count(raw[:off], []byte("\n")), Msg: "control characters are not allowed in the frontmatter"}
	}
	if n := keyLines(raw); n > MaxFrontmatterKeys {
		return nil, &Error{Line: firstLine, Msg: fmt.Sprintf("the frontmatter has %d keys, over the limit of %d; an issue file holds td's fields and a few of your own", n, MaxFrontmatterKeys)}
	}
	doc, ok := parseFast(raw)
	if !ok || noFast {
		// yaml.v3 is the authority: it reads everything the fast path
		// declines, and every error comes from it.
		doc = &yaml.Node{}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		if err := safeDecode(dec, doc); err == io.EOF {
			return fm, nil
		} else if err != nil {
			return nil, fm.yamlError(err)
		}
		var extra yaml.Node
		if err := safeDecode(dec, &extra); err != io.EOF {
			if err != nil {
				return nil, fm.yamlError(err)
			}
			return nil, &Error{Line: fm.fileLine(extra.Line), Msg: "frontmatter holds more than one YAML document"}
		}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return fm, nil
	}
	root := doc.Content[0]
	if n := len(root.Content) / 2; root.Kind == yaml.MappingNode && n > MaxFrontmatterKeys {
		return nil, &Error{Line: firstLine, Msg: fmt.Sprintf("the frontmatter has %d keys, over the limit of %d; an issue file holds td's fields and a few of your own", n, MaxFrontmatterKeys)}
	}
	if err := fm.checkNode(root); err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Line: fm.fileLine(root.Line), Msg: "frontmatter is not a YAML mapping"}
	}
	fm.root = root
	fm.entries = make([]entry, 0, len(root.Content)/2)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			return nil, &Error{Line: fm.fileLine(k.Line), Msg: "top-level frontmatter key is not a string"}
		}
		fm.entries = append(fm.entries, entry{name: k.Value, key: k, value: v})
	}
	fm.computeSpans()
	return fm, nil
}

// MaxFrontmatterKeys bounds the top-level keys of a frontmatter. td's
// fields are some twenty; the bound keeps every step that compares keys
// (the YAML library's duplicate check among them, quadratic) to a few
// milliseconds however the file was made: 96,000 keys fit in the 1 MiB an
// issue file may hold, and took half a minute.
const MaxFrontmatterKeys = 1000

// keyLines counts the lines of raw that begin a top-level key: a line
// starting in the first column with something other than a space, a tab,
// '-', '#' or a line break, and holding ':'. It reads each byte once, so
// that a frontmatter of too many keys is refused before any parse.
func keyLines(raw []byte) int {
	n := 0
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) > 0 && strings.IndexByte(" \t-#\r", line[0]) < 0 && bytes.IndexByte(line, ':') >= 0 {
			n++
		}
	}
	return n
}

// safeDecode runs dec.Decode and turns a panic inside the YAML library into
// an error.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return dec.Decode(n)
}

// checkNode refuses anchors, aliases and duplicate mapping keys anywhere
// under n.
func (fm *Frontmatter) checkNode(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return &Error{Line: fm.fileLine(n.Line), Msg: "YAML anchors and aliases are not allowed"}
	}
	if n.Kind == yaml.MappingNode {
		var seen map[string]int
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if seen == nil {
				seen = make(map[string]int, len(n.Content)/2)
			}
			id := k.ShortTag() + "\x00" + k.Value
			if first, dup := seen[id]; dup {
				return &Error{Line: fm.fileLine(k.Line), Msg: fmt.Sprintf("duplicate key %q (first defined at line %d)", k.Value, fm.fileLine(first))}
			}
			seen[id] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := fm.checkNode(c); err != nil {
			return err
		}
	}
	return nil
}

// splitLines fills starts and fileLines.
func (fm *Frontmatter) splitLines() {
	raw := fm.raw
	n := bytes.Count(raw, []byte("\n")) + 1
	fm.starts = make([]int, 0, n)
	fm.fileLines = make([]int, 0, n)
	line := fm.firstLine
	start := 0
	for i := 0; i < len(raw); {
		w := breakLen(raw, i)
		if w == 0 {
			i++
			continue
		}
		fm.starts = append(fm.starts, start)
		fm.fileLines = append(fm.fileLines, line)
		i += w
		line += bytes.Count(raw[start:i], []byte("\n"))
		start = i
	}
	if start < len(raw) || len(raw) == 0 {
		fm.starts = append(fm.starts, start)
		fm.fileLines = append(fm.fileLines, line)
	}
}

// breakLen returns the length of the YAML line break at b[i], or 0.
func breakLen(b []byte, i int) int {
	switch b[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(b) && b[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2:
		if i+1 < len(b) && b[i+1] == 0x85 {
			return 2
		}
	case 0xE2:
		if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// lineEnd returns the offset just past the YAML line with index li.
func (fm *Frontmatter) lineEnd(li int) int {
	if li+1 < len(fm.starts) {
		return fm.starts[li+1]
	}
	return len(fm.raw)
}

// computeSpans works out the byte range of every entry and whether the text
// can be edited by line at all.
func (fm *Frontmatter) computeSpans() {
	if fm.root.Style&yaml.FlowStyle != 0 {
		fm.layout = "frontmatter is a flow mapping and cannot be edited by line"
		return
	}
	prevLine := 0
	col := 0
	for i := range fm.entries {
		k := fm.entries[i].key
		if k.Line <= prevLine || k.Line < 1 || k.Line > len(fm.starts) {
			fm.layout = "frontmatter keys do not each start a line and cannot be edited by line"
			return
		}
		prevLine = k.Line
		start := fm.starts[k.Line-1]
		if i == 0 {
			col = k.Column
		}
		if k.Column != col || start+col-1 > len(fm.raw) || strings.Trim(string(fm.raw[start:start+col-1]), " ") != "" {
			fm.layout = "frontmatter keys do not each start a line and cannot be edited by line"
			return
		}
		if start > 0 && fm.raw[start-1] != '\n' {
			fm.layout = "frontmatter separates keys with a line break other than LF or CRLF and cannot be edited by line"
			return
		}
		fm.entries[i].start = start
	}
	if col > 1 {
		fm.indent = strings.Repeat(" ", col-1)
	}
	for i := range fm.entries {
		li := fm.entries[i].key.Line - 1
		next := len(fm.starts) // index of the line after the span
		if i+1 < len(fm.entries) {
			next = fm.entries[i+1].key.Line - 1
		}
		for next-1 > li && fm.isBlankOrComment(next-1) {
			next--
		}
		end := len(fm.raw)
		if next < len(fm.starts) {
			end = fm.starts[next]
		}
		fm.entries[i].end = end
	}
}

// isBlankOrComment reports whether the YAML line with index li is blank, a
// comment starting in column 0 or a "..." document end marker.
func (fm *Frontmatter) isBlankOrComment(li int) bool {
	line := fm.raw[fm.starts[li]:fm.lineEnd(li)]
	if len(line) > 0 && line[0] == '#' || isDocEnd(line) {
		return true
	}
	return len(bytes.Trim(line, " \t\r\n")) == 0
}

// isDocEnd reports whether line is a "..." document end marker.
func isDocEnd(line []byte) bool {
	return bytes.HasPrefix(line, []byte("...")) && (len(line) == 3 || strings.IndexByte(" \t\r\n", line[3]) >= 0)
}

// firstNonYAMLChar returns the offset of the first character the YAML
// reader rejects, or -1.
func firstNonYAMLChar(b []byte) int {
	for i, r := range string(b) {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r >= 0x20 && r <= 0x7E:
		case r == 0x85:
		case r >= 0xA0 && r <= 0xD7FF:
		case r >= 0xE000 && r <= 0xFFFD:
		case r >= 0x10000 && r <= 0x10FFFF:
		default:
			return i
		}
	}
	return -1
}

// isParserProblem reports whether msg is raised by the yaml.v3 parser rather
// than its scanner; yaml.v3 reports the line of those one lower.
func isParserProblem(msg string) bool {
	for _, p := range [...]string{
		"did not find expected <document start>",
		"did not find expected node content",
		"did not find expected '-' indicator",
		"did not find expected key",
		"did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found duplicate %TAG directive",
		"found undefined tag handle",
	} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// yamlError converts a yaml.v3 syntax error to an *Error at the file line.
func (fm *Frontmatter) yamlError(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, tail
				if isParserProblem(msg) {
					line++
				}
			}
		}
	}
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		// yaml.v3 gives no line for an alias to a missing anchor.
		name = strings.TrimSuffix(name, "' referenced")
		if i := bytes.Index(fm.raw, []byte("*"+name)); i >= 0 {
			return &Error{Line: fm.firstLine + bytes.Count(fm.raw[:i], []byte("\n")), Msg: "YAML anchors and aliases are not allowed"}
		}
		return &Error{Line: fm.fileLine(line), Msg: "YAML anchors and aliases are not allowed"}
	}
	return &Error{Line: fm.fileLine(line), Msg: "invalid YAML: " + msg}
}

// decodeError converts an error from yaml.v3 decoding to an *Error.
func (fm *Frontmatter) decodeError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return &Error{Line: fm.firstLine, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	msg := te.Errors[0]
	line := 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, tail
			}
		}
	}
	if more := len(te.Errors) - 1; more > 0 {
		msg += fmt.Sprintf(" (and %d more)", more)
	}
	return &Error{Line: fm.fileLine(line), Msg: msg}
}

// errMsg returns the message of err without a line prefix.
func errMsg(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// Relayout rewrites the frontmatter from the layout from to the layout
// to. A layout is the keys in groups, in order, one empty line between two
// groups; a key no group names goes after them all, in the order it had,
// and nil is every key on consecutive lines, as they are. Each key keeps
// its lines as they are. It changes nothing and reports false unless the
// text is exactly its keys' lines laid out as from says (no comment line,
// no other blank line: a layout td itself wrote), so a layout a person
// chose is never rearranged.
func (fm *Frontmatter) Relayout(from, to [][]string) bool {
	if fm.layout != "" || len(fm.entries) == 0 {
		return false
	}
	if was, _ := fm.arrange(from); !bytes.Equal(was, fm.raw) {
		return false
	}
	raw, want := fm.arrange(to)
	if bytes.Equal(raw, fm.raw) {
		return false
	}
	next, err := parseFront(raw, fm.eol, fm.firstLine)
	if err != nil || next.layout != "" || !slices.Equal(next.Keys(), want) {
		return false
	}
	for _, e := range fm.entries {
		if !sameNode(e.value, next.Node(e.name), false) {
			return false
		}
	}
	*fm = *next
	return true
}

// arrange returns the entries' lines laid out in groups (see Relayout),
// and the keys in the order it put them.
func (fm *Frontmatter) arrange(groups [][]string) ([]byte, []string) {
	placed := map[string]bool{}
	raw := make([]byte, 0, len(fm.raw)+len(groups)*len(fm.eol))
	var keys []string
	for _, g := range groups {
		n := len(raw)
		for _, k := range g {
			if i := fm.find(k); i >= 0 && !placed[k] {
				raw = append(raw, fm.raw[fm.entries[i].start:fm.entries[i].end]...)
				placed[k] = true
				keys = append(keys, k)
			}
		}
		if len(raw) > n && n > 0 {
			raw = slices.Insert(raw, n, []byte(fm.eol)...)
		}
	}
	for _, e := range fm.entries {
		if !placed[e.name] {
			raw = append(raw, fm.raw[e.start:e.end]...)
			keys = append(keys, e.name)
		}
	}
	return raw, keys
}
