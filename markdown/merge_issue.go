package markdown

import (
	"bytes"
)

// MergeIssue merges two edits of an issue file that share the base, the way
// td's git merge driver does; see MergeIssueWith, whose result it returns
// as the merged bytes and the conflict phrases (nil when clean).
func MergeIssue(base, ours, theirs []byte, oursLabel, theirsLabel string) ([]byte, []string) {
	m := MergeIssueWith(base, ours, theirs, MergeOptions{OursLabel: oursLabel, TheirsLabel: theirsLabel})
	return m.Data, m.Conflicts
}

// MergeOptions adjust MergeIssueWith.
type MergeOptions struct {
	// OursLabel and TheirsLabel follow the conflict markers of a line by
	// line merge ("<<<<<<< ours"); "ours" and "theirs" when empty.
	OursLabel, TheirsLabel string
	// Prefer decides frontmatter keys both sides changed differently:
	// PreferOurs or PreferTheirs takes that side's value instead of
	// marking a conflict.
	Prefer map[string]Preference
}

// Preference is the side a conflicting key takes.
type Preference int

// The sides MergeOptions.Prefer can give a key.
const (
	PreferOurs   Preference = ours
	PreferTheirs Preference = theirs
)

// IssueMerge is the result of merging an issue file.
type IssueMerge struct {
	// Data is the merged file. With conflicts it holds conflict markers
	// around what both sides changed.
	Data []byte
	// Conflicts name what both sides changed, one phrase each ("the field
	// title"); nil when the merge is clean.
	Conflicts []string
	// Demoted are the todos put back to pending because an earlier todo
	// of the merged file is in progress: each side started one.
	Demoted []string
}

// MergeIssueWith merges two edits of an issue file that share the base,
// the way td's git merge driver does: the frontmatter key by key, the body
// piece by piece (the description, each section, each phase of the Todos
// section), the checklists todo by todo and the other text line by line.
//
// Frontmatter: a key changed on one side takes that side; labels and links
// are merged as sets (what either side removed goes, what either side added
// comes, ours' additions before theirs') and written as block lists;
// updated_at takes the later time; any other key changed differently on
// both sides is a conflict, unless Prefer names it.
//
// Body: a section or phase added on one side is kept where that side put
// it; added on both, ours' goes first, except that acceptance criteria go
// before the Todos section. Text merges line by line, except that where
// both sides only added lines at one place (two appends to the
// description), both are kept, ours first. Todos are matched by their
// section, phase and text: a status changed on one side wins, and a todo
// one side moved to in progress and the other side to any other status
// takes the other status (starting is the weakest claim, and td starts the
// next step by itself after every change); notes are unioned; todos added
// on either side are kept at the end of their phase, ours' first; a todo
// deleted on one side and left alone on the other goes. The todos the
// base had keep the order one side gave them when the other kept the
// base's, or gave them the same order; two different orders conflict.
// Then, as after every change td makes, at most one todo stays in
// progress: the first in the file; a later one goes back to pending (see
// Demoted). An empty base (a file both sides added) is an issue with
// nothing in it (see structuralBase).
//
// When every change merges, the result is written in td's canonical form
// with no conflicts. When the todos clash by the structural reading (a
// phase renamed on one side, a todo in it changed on the other, say) but
// the line by line merge is clean and gives every todo what a three-way
// merge of its own bytes gives, the line merge is the result. Otherwise
// the conflicts are marked where they are: a key of the frontmatter both
// sides changed, the lines of a piece of the body both changed; the rest
// of the file is merged. A side that td cannot read as an issue file, or
// a frontmatter whose layout both sides changed, is merged line by line as
// a whole, so no byte is lost.
func MergeIssueWith(base, ours, theirs []byte, opt MergeOptions) IssueMerge {
	if opt.OursLabel == "" {
		opt.OursLabel = "ours"
	}
	if opt.TheirsLabel == "" {
		opt.TheirsLabel = "theirs"
	}
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return IssueMerge{Data: bytes.Clone(ours)}
	case bytes.Equal(base, ours):
		return IssueMerge{Data: bytes.Clone(theirs)}
	}
	m, parsed := mergeIssueFile(structuralBase(base), ours, theirs, opt.Prefer)
	if parsed && len(m.Conflicts) == 0 {
		return m
	}
	lines, conflict := MergeLines(base, ours, theirs, opt.OursLabel, opt.TheirsLabel)
	if parsed && !conflict && lineMergeHolds(base, ours, theirs, lines) {
		data, demoted := demoteInFile(lines)
		return IssueMerge{Data: data, Demoted: demoted}
	}
	if !parsed {
		if !conflict {
			return IssueMerge{Data: lines}
		}
		return IssueMerge{Data: lines, Conflicts: []string{"the same lines (one side is not a readable issue file, so it was merged line by line)"}}
	}
	if m.Data != nil {
		if opt.OursLabel != "ours" || opt.TheirsLabel != "theirs" {
			m.Data = relabel(m.Data, opt.OursLabel, opt.TheirsLabel)
		}
		return m
	}
	return IssueMerge{Data: lines, Conflicts: m.Conflicts}
}

// emptyIssue is an issue file with no key and no body.
var emptyIssue = []byte("---\n---\n")

// structuralBase is the base the structural merge reads. Git gives an
// empty base for a file both sides added (add/add): a branch that created
// an issue, was squash-landed and then merged main back has its copy, and
// main has the squash's, with no common version. The two copies are then
// merged as two additions to an issue with nothing in it: what both hold
// alike is kept once, labels and links are joined, todos either side has
// are kept, and only what they hold differently is marked, instead of
// the whole file.
func structuralBase(base []byte) []byte {
	if len(base) == 0 {
		return emptyIssue
	}
	return base
}

// mergeIssue merges the three files structurally. It reports false when a
// side does not parse; otherwise the conflicts found, with the merged bytes
// when there are none.
func mergeIssue(base, ours, theirs []byte) ([]byte, []string, bool) {
	m, parsed := mergeIssueFile(structuralBase(base), ours, theirs, nil)
	if len(m.Conflicts) > 0 {
		return nil, m.Conflicts, parsed
	}
	return m.Data, nil, parsed
}

// mergeIssueFile merges the three files structurally. It reports false
// when a side does not parse. With conflicts, Data holds the file with
// the conflicts marked where they are, or is nil when they cannot be
// placed (the file must then be merged line by line as a whole).
func mergeIssueFile(base, ours, theirs []byte, prefer map[string]Preference) (IssueMerge, bool) {
	o, err := Parse(base)
	if err != nil {
		return IssueMerge{}, false
	}
	a, err := Parse(ours)
	if err != nil {
		return IssueMerge{}, false
	}
	b, err := Parse(theirs)
	if err != nil {
		return IssueMerge{}, false
	}
	var conflicts []string
	pick := func(what string, xo, xa, xb string) string {
		v, ok := pickBytes(xo, xa, xb)
		if !ok {
			conflicts = append(conflicts, what)
		}
		return v
	}
	out := &File{
		bom:   pick("the byte order mark", o.bom, a.bom, b.bom),
		open:  []byte(pick("the opening '---' line", string(o.open), string(a.open), string(b.open))),
		close: []byte(pick("the closing '---' line", string(o.close), string(a.close), string(b.close))),
	}
	sides := map[string]int{}
	for k, v := range prefer {
		sides[k] = int(v)
	}
	front := mergeFrontKeys(o.Front, a.Front, b.Front, sides)
	body := mergeBody(o.Body, a.Body, b.Body)
	placed := len(conflicts) == 0 && front.fm != nil
	conflicts = append(conflicts, front.conflicts...)
	conflicts = append(conflicts, body.conflicts...)
	if len(conflicts) > 0 {
		m := IssueMerge{Conflicts: conflicts}
		if placed {
			raw := front.fm.raw
			if len(front.keys) > 0 {
				raw = front.marked(a.Front, b.Front)
			}
			if raw != nil {
				var data []byte
				data = append(data, out.bom...)
				data = append(data, out.open...)
				data = append(data, raw...)
				data = append(data, out.close...)
				data = append(data, body.text...)
				m.Data = data
			}
		}
		return m, true
	}
	out.Front, out.Body = front.fm, body.text
	merged := out.Bytes()
	if _, err := Parse(merged); err != nil {
		return IssueMerge{Conflicts: []string{"the file (the merged text would not read back as an issue file)"}}, true
	}
	return IssueMerge{Data: merged, Demoted: body.demoted}, true
}

// demoteInFile applies demoteLater to a whole file that parses.
func demoteInFile(data []byte) ([]byte, []string) {
	f, err := Parse(data)
	if err != nil {
		return data, nil
	}
	ps := splitPieces(f.Body)
	clean := make([]bool, len(ps))
	for i := range clean {
		clean[i] = true
	}
	demoted := demoteLater(ps, clean, dominantEOL(f.Body))
	if len(demoted) == 0 {
		return data, nil
	}
	var body []byte
	for _, p := range ps {
		body = append(body, p.text...)
	}
	f.Body = body
	out := f.Bytes()
	if _, err := Parse(out); err != nil {
		return data, nil
	}
	return out, demoted
}

// relabel gives the conflict markers td wrote the labels asked for.
func relabel(data []byte, oursLabel, theirsLabel string) []byte {
	var out []byte
	for _, line := range splitLines(data) {
		body := bytes.TrimRight(line, "\r\n")
		switch {
		case string(body) == "<<<<<<< ours":
			line = append([]byte("<<<<<<< "+oursLabel), line[len(body):]...)
		case string(body) == ">>>>>>> theirs":
			line = append([]byte(">>>>>>> "+theirsLabel), line[len(body):]...)
		}
		out = append(out, line...)
	}
	return out
}

// pickBytes is the three-way choice for an indivisible part: the side that
// changed it, or the change both made. It reports false when both changed
// it differently.
func pickBytes(o, a, b string) (string, bool) {
	switch {
	case a == b, b == o:
		return a, true
	case a == o:
		return b, true
	}
	return "", false
}

// lineMergeHolds reports whether merged, a clean line by line merge of
// three readable issue files, is right by todos: its frontmatter holds
// the keys and values of the structural merge of theirs, and every todo (matched by its kind and
// text, whatever its phase) has the bytes the three-way choice of that
// todo's bytes gives, or is absent when the choice deletes it. A todo both
// sides changed differently, or a text twice in one file, fails it.
func lineMergeHolds(base, ours, theirs, merged []byte) bool {
	var files [4]*File
	for i, data := range [][]byte{base, ours, theirs, merged} {
		f, err := Parse(data)
		if err != nil {
			return false
		}
		files[i] = f
	}
	front, fc := mergeFront(files[0].Front, files[1].Front, files[2].Front)
	if len(fc) > 0 || !sameFront(front, files[3].Front) {
		return false
	}
	var todos [4]map[todoKey][]byte
	for i, f := range files {
		if todos[i] = todosByKey(f.Body); todos[i] == nil {
			return false
		}
	}
	keys := map[todoKey]bool{}
	for _, m := range todos {
		for k := range m {
			keys[k] = true
		}
	}
	for k := range keys {
		o, a, b, m := todos[0][k], todos[1][k], todos[2][k], todos[3][k]
		want, ok := pickBytes(string(o), string(a), string(b))
		if !ok || want != string(m) {
			return false
		}
	}
	return true
}

// sameFront reports whether two frontmatters hold the same keys with the
// same values, in any order. The structural merge keeps one side's key
// order and the line merge places a new key where its side had it, so
// comparing bytes would accept a line merge one way round and refuse the
// same merge the other.
func sameFront(x, y *Frontmatter) bool {
	kx, ky := x.Keys(), y.Keys()
	if len(kx) != len(ky) {
		return false
	}
	for _, k := range kx {
		if !y.Has(k) || !sameValue(x.Node(k), y.Node(k)) {
			return false
		}
	}
	return true
}

// todoKey names a todo across the sides of a merge, whatever its phase.
type todoKey struct {
	kind string
	text string
}

// todosByKey maps each todo of body to its bytes, line ending included
// ("" never: a present todo has at least its marker line); nil when two
// todos share a key.
func todosByKey(body []byte) map[todoKey][]byte {
	c := ParseChecklist(body)
	out := map[todoKey][]byte{}
	for _, it := range c.items {
		k := todoKey{string(it.Kind), it.Text}
		if _, dup := out[k]; dup {
			return nil
		}
		raw := bytes.Clone(c.body[it.Start:it.End])
		if lineEnding(raw) == "" {
			raw = append(raw, c.eol...)
		}
		out[k] = raw
	}
	return out
}
