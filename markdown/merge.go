package markdown

import (
	"bytes"
	"slices"
)

// MergeLines merges two edits of a common base line by line, as git's own
// three-way text merge does: a region changed on one side only takes that
// side; a region changed identically on both takes it once; a region changed
// differently on both becomes a conflict between standard markers. Line
// endings are kept as they are (CRLF files stay CRLF). It reports whether
// any conflict was written.
func MergeLines(base, ours, theirs []byte, oursLabel, theirsLabel string) ([]byte, bool) {
	return mergeLines(base, ours, theirs, oursLabel, theirsLabel, false)
}

// mergeText is MergeLines for the text of an issue body, which differs
// in one rule: where both sides only added lines, at the same place, both
// additions are kept, ours then theirs (one that begins or ends the other
// is taken once, within the other). Two people who each append a
// paragraph to a description (td edit --append) both mean their paragraph
// to be there; git's rule would stop the merge for a person to put them
// one after the other.
func mergeText(base, ours, theirs []byte) ([]byte, bool) {
	return mergeLines(base, ours, theirs, "ours", "theirs", true)
}

// mergeLines is MergeLines, with the rule of mergeText when unionAdds is
// set.
func mergeLines(base, ours, theirs []byte, oursLabel, theirsLabel string, unionAdds bool) ([]byte, bool) {
	o, a, b := splitLines(base), splitLines(ours), splitLines(theirs)
	ha, hb := hunks(o, a), hunks(o, b)
	eol := "\n"
	if bytes.Contains(ours, []byte("\r\n")) {
		eol = "\r\n"
	}
	var out bytes.Buffer
	conflict := false
	pos := 0 // next base line not yet written
	ia, ib := 0, 0
	da, db := 0, 0 // side index minus base index, before the current group
	for ia < len(ha) || ib < len(hb) {
		// Start a group with the hunk that begins first in the base.
		lo := 0
		if ib >= len(hb) || (ia < len(ha) && ha[ia].bLo <= hb[ib].bLo) {
			lo = ha[ia].bLo
		} else {
			lo = hb[ib].bLo
		}
		hi := lo
		ja, jb := ia, ib
		// Absorb every hunk of either side that overlaps or touches the group.
		for {
			grew := false
			for ja < len(ha) && ha[ja].bLo <= hi {
				hi = max(hi, ha[ja].bHi)
				ja++
				grew = true
			}
			for jb < len(hb) && hb[jb].bLo <= hi {
				hi = max(hi, hb[jb].bHi)
				jb++
				grew = true
			}
			if !grew {
				break
			}
		}
		writeLines(&out, o[pos:lo])
		aLo, aHi := lo+da, hi+da+delta(ha[ia:ja])
		bLo, bHi := lo+db, hi+db+delta(hb[ib:jb])
		sideA, sideB := a[aLo:aHi], b[bLo:bHi]
		switch {
		case ja == ia: // only theirs changed here
			writeLines(&out, sideB)
		case jb == ib: // only ours changed here
			writeLines(&out, sideA)
		case equalLines(sideA, sideB):
			writeLines(&out, sideA)
		case unionAdds && lo == hi && ja == ia+1 && jb == ib+1 && unionable(sideA, sideB):
			// Both sides only added lines, at base line lo.
			writeLines(&out, unionOfAdditions(sideA, sideB))
		default:
			conflict = true
			out.WriteString("<<<<<<< " + oursLabel + eol)
			writeLines(&out, ensureEOL(sideA, eol))
			out.WriteString("=======" + eol)
			writeLines(&out, ensureEOL(sideB, eol))
			out.WriteString(">>>>>>> " + theirsLabel + eol)
		}
		da += delta(ha[ia:ja])
		db += delta(hb[ib:jb])
		ia, ib, pos = ja, jb, hi
	}
	writeLines(&out, o[pos:])
	return out.Bytes(), conflict
}

// unionOfAdditions joins two blocks of lines added at one place: a, then
// b (b, then a, when a's last line has no line ending: it ends the text);
// a block that begins or ends the other is taken once, as the other.
func unionOfAdditions(a, b [][]byte) [][]byte {
	switch {
	case len(a) >= len(b) && (equalLines(a[:len(b)], b) || equalLines(a[len(a)-len(b):], b)):
		return a
	case len(b) > len(a) && (equalLines(b[:len(a)], a) || equalLines(b[len(b)-len(a):], a)):
		return b
	}
	if len(a) > 0 && !bytes.HasSuffix(a[len(a)-1], []byte("\n")) {
		// a ends the text: b goes before it.
		a, b = b, a
	}
	if u := unionOfParagraphs(a, b); u != nil {
		return u
	}
	return append(append(make([][]byte, 0, len(a)+len(b)), a...), b...)
}

// unionOfParagraphs joins two blocks of added lines paragraph by
// paragraph, taking a paragraph both added once: a squash-landed branch
// that merged main back, or appended again after its landing, added on
// its side paragraphs main holds too, beside new ones on either side. The
// paragraphs both hold, in the order both hold them, anchor the join;
// between two anchors go a's paragraphs, then b's. It returns nil when
// the two have no paragraph in common, or hold them in no common order
// that keeps every paragraph (then the plain join is the answer).
func unionOfParagraphs(a, b [][]byte) [][]byte {
	pa, pb := paragraphs(a), paragraphs(b)
	// The longest common subsequence of the paragraphs' texts.
	n, m := len(pa), len(pb)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case pa[i].key != "" && pa[i].key == pb[j].key:
				lcs[i][j] = lcs[i+1][j+1] + 1
			default:
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	if lcs[0][0] == 0 {
		return nil
	}
	var out [][]byte
	i, j := 0, 0
	var restA, restB []paragraph
	for i < n && j < m {
		switch {
		case pa[i].key != "" && pa[i].key == pb[j].key && lcs[i][j] == lcs[i+1][j+1]+1:
			for _, p := range append(restA, restB...) {
				out = append(out, p.lines...)
			}
			restA, restB = nil, nil
			out = append(out, pa[i].lines...)
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			restA = append(restA, pa[i])
			i++
		default:
			restB = append(restB, pb[j])
			j++
		}
	}
	restA, restB = append(restA, pa[i:]...), append(restB, pb[j:]...)
	for _, p := range append(restA, restB...) {
		out = append(out, p.lines...)
	}
	return out
}

// paragraph is a run of lines: the blank lines before a text and the text
// up to the next blank line. key is its text, without line endings; a run
// of blank lines alone has none and anchors nothing.
type paragraph struct {
	lines [][]byte
	key   string
}

func paragraphs(lines [][]byte) []paragraph {
	var out []paragraph
	var cur paragraph
	var key bytes.Buffer
	text := false
	for _, l := range lines {
		blank := len(bytes.TrimSpace(l)) == 0
		if blank && text {
			cur.key = key.String()
			out = append(out, cur)
			cur, text = paragraph{}, false
			key.Reset()
		}
		cur.lines = append(cur.lines, l)
		if !blank {
			text = true
			key.Write(bytes.TrimRight(l, "\r\n"))
			key.WriteByte('\n')
		}
	}
	if len(cur.lines) > 0 {
		cur.key = key.String()
		out = append(out, cur)
	}
	return out
}

// unionable reports whether unionOfAdditions can join a and b: a line
// without a line ending ends the text, so no line may follow it.
func unionable(a, b [][]byte) bool {
	u := unionOfAdditions(a, b)
	for _, l := range u[:max(len(u)-1, 0)] {
		if !bytes.HasSuffix(l, []byte("\n")) {
			return false
		}
	}
	return true
}

// hunk is a changed region: base lines [bLo,bHi) became side lines [sLo,sHi).
type hunk struct{ bLo, bHi, sLo, sHi int }

func delta(hs []hunk) int {
	d := 0
	for _, h := range hs {
		d += (h.sHi - h.sLo) - (h.bHi - h.bLo)
	}
	return d
}

// splitLines splits after each "\n", keeping it; a last line without one is
// kept as it is.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

func writeLines(w *bytes.Buffer, lines [][]byte) {
	for _, l := range lines {
		w.Write(l)
	}
}

// ensureEOL makes sure the last line ends with a line break, so a conflict
// marker never joins it.
func ensureEOL(lines [][]byte, eol string) [][]byte {
	if n := len(lines); n > 0 && !bytes.HasSuffix(lines[n-1], []byte("\n")) {
		out := append([][]byte{}, lines[:n-1]...)
		return append(out, append(append([]byte{}, lines[n-1]...), eol...))
	}
	return lines
}

func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// maxEditDistance bounds the diff's work; beyond it the changed middle is
// treated as one replaced region (still a correct, if coarser, merge).
const maxEditDistance = 4096

// maxDiffWork bounds the diff's work on long inputs: the edit distance
// searched is at most maxDiffWork divided by the number of lines, so that
// a 1 MiB file of short lines is merged in bounded time.
const maxDiffWork = 1 << 24

// hunks returns the regions where side differs from base, in base order,
// from a shortest edit script (Myers) after trimming the common prefix and
// suffix.
func hunks(base, side [][]byte) []hunk {
	pre := 0
	for pre < len(base) && pre < len(side) && bytes.Equal(base[pre], side[pre]) {
		pre++
	}
	suf := 0
	for suf < len(base)-pre && suf < len(side)-pre && bytes.Equal(base[len(base)-1-suf], side[len(side)-1-suf]) {
		suf++
	}
	x, y := base[pre:len(base)-suf], side[pre:len(side)-suf]
	if len(x) == 0 && len(y) == 0 {
		return nil
	}
	matches, ok := myers(x, y)
	if !ok {
		return []hunk{{pre, pre + len(x), pre, pre + len(y)}}
	}
	var out []hunk
	pi, pj := 0, 0
	for _, m := range append(matches, [2]int{len(x), len(y)}) {
		if m[0] > pi || m[1] > pj {
			out = append(out, hunk{pre + pi, pre + m[0], pre + pj, pre + m[1]})
		}
		pi, pj = m[0]+1, m[1]+1
	}
	slideDown(out, base, side)
	return out
}

// slideDown moves every pure insertion and pure deletion as far down as the
// lines allow, without reaching the next hunk. An inserted block followed by
// a copy of its first line could sit one line lower just as well ("\n" and a
// heading inserted before a "\n"): always choosing the lowest place makes
// the two sides of a merge describe the same insertion the same way, so an
// identical change is taken once instead of twice.
func slideDown(hs []hunk, base, side [][]byte) {
	for i := range hs {
		h := &hs[i]
		nextB, nextS := len(base), len(side)
		if i+1 < len(hs) {
			nextB, nextS = hs[i+1].bLo, hs[i+1].sLo
		}
		switch {
		case h.bLo == h.bHi && h.sLo < h.sHi:
			for h.sHi < nextS && h.bHi < nextB && bytes.Equal(side[h.sLo], side[h.sHi]) {
				h.bLo, h.bHi, h.sLo, h.sHi = h.bLo+1, h.bHi+1, h.sLo+1, h.sHi+1
			}
		case h.sLo == h.sHi && h.bLo < h.bHi:
			for h.bHi < nextB && h.sHi < nextS && bytes.Equal(base[h.bLo], base[h.bHi]) {
				h.bLo, h.bHi, h.sLo, h.sHi = h.bLo+1, h.bHi+1, h.sLo+1, h.sHi+1
			}
		}
	}
}

// myers returns the matched line pairs of a shortest edit script between x
// and y, in order; false when the edit distance exceeds maxEditDistance.
func myers(x, y [][]byte) ([][2]int, bool) {
	n, m := len(x), len(y)
	maxD := min(n+m, maxEditDistance, maxDiffWork/max(n+m, 1))
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		// Step d reads diagonals -d-1 to d+1 only: keep that window.
		trace = append(trace, slices.Clone(v[off-d-1:off+d+2]))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				i = v[off+k+1]
			} else {
				i = v[off+k-1] + 1
			}
			j := i - k
			for i < n && j < m && bytes.Equal(x[i], y[j]) {
				i++
				j++
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, x, y, d), true
			}
		}
	}
	return nil, false
}

// backtrack walks the trace from the end back to the start, collecting the
// diagonal moves: trace[d] is the furthest-reaching state before step d,
// for diagonals -d-1 to d+1.
func backtrack(trace [][]int, x, y [][]byte, d int) [][2]int {
	var rev [][2]int
	i, j := len(x), len(y)
	for ; d > 0; d-- {
		v, off := trace[d], d+1
		k := i - j
		prevK := k - 1 // the edit was a deletion from x
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1 // the edit was an insertion from y
		}
		prevI := v[off+prevK]
		prevJ := prevI - prevK
		midI, midJ := prevI+1, prevJ // where the edit ended
		if prevK == k+1 {
			midI, midJ = prevI, prevJ+1
		}
		for i > midI && j > midJ {
			rev = append(rev, [2]int{i - 1, j - 1})
			i--
			j--
		}
		i, j = prevI, prevJ
	}
	for i > 0 && j > 0 {
		rev = append(rev, [2]int{i - 1, j - 1})
		i--
		j--
	}
	out := make([][2]int, len(rev))
	for k := range rev {
		out[k] = rev[len(rev)-1-k]
	}
	return out
}
