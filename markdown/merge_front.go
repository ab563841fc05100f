package markdown

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Frontmatter keys the merge treats specially.
const (
	labelsKey     = "labels"
	linksKey      = "links"
	updatedAtKey  = "updated_at"
	statusKey     = "status"
	resolutionKey = "resolution"
)

// statusPair are the keys that merge as one: a close sets the resolution
// and a reopen clears it, each moving the status, so a status from one
// side with the other side's resolution (in_review, resolution wontfix)
// is a state no command makes. A side changed the pair when it changed
// either key; the side whose status the merge takes brings its resolution.
var statusPair = []string{statusKey, resolutionKey}

// mergeFront merges the frontmatter key by key (see MergeIssue). The result
// starts from the side whose layout (comments, blank lines, key order) the
// merge keeps and takes the other side's changes one key at a time through
// the line editor, so every byte neither side touched stays as it was.
func mergeFront(o, a, b *Frontmatter) (*Frontmatter, []string) {
	m := mergeFrontKeys(o, a, b, nil)
	if len(m.conflicts) > 0 {
		return nil, m.conflicts
	}
	return m.fm, nil
}

// Sides of a merge, for Prefer.
const (
	ours   = 1
	theirs = 2
)

// frontMerge is the merge of three frontmatters.
type frontMerge struct {
	// fm is the merged frontmatter; a key both sides changed differently
	// keeps the value of the side whose layout the merge kept. nil when
	// the keys cannot be merged one by one (the layout conflicts).
	fm *Frontmatter
	// conflicts name what both sides changed, one phrase each; keys are
	// the keys among them.
	conflicts []string
	keys      []string
	// unfit marks a merge that conflicts on a key because a side's value
	// could not be written into the carrier's text.
	unfit bool
}

// marked returns the merged frontmatter's text with each conflicting key
// between conflict markers: ours' lines of it, then theirs' (none where a
// side deleted it).
func (m frontMerge) marked(a, b *Frontmatter) []byte {
	fm := m.fm
	type region struct {
		start, end   int
		ours, theirs []byte
	}
	var rs []region
	for _, k := range m.keys {
		r := region{start: fm.appendAt()}
		r.end = r.start
		if i := fm.find(k); i >= 0 {
			r.start, r.end = fm.entries[i].start, fm.entries[i].end
		}
		r.ours, r.theirs = entryText(a, k), entryText(b, k)
		rs = append(rs, r)
	}
	slices.SortStableFunc(rs, func(x, y region) int { return x.start - y.start })
	// Keys next to each other (the status and its resolution) are one
	// marked region: ours' lines of both, then theirs'.
	var joined []region
	for _, r := range rs {
		if n := len(joined); n > 0 && joined[n-1].end == r.start && r.start != r.end {
			last := &joined[n-1]
			last.end = r.end
			last.ours = append(slices.Clip(last.ours), r.ours...)
			last.theirs = append(slices.Clip(last.theirs), r.theirs...)
			continue
		}
		joined = append(joined, r)
	}
	var out []byte
	pos := 0
	for _, r := range joined {
		if r.start < pos {
			return nil
		}
		out = append(out, fm.raw[pos:r.start]...)
		out = append(out, markRegion(r.ours, r.theirs, fm.eol)...)
		pos = r.end
	}
	return append(out, fm.raw[pos:]...)
}

// mergeFrontKeys merges the frontmatter key by key. prefer, when it names
// a key, decides that key for the side it gives (ours or theirs) where
// both sides changed it differently.
func mergeFrontKeys(o, a, b *Frontmatter, prefer map[string]int) frontMerge {
	switch {
	case bytes.Equal(a.raw, b.raw), bytes.Equal(b.raw, o.raw):
		return frontMerge{fm: a}
	case bytes.Equal(a.raw, o.raw):
		return frontMerge{fm: b}
	}
	for _, fm := range []*Frontmatter{o, a, b} {
		if fm.layout != "" {
			return frontMerge{conflicts: []string{"the frontmatter (" + fm.layout + ")"}}
		}
	}
	common := map[string]bool{}
	for _, k := range o.Keys() {
		if a.Has(k) && b.Has(k) {
			common[k] = true
		}
	}
	lo, la, lb := frontLayout(o, common), frontLayout(a, common), frontLayout(b, common)
	switch {
	case la == lb:
		// Either side can carry the merge. One side's lines may not fit
		// in the other's text (their line endings differ, say), which the
		// other way round they would: try both, so that the merge does
		// not depend on which side is ours.
		m := mergeFrontInto(o, a, b, a, b, prefer)
		if m.unfit {
			if n := mergeFrontInto(o, a, b, b, a, prefer); !n.unfit {
				return n
			}
		}
		return m
	case lb == lo:
		return mergeFrontInto(o, a, b, a, b, prefer)
	case la == lo:
		return mergeFrontInto(o, a, b, b, a, prefer)
	}
	return frontMerge{conflicts: []string{"the comments or the key order of the frontmatter"}}
}

// mergeFrontInto is mergeFrontKeys with the side whose text carries the
// merge chosen: carrier takes the other side's changes key by key.
func mergeFrontInto(o, a, b, carrier, other *Frontmatter, prefer map[string]int) frontMerge {
	unfit := false
	keys := o.Keys()
	for _, fm := range []*Frontmatter{a, b} {
		for _, k := range fm.Keys() {
			if !o.Has(k) && !containsString(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	out := *carrier
	fm := &out
	var conflicts, conflictKeys []string
	conflict := func(k string) {
		conflicts = append(conflicts, fmt.Sprintf("the field %s", k))
		conflictKeys = append(conflictKeys, k)
	}
	// The status pair's source, decided once for both keys.
	pairSrc := pairSource(o, a, b, carrier, prefer)
	for _, k := range keys {
		eo, ea, eb := entryText(o, k), entryText(a, k), entryText(b, k)
		var src *Frontmatter
		switch {
		case containsString(statusPair, k):
			if pairSrc == nil {
				switch {
				case k == statusKey:
					conflict(k)
				case !equalEntry(ea, eb):
					// Marked beside the status: one conflict, both keys.
					conflictKeys = append(conflictKeys, k)
				}
				continue
			}
			src = pairSrc
		case equalEntry(ea, eb), equalEntry(eb, eo):
			src = a
		case equalEntry(ea, eo):
			src = b
		case ea != nil && eb != nil && sameValue(a.Node(k), b.Node(k)):
			src = carrier // the same value, written differently
		case k == labelsKey || k == linksKey:
			node, ok := mergeSet(o.Node(k), a.Node(k), b.Node(k))
			if !ok {
				conflict(k)
				continue
			}
			if sameValue(node, carrier.Node(k)) {
				continue
			}
			if sameValue(node, other.Node(k)) {
				src = other
				break
			}
			if err := fm.Set(k, node); err != nil {
				conflict(k)
				unfit = true
			}
			continue
		case k == updatedAtKey:
			var ok bool
			if src, ok = later(a, b, k); !ok {
				conflict(k)
				continue
			}
		case prefer[k] == ours:
			src = a
		case prefer[k] == theirs:
			src = b
		default:
			conflict(k)
			continue
		}
		if equalEntry(entryText(carrier, k), entryText(src, k)) {
			continue
		}
		if err := spliceEntry(fm, k, src); err != nil {
			conflict(k)
			unfit = true
		}
	}
	return frontMerge{fm: fm, conflicts: conflicts, keys: conflictKeys, unfit: unfit}
}

// pairSource returns the side the status pair comes from: the one side
// that changed it, either when both changed it alike, the preferred side
// (prefer, by the status key) when both changed it differently; nil for a
// conflict.
func pairSource(o, a, b, carrier *Frontmatter, prefer map[string]int) *Frontmatter {
	same := func(x, y *Frontmatter) bool {
		for _, k := range statusPair {
			ex, ey := entryText(x, k), entryText(y, k)
			if !equalEntry(ex, ey) && (ex == nil || ey == nil || !sameValue(x.Node(k), y.Node(k))) {
				return false
			}
		}
		return true
	}
	switch {
	case same(a, b):
		return carrier
	case same(b, o):
		return a
	case same(a, o):
		return b
	case prefer[statusKey] == ours:
		return a
	case prefer[statusKey] == theirs:
		return b
	}
	return nil
}

// frontLayout describes what a frontmatter holds besides its keys' values:
// the comment and blank lines between the entries, and the order of the
// keys every side has.
func frontLayout(fm *Frontmatter, common map[string]bool) string {
	var b strings.Builder
	pos := 0
	for _, e := range fm.entries {
		b.Write(fm.raw[pos:e.start])
		pos = e.end
	}
	b.Write(fm.raw[pos:])
	b.WriteByte(0)
	for _, e := range fm.entries {
		if common[e.name] {
			b.WriteString(e.name)
			b.WriteByte(0)
		}
	}
	return b.String()
}

// entryText returns the lines of key, or nil when it is absent.
func entryText(fm *Frontmatter, key string) []byte {
	i := fm.find(key)
	if i < 0 {
		return nil
	}
	e := fm.entries[i]
	return fm.raw[e.start:e.end:e.end]
}

// equalEntry compares two entries' lines, nil (absent) equal only to nil.
func equalEntry(x, y []byte) bool {
	return (x == nil) == (y == nil) && bytes.Equal(x, y)
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// spliceEntry makes key in fm what it is in src: its exact lines when they
// fit (same indentation and line endings), else its value in canonical
// form; absent in src means removed.
func spliceEntry(fm *Frontmatter, key string, src *Frontmatter) error {
	j := src.find(key)
	if j < 0 {
		return fm.Remove(key)
	}
	text := entryText(src, key)
	if src.indent == fm.indent && hasLineEndings(text, fm.eol) {
		if next, ok := fm.withLines(key, text, src.entries[j].value); ok {
			*fm = *next
			return nil
		}
	}
	return fm.Set(key, src.entries[j].value)
}

// withLines returns fm with the lines of key replaced by text (appended
// when key is absent), if the result parses, keeps every other key as it
// was and reads key back as value.
func (fm *Frontmatter) withLines(key string, text []byte, value *yaml.Node) (*Frontmatter, bool) {
	start := fm.appendAt()
	end := start
	want := fm.Keys()
	if i := fm.find(key); i >= 0 {
		start, end = fm.entries[i].start, fm.entries[i].end
	} else {
		want = append(want, key)
	}
	raw := make([]byte, 0, len(fm.raw)+len(text))
	raw = append(raw, fm.raw[:start]...)
	raw = append(raw, text...)
	raw = append(raw, fm.raw[end:]...)
	if delimitable(raw) != "" {
		return nil, false
	}
	next, err := parseFront(raw, fm.eol, fm.firstLine)
	if err != nil || next.layout != "" || fm.verify(next, want, key) != nil {
		return nil, false
	}
	if !sameNode(value, next.Node(key), false) {
		return nil, false
	}
	return next, true
}

// hasLineEndings reports whether every line break in text is eol.
func hasLineEndings(text []byte, eol string) bool {
	lf, cr := bytes.Count(text, []byte("\n")), bytes.Count(text, []byte("\r"))
	if eol == "\r\n" {
		return cr == lf && bytes.Count(text, []byte("\r\n")) == lf
	}
	return cr == 0
}

// later returns the side whose key holds the later RFC 3339 time; a tie
// goes to the greater text so that the choice does not depend on which
// side is ours. It reports false when either side has no such time.
func later(a, b *Frontmatter, key string) (*Frontmatter, bool) {
	na, nb := a.Node(key), b.Node(key)
	if na == nil || nb == nil || na.Kind != yaml.ScalarNode || nb.Kind != yaml.ScalarNode {
		return nil, false
	}
	ta, err := time.Parse(time.RFC3339, na.Value)
	if err != nil {
		return nil, false
	}
	tb, err := time.Parse(time.RFC3339, nb.Value)
	if err != nil {
		return nil, false
	}
	switch {
	case ta.After(tb):
		return a, true
	case tb.After(ta):
		return b, true
	case bytes.Compare(entryText(a, key), entryText(b, key)) >= 0:
		return a, true
	}
	return b, true
}

// mergeSet merges three versions of a sequence as sets: the base's
// elements that neither side removed, in base order, then ours' additions,
// then theirs'. A missing or null base is the empty set; the sides must
// both be sequences. The result is written as td writes labels and links:
// a block sequence, one element a line, or [] when empty. A flow list on
// one line changes as a whole with every element, which a line merge (a
// forge's merge button, a rebase) can only take or leave as a whole.
func mergeSet(o, a, b *yaml.Node) (*yaml.Node, bool) {
	elems := func(n *yaml.Node, missingOK bool) ([]*yaml.Node, []string, bool) {
		if n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
			return nil, nil, missingOK || n != nil
		}
		if n.Kind != yaml.SequenceNode {
			return nil, nil, false
		}
		var nodes []*yaml.Node
		var keys []string
		for _, c := range n.Content {
			k := nodeKey(c)
			if !containsString(keys, k) {
				nodes, keys = append(nodes, c), append(keys, k)
			}
		}
		return nodes, keys, true
	}
	_, ko, okO := elems(o, true)
	na, ka, okA := elems(a, false)
	nb, kb, okB := elems(b, false)
	if !okO || !okA || !okB {
		return nil, false
	}
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	var seen []string
	add := func(n *yaml.Node, k string) {
		if !containsString(seen, k) {
			seen = append(seen, k)
			out.Content = append(out.Content, n)
		}
	}
	for _, k := range ko {
		ia, ib := indexString(ka, k), indexString(kb, k)
		if ia >= 0 && ib >= 0 {
			add(na[ia], k)
		}
	}
	for i, k := range ka {
		if !containsString(ko, k) {
			add(na[i], k)
		}
	}
	for i, k := range kb {
		if !containsString(ko, k) {
			add(nb[i], k)
		}
	}
	if len(out.Content) == 0 {
		out.Style = yaml.FlowStyle
	}
	return out, true
}

// sameValue reports whether two values, either possibly absent, hold the
// same data.
func sameValue(x, y *yaml.Node) bool {
	if x == nil || y == nil {
		return x == y
	}
	return sameNode(x, y, false)
}

func indexString(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// nodeKey identifies a YAML value by its data (kinds, resolved tags and
// values), whatever its style, so set elements compare by what they say.
func nodeKey(n *yaml.Node) string {
	var b strings.Builder
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		fmt.Fprintf(&b, "%d %s %d:%s %d(", n.Kind, n.ShortTag(), len(n.Value), n.Value, len(n.Content))
		for _, c := range n.Content {
			walk(c)
		}
		b.WriteByte(')')
	}
	walk(n)
	return b.String()
}
