// Package markdown reads and edits td issue files: markdown documents that
// start with a YAML frontmatter block between two "---" lines.
//
// The package never loses a byte. The body is kept verbatim, and the
// frontmatter is edited by line range: changing one key rewrites only the
// lines of that key, so comments, unknown keys, odd quoting and blank lines
// elsewhere keep their exact bytes. Files with CRLF line endings stay CRLF
// and a UTF-8 byte order mark before the opening delimiter is kept.
//
// yaml.v3 is the authority on the frontmatter. Because parsing it is a
// large share of reading an issue file, the small YAML subset td itself
// writes is read by a hand-written parser (front_fast.go) that builds the
// very node tree yaml.v3 would, and declines everything else to yaml.v3,
// which also reports every error.
package markdown

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// bom is the UTF-8 encoding of U+FEFF, accepted before the opening delimiter.
const bom = "\xEF\xBB\xBF"

// Error is a problem at a line of an issue file. Line is 1-based and counts
// from the first line of the whole file, so the opening "---" is line 1.
type Error struct {
	// Line is the 1-based file line of the problem.
	Line int
	// Msg is one sentence describing the problem.
	Msg string
	// Conflict is set when the problem is a region a merge left marked
	// (Msg is then ConflictMsg and Line the region's first line).
	Conflict bool
}

// Error formats the problem as "line N: message".
func (e *Error) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// File is an issue file split into its frontmatter and its body.
type File struct {
	// Front is the YAML mapping between the delimiters.
	Front *Frontmatter
	// Body holds the bytes after the closing delimiter line, untouched.
	Body []byte

	bom   string // "" or the UTF-8 byte order mark
	open  []byte // opening delimiter line including its line ending
	close []byte // closing delimiter line including its line ending, if any
}

// Parse splits data into frontmatter and body, parses the frontmatter and
// checks that the body is within MaxNesting and MaxBlocks. Every error it
// returns is an *Error naming the offending file line.
//
// A file holding a merge's conflict markers is refused before anything
// else, with an *Error whose Conflict is set: its frontmatter is not YAML
// and its body holds both sides, so no reading of it is the issue.
func Parse(data []byte) (*File, error) { return parse(data, true) }

// ParseOwned is Parse for data the caller hands over: the File keeps data
// itself rather than a copy, so nobody may change it afterwards. Reading
// it is fine: the File never writes into it, nor appends past its length.
// A check of 100,000 files copies 200 MB less.
func ParseOwned(data []byte) (*File, error) { return parse(data, false) }

func parse(data []byte, copyData bool) (*File, error) {
	if c := Conflicts(data); len(c) > 0 {
		return nil, &Error{Line: c[0].Start, Msg: ConflictMsg, Conflict: true}
	}
	if off := invalidUTF8(data); off >= 0 {
		return nil, &Error{Line: lineOf(data, off), Msg: fmt.Sprintf("invalid UTF-8 byte 0x%02x", data[off])}
	}
	buf := data[:len(data):len(data)]
	if copyData {
		buf = bytes.Clone(data)
	}
	f := &File{}
	rest := buf
	if bytes.HasPrefix(rest, []byte(bom)) {
		f.bom = bom
		rest = rest[len(bom):]
	}
	open, _ := cutLine(rest)
	if !isDelimiter(open) {
		return nil, &Error{Line: 1, Msg: "file does not start with a '---' frontmatter line"}
	}
	if !bytes.HasSuffix(open, []byte("\n")) {
		return nil, &Error{Line: 1, Msg: "frontmatter opened at line 1 has no closing '---' line"}
	}
	f.open = open
	eol := "\n"
	if bytes.HasSuffix(open, []byte("\r\n")) {
		eol = "\r\n"
	}
	yamlStart := len(f.bom) + len(open)
	pos := yamlStart
	for pos < len(buf) {
		line, _ := cutLine(buf[pos:])
		if isDelimiter(line) {
			front, err := parseFront(buf[yamlStart:pos:pos], eol, 2)
			if err != nil {
				return nil, err
			}
			f.Front = front
			f.close = line
			f.Body = buf[pos+len(line):]
			if err := CheckBody(f.Body, lineOf(buf, pos+len(line))); err != nil {
				return nil, err
			}
			return f, nil
		}
		pos += len(line)
	}
	return nil, &Error{Line: 1, Msg: "frontmatter opened at line 1 has no closing '---' line"}
}

// NewFile builds a file from a frontmatter and a body, for creating a new
// issue. The delimiters use the frontmatter's line ending, which is "\n" for
// a frontmatter made by NewFrontmatter. A nil front means an empty one.
func NewFile(front *Frontmatter, body []byte) *File {
	if front == nil {
		front = NewFrontmatter()
	}
	delim := []byte("---" + front.eol)
	return &File{Front: front, Body: body, open: delim, close: bytes.Clone(delim)}
}

// Bytes reassembles the file. For a File that has not been edited it returns
// exactly the bytes given to Parse.
func (f *File) Bytes() []byte {
	var front []byte
	if f.Front != nil {
		front = f.Front.raw
	}
	out := make([]byte, 0, len(f.bom)+len(f.open)+len(front)+len(f.close)+len(f.Body))
	out = append(out, f.bom...)
	out = append(out, f.open...)
	out = append(out, front...)
	out = append(out, f.close...)
	out = append(out, f.Body...)
	return out
}

// EOL returns the file's line ending, "\n" or "\r\n", as used by the opening
// delimiter line. New lines written into the file use it.
func (f *File) EOL() string {
	if bytes.HasSuffix(f.open, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// cutLine returns the first line of b including its "\n" (if any) and the rest.
func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], b[i+1:]
	}
	return b, nil
}

// isDelimiter reports whether line is "---", allowing trailing spaces, tabs
// and a line ending.
func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r\n")) == "---"
}

// invalidUTF8 returns the offset of the first byte of b that is not part of a
// valid UTF-8 sequence, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// lineOf returns the 1-based line ("\n" counted) holding byte offset off.
func lineOf(b []byte, off int) int {
	return 1 + bytes.Count(b[:off], []byte("\n"))
}
