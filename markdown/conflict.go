package markdown

import "bytes"

// ConflictMsg is the message for an issue file that still holds the
// markers of a merge git or the merge driver could not finish.
const ConflictMsg = "unresolved merge conflict; run td resolve or edit the marked region"

// Conflict is one region a merge marked in a file: the lines git writes
// as
//
//	<<<<<<< ours
//	(ours)
//	||||||| base        (only with merge.conflictStyle diff3 or zdiff3)
//	(base)
//	=======
//	(theirs)
//	>>>>>>> theirs
//
// All line numbers are 1-based file lines; Base is 0 when the region has
// no base section.
type Conflict struct {
	Start, Base, Mid, End int
}

// markerLen is the length of git's default conflict markers.
const markerLen = 7

// markerLine reports whether line (without its line ending) is a conflict
// marker made of c: exactly seven of c, then the end of the line or a
// space and a label. "=======" takes no label.
func markerLine(line []byte, c byte) bool {
	if len(line) < markerLen {
		return false
	}
	for i := 0; i < markerLen; i++ {
		if line[i] != c {
			return false
		}
	}
	rest := line[markerLen:]
	if c == '=' {
		return len(bytes.TrimRight(rest, " \t")) == 0
	}
	return len(rest) == 0 || rest[0] == ' '
}

// Conflicts finds the complete conflict regions in data, in file order. A
// region counts only when its opening, separator and closing markers come
// in that order; a lone "=======" (a setext heading's underline) or an
// opening marker never closed is ordinary text. Markers inside a region's
// sides (a nested merge) belong to that side. A region wholly inside a
// fenced code block (the fence opens before it and no fence line is in
// it) is an example someone wrote, not a merge's: a real conflict there
// would only be in the description's text, and git's index still knows
// the file is unmerged (td doctor says so).
func Conflicts(data []byte) []Conflict {
	if !bytes.Contains(data, []byte("<<<<<<<")) {
		return nil // every file td reads passes here: keep it cheap
	}
	var out []Conflict
	var cur Conflict
	state := 0 // 0 outside, 1 in ours, 2 in base, 3 in theirs
	line := 0
	fence := ""          // the open code fence's marker ("```", "~~~~"), "" outside one
	inFence := false     // the current region began inside a code fence
	fenceInside := false // a fence line is among the current region's lines
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
			end = pos + end
		} else {
			end = len(data)
		}
		l := bytes.TrimSuffix(data[pos:end], []byte("\r"))
		line++
		pos = next
		if state != 0 && fenceMarker(l) != "" {
			fenceInside = true
		}
		switch state {
		case 0:
			if markerLine(l, '<') {
				cur, state = Conflict{Start: line}, 1
				inFence, fenceInside = fence != "", false
				continue
			}
			if m := fenceMarker(l); m != "" {
				switch {
				case fence == "":
					fence = m
				case m[0] == fence[0] && len(m) >= len(fence) && len(bytes.TrimSpace(l)) == len(m):
					fence = ""
				}
			}
		case 1:
			switch {
			case markerLine(l, '|'):
				cur.Base, state = line, 2
			case markerLine(l, '='):
				cur.Mid, state = line, 3
			case markerLine(l, '<'):
				cur = Conflict{Start: line} // the earlier opening was text
				fenceInside = false
			}
		case 2:
			if markerLine(l, '=') {
				cur.Mid, state = line, 3
			}
		case 3:
			if markerLine(l, '>') {
				cur.End, state = line, 0
				if !inFence || fenceInside {
					out = append(out, cur)
				}
			}
		}
	}
	return out
}

// fenceMarker returns the run of backticks or tildes (three or more) a
// fenced code block's opening or closing line starts with, after at most
// three spaces; "" for any other line.
func fenceMarker(l []byte) string {
	t := l
	for i := 0; i < 3 && len(t) > 0 && t[0] == ' '; i++ {
		t = t[1:]
	}
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return string(t[:n])
}

// Side returns data with every conflict region replaced by one of its
// sides: ours when ours is true, else theirs. Bytes outside the regions
// are kept as they are; data without regions comes back unchanged.
func Side(data []byte, ours bool) []byte {
	regions := Conflicts(data)
	if len(regions) == 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	r, line := 0, 0
	for pos := 0; pos < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		line++
		keep := true
		if r < len(regions) && line >= regions[r].Start {
			c := regions[r]
			oursEnd := c.Mid
			if c.Base > 0 {
				oursEnd = c.Base
			}
			switch {
			case line == c.Start || line == c.Base || line == c.Mid || line == c.End:
				keep = false
			case line < oursEnd:
				keep = ours
			case line < c.Mid:
				keep = false // the base section
			default:
				keep = !ours
			}
			if line == c.End {
				r++
			}
		}
		if keep {
			out = append(out, data[pos:next]...)
		}
		pos = next
	}
	return out
}
