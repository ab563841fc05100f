package markdown

import (
	"bytes"
)

// MergeIssue merges two edits of an issue file that share the base, the way
// td's git merge driver does: the frontmatter key by key, the checklists todo
// by todo and the rest of the body line by line.
//
// Frontmatter: a key changed on one side takes that side; labels and links
// are merged as sets (what either side removed goes, what either side added
// comes, ours' additions before theirs'); updated_at takes the later time;
// any other key changed differently on both sides is a conflict. Todos are
// matched by their section, phase and text: a status changed on one side
// wins, and a todo one side moved to in progress and the other side to any
// other status takes the other status (starting is the weakest claim, and td
// starts the next step by itself after every change); notes are unioned;
// todos added on either side are kept at the end of their phase, ours'
// first; a todo deleted on one side and left alone on the other goes.
//
// When every change merges, the result is written in td's canonical form and
// the second result is nil. When the todos clash by the structural reading
// (a phase renamed on one side, a todo in it changed on the other, say) but
// the line by line merge is clean and gives every todo what a three-way
// merge of its own bytes gives, the line merge is the result. Otherwise the whole file is merged line by line
// with standard conflict markers (see MergeLines) and the second result
// names what both sides changed, one phrase each, for a message such as
// "both sides changed the field title". A side that td cannot read as an
// issue file is merged line by line too, so no byte is lost.
func MergeIssue(base, ours, theirs []byte, oursLabel, theirsLabel string) ([]byte, []string) {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return bytes.Clone(ours), nil
	case bytes.Equal(base, ours):
		return bytes.Clone(theirs), nil
	}
	out, conflicts, parsed := mergeIssue(base, ours, theirs)
	if parsed && len(conflicts) == 0 {
		return out, nil
	}
	lines, conflict := MergeLines(base, ours, theirs, oursLabel, theirsLabel)
	if parsed && !conflict && lineMergeHolds(base, ours, theirs, lines) {
		return lines, nil
	}
	if !parsed {
		if !conflict {
			return lines, nil
		}
		return lines, []string{"the same lines (one side is not a readable issue file, so it was merged line by line)"}
	}
	return lines, conflicts
}

// mergeIssue merges the three files structurally. It reports false when a
// side does not parse; otherwise the conflicts found, with the merged bytes
// when there are none.
func mergeIssue(base, ours, theirs []byte) ([]byte, []string, bool) {
	o, err := Parse(base)
	if err != nil {
		return nil, nil, false
	}
	a, err := Parse(ours)
	if err != nil {
		return nil, nil, false
	}
	b, err := Parse(theirs)
	if err != nil {
		return nil, nil, false
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
	front, fc := mergeFront(o.Front, a.Front, b.Front)
	conflicts = append(conflicts, fc...)
	body, bc := mergeBody(o.Body, a.Body, b.Body)
	conflicts = append(conflicts, bc...)
	if len(conflicts) > 0 {
		return nil, conflicts, true
	}
	out.Front, out.Body = front, body
	merged := out.Bytes()
	if _, err := Parse(merged); err != nil {
		return nil, []string{"the file (the merged text would not read back as an issue file)"}, true
	}
	return merged, nil, true
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
