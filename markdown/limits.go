package markdown

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Limits on the size and shape of a body. goldmark's work on a line grows
// with the number of containers open on it (each one is asked to continue,
// and each measures its indentation from the start of the line), so a line
// of 20,000 "- " or ">" costs time quadratic in its length; and every block
// and every line costs allocations. No issue needs more than a few levels
// or comes near the counts; a body past a limit is refused when the file is
// read, and while it is parsed the limits keep the work bounded.
const (
	// MaxNesting is how deep block quotes and list items may nest.
	MaxNesting = 32
	// MaxBlocks is how many blocks (paragraphs, list items, quotes,
	// headings, code blocks...) a body may have: twenty thousand todos
	// with notes fit.
	MaxBlocks = 50000
	// MaxLines is how many lines a body may have.
	MaxLines = 100000
)

// Which limit a body reached.
const (
	withinLimits = iota
	pastNesting
	pastBlocks
	pastLines
)

// bodyLimits counts what one parse of a body has opened and remembers the
// first place a limit was reached.
type bodyLimits struct {
	source []byte
	blocks int
	// past is the limit reached first, withinLimits if none; off is the
	// body offset where it was reached.
	past, off int
	// stop is set once the parse should open and continue nothing more.
	stop bool
}

// exceed records the first limit reached, at the reader's position, and
// stops the parse. The line limit is found before the parse, past the
// lines read, so any other limit reached comes first.
func (l *bodyLimits) exceed(reader text.Reader, past int) {
	l.stop = true
	if l.past != withinLimits && l.past != pastLines {
		return
	}
	_, seg := reader.Position()
	l.past, l.off = past, min(max(seg.Start, 0), len(l.source))
}

// err returns the limit reached as an *Error whose line counts from first,
// the file line of the body's first line; nil if no limit was reached.
func (l *bodyLimits) err(first int) *Error {
	var msg string
	switch l.past {
	case withinLimits:
		return nil
	case pastNesting:
		msg = fmt.Sprintf("lists and quotes nest more than %d levels deep", MaxNesting)
	case pastBlocks:
		msg = fmt.Sprintf("the body has more than %d blocks (paragraphs, list items, quotes); split the issue", MaxBlocks)
	case pastLines:
		msg = fmt.Sprintf("the body has more than %d lines; split the issue", MaxLines)
	}
	return &Error{Line: first + bytes.Count(l.source[:l.off], []byte("\n")), Msg: msg}
}

// limitedParser wraps one of goldmark's block parsers: it opens no block
// past MaxBlocks and no container MaxNesting containers deep, and once a
// limit is reached it opens nothing and closes every open block, which ends
// goldmark's reading of the body. A body past a limit is refused, so the
// rest of it need not be read, and the parse costs no more than the limits.
type limitedParser struct {
	parser.BlockParser
	limits    *bodyLimits
	container bool
}

// Open opens the block if the limits allow it.
func (p *limitedParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	l := p.limits
	switch {
	case l.stop:
		return nil, parser.NoChildren
	case l.blocks >= MaxBlocks:
		l.exceed(reader, pastBlocks)
		return nil, parser.NoChildren
	case p.container && nesting(parent) >= MaxNesting:
		l.exceed(reader, pastNesting)
		return nil, parser.NoChildren
	}
	n, state := p.BlockParser.Open(parent, reader, pc)
	if n != nil {
		l.blocks++
	}
	return n, state
}

// Continue closes the block once a limit has been reached.
func (p *limitedParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	if p.limits.stop {
		return parser.Close
	}
	return p.BlockParser.Continue(node, reader, pc)
}

// nesting counts the list items and block quotes n is in, n included. It
// walks at most MaxNesting of them, as no deeper one is ever opened.
func nesting(n ast.Node) int {
	depth := 0
	for ; n != nil; n = n.Parent() {
		if k := n.Kind(); k == ast.KindListItem || k == ast.KindBlockquote {
			depth++
		}
	}
	return depth
}

// newBlockParser returns goldmark's CommonMark parser without inline
// parsers, its block parsers (goldmark's defaults, with their priorities)
// held to the limits: headings and checklists depend only on the block
// structure, and skipping inline parsing keeps the cost linear on bodies
// full of brackets, backticks and emphasis markers.
func newBlockParser(limits *bodyLimits) parser.Parser {
	wrap := func(bp parser.BlockParser, container bool, priority int) util.PrioritizedValue {
		return util.Prioritized(&limitedParser{BlockParser: bp, limits: limits, container: container}, priority)
	}
	return parser.NewParser(
		parser.WithBlockParsers(
			wrap(parser.NewSetextHeadingParser(), false, 100),
			wrap(parser.NewThematicBreakParser(), false, 200),
			wrap(parser.NewListParser(), true, 300),
			wrap(parser.NewListItemParser(), false, 400),
			wrap(parser.NewCodeBlockParser(), false, 500),
			wrap(parser.NewATXHeadingParser(), false, 600),
			wrap(parser.NewFencedCodeBlockParser(), false, 700),
			wrap(parser.NewBlockquoteParser(), true, 800),
			wrap(parser.NewHTMLBlockParser(), false, 900),
			wrap(parser.NewParagraphParser(), false, 1000),
		),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}

// parseBody parses body under the limits and returns its document and the
// limits' record. Of a body past MaxLines only the first MaxLines lines
// are parsed.
func parseBody(body []byte) (ast.Node, *bodyLimits) {
	bp := blockParsers.Get().(*pooledParser)
	l := bp.limits
	*l = bodyLimits{source: body}
	src := body
	if end := lineOffset(body, MaxLines); end < len(body) {
		l.past, l.off, src = pastLines, end, body[:end]
	}
	doc := bp.Parse(text.NewReader(src))
	out := *l
	*l = bodyLimits{}
	blockParsers.Put(bp)
	return doc, &out
}

// pooledParser is a block parser with the limits record its block parsers
// share, reset for each parse. goldmark's parsers keep no state between
// parses; building one cost 25 KB and a tenth of a parse, paid for every
// issue a cold cache or a site reads.
type pooledParser struct {
	parser.Parser
	limits *bodyLimits
}

var blockParsers = sync.Pool{New: func() any {
	l := &bodyLimits{}
	return &pooledParser{Parser: newBlockParser(l), limits: l}
}}

// lineOffset returns the offset of the start of line n+1 of b (counting
// from 1), or len(b) when b has no more than n lines.
func lineOffset(b []byte, n int) int {
	off := 0
	for range n {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return len(b)
		}
		off += i + 1
	}
	return off
}

// CheckBody reports the first limit body exceeds as an *Error whose line
// counts from first, the file line of the body's first line; nil when the
// body is within MaxNesting and MaxBlocks.
func CheckBody(body []byte, first int) error {
	if cannotReachLimits(body) {
		return nil
	}
	_, l := parseBody(body)
	if e := l.err(first); e != nil {
		return e
	}
	return nil
}

// cannotReachLimits reports, without parsing, a body that cannot reach a limit,
// as most issue bodies cannot. Every block takes at least one byte, and a
// list and its first item the same one, so a body of MaxBlocks/2 bytes has
// no more than MaxBlocks blocks and fewer than MaxLines lines. Nesting is
// bounded line by line: a container opens on a line with a marker there
// ('>', a bullet, or an ordered item's number and '.' or ')'), and every
// list item or quote it opens inside takes something of that same line's
// start: a quote its '>', a list item at least two columns of indentation
// (or its own marker, when it opened on the line). So where each line's
// leading run of spaces, tabs (four columns each) and marker characters
// counts fewer than MaxNesting, no container opens MaxNesting deep. A
// typical body's lines start "- [ ]" or "  > ": a count of 2 or 3, where
// the count over the whole body (every dash of every list) passed the
// limit and made every issue read parse its body twice.
func cannotReachLimits(body []byte) bool {
	if len(body) > MaxBlocks/2 {
		return false
	}
	units, leading := 0, true
	for _, c := range body {
		if c == '\n' || c == '\r' {
			units, leading = 0, true
			continue
		}
		if !leading {
			continue
		}
		switch {
		case c == '\t':
			units += 4
		case c == ' ' || c == '>' || c == '-' || c == '+' || c == '*' || c == '.' || c == ')' || ('0' <= c && c <= '9'):
			units++
		default:
			leading = false
			continue
		}
		if units >= MaxNesting {
			return false
		}
	}
	return true
}
