package teamsim

import (
	"regexp"
	"strings"
)

// linkLineRE matches a link in a block list of the frontmatter.
var linkLineRE = regexp.MustCompile(`^\s+- \{?kind:`)

// hunk is one marked region of a conflicted file: ours, the merge base
// when the markers carry it (diff3), and theirs.
type hunk struct {
	ours, base, theirs []string
	hasBase            bool
}

// splitHunks cuts a conflicted file into plain lines and hunks, in order:
// parts[i] is either a line (hunk nil) or a hunk.
type part struct {
	line string
	h    *hunk
}

func splitHunks(s string) []part {
	var parts []part
	var h *hunk
	state := 0 // 0 outside, 1 ours, 2 base, 3 theirs
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		t := strings.TrimRight(l, "\r")
		switch {
		case strings.HasPrefix(t, "<<<<<<<") && state == 0:
			h, state = &hunk{}, 1
			continue
		case strings.HasPrefix(t, "|||||||") && state == 1:
			h.hasBase, state = true, 2
			continue
		case t == "=======" && (state == 1 || state == 2):
			state = 3
			continue
		case strings.HasPrefix(t, ">>>>>>>") && state == 3:
			parts = append(parts, part{h: h})
			h, state = nil, 0
			continue
		}
		switch state {
		case 0:
			parts = append(parts, part{line: l})
		case 1:
			h.ours = append(h.ours, l)
		case 2:
			h.base = append(h.base, l)
		case 3:
			h.theirs = append(h.theirs, l)
		}
	}
	return parts
}

// lineKey names what a line of an issue file holds, so that a resolution
// can merge a hunk key by key: a frontmatter field, a todo by its text,
// or, for anything else, the line itself.
func lineKey(l string) (key string, keyed bool) {
	if linkLineRE.MatchString(l) {
		return "links:" + strings.TrimSpace(l), false
	}
	if noteRE.MatchString(l) {
		return "note:" + strings.TrimSpace(l), false
	}
	if m := itemRE.FindStringSubmatch(l); m != nil {
		return "todo:" + strings.TrimSpace(m[2]), true
	}
	if k, _, ok := strings.Cut(l, ":"); ok && k != "" && !strings.ContainsAny(k, " \t-*>#[{") {
		return "field:" + k, true
	}
	return "line:" + l, false
}

// resolveByHand resolves every hunk of a conflicted issue file the way a
// careful person does: what one side changed is kept, what both sides
// added is kept once, and where both changed one field or todo
// differently, pick chooses (0 ours, 1 theirs). base is the file at the
// merge base, for markers that do not carry it (td's driver writes none).
func resolveByHand(s, base string, pick func() int) string {
	baseLines := map[string]string{}
	for _, l := range strings.Split(base, "\n") {
		k, _ := lineKey(l)
		baseLines[k] = l
	}
	var out []string
	for _, p := range splitHunks(s) {
		if p.h == nil {
			out = append(out, p.line)
			continue
		}
		out = append(out, resolveHunk(*p.h, baseLines, pick)...)
	}
	res := strings.Join(out, "\n") + "\n"
	if !parseIssue(res).ok {
		// An empty flow list kept beside the block list's items.
		res = strings.Replace(res, "\nlinks: []\n  - ", "\nlinks:\n  - ", 1)
		res = strings.Replace(res, "\nlabels: []\n  - ", "\nlabels:\n  - ", 1)
	}
	return res
}

func resolveHunk(h hunk, baseFile map[string]string, pick func() int) []string {
	index := func(lines []string) map[string]string {
		m := map[string]string{}
		for _, l := range lines {
			k, _ := lineKey(l)
			m[k] = l
		}
		return m
	}
	base, ours, theirs := index(h.base), index(h.ours), index(h.theirs)
	if !h.hasBase {
		base = baseFile
	}
	var out []string
	for _, l := range h.ours {
		k, keyed := lineKey(l)
		tl, inT := theirs[k]
		bl, inB := base[k]
		switch {
		case strings.TrimSpace(l) == "":
			out = append(out, l)
		case !keyed:
			if !inT && inB {
				continue // theirs removed it
			}
			out = append(out, l)
		case !inT:
			if inB && bl == l {
				continue // theirs removed it, ours left it alone
			}
			out = append(out, l)
		default:
			if want, ok := three(bl, l, tl); ok {
				out = append(out, want)
			} else if pick() == 0 {
				out = append(out, l)
			} else {
				out = append(out, tl)
			}
		}
	}
	// What only theirs has goes after the line it follows in theirs (past
	// that line's notes), so that it stays in its section and phase; what
	// comes before any line both sides share goes before the first one,
	// and without one, after ours.
	insertAt := func(i int, l string) { out = append(out[:i], append([]string{l}, out[i:]...)...) }
	next := -1
	var pending []string
	for _, l := range h.theirs {
		k, _ := lineKey(l)
		blank := strings.TrimSpace(l) == ""
		if _, inO := ours[k]; inO && !blank {
			i := indexOfKey(out, k)
			if i < 0 {
				continue // the resolution dropped it
			}
			if next < 0 {
				for j, pl := range pending {
					insertAt(i+j, pl)
				}
				i += len(pending)
				pending = nil
			}
			next = i + 1
			if !noteRE.MatchString(l) {
				for next < len(out) && noteRE.MatchString(out[next]) {
					next++
				}
			}
			continue
		}
		if bl, inB := base[k]; inB && bl == l && !blank {
			continue // ours removed it, theirs left it alone
		}
		if next < 0 {
			pending = append(pending, l)
			continue
		}
		if blank && next < len(out) && strings.TrimSpace(out[next]) == "" {
			next++ // the blank line is there already
			continue
		}
		if blank && next > 0 && strings.TrimSpace(out[next-1]) == "" {
			continue
		}
		insertAt(next, l)
		next++
	}
	return append(out, pending...)
}

// indexOfKey finds the line holding key among resolved lines.
func indexOfKey(lines []string, key string) int {
	for i, l := range lines {
		if k, _ := lineKey(l); k == key {
			return i
		}
	}
	return -1
}

// unionSides resolves a marked append-only file by keeping both sides.
func unionSides(s string) string {
	var out []string
	seen := map[string]bool{}
	for _, p := range splitHunks(s) {
		if p.h == nil {
			out = append(out, p.line)
			continue
		}
		for _, l := range append(append([]string{}, p.h.ours...), p.h.theirs...) {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// markedBeyondConflict reports whether a file's conflict markers surround
// a field, a todo or prose that the two sides did not both change: with
// td's driver, markers may surround only what really conflicts. both
// holds the units (field:NAME, todo:TEXT, prose) both sides changed
// differently.
func markedBeyondConflict(s string, both map[string]bool) (bool, string) {
	for _, p := range splitHunks(s) {
		if p.h == nil {
			continue
		}
		ours, theirs := map[string]string{}, map[string]string{}
		for _, l := range p.h.ours {
			k, _ := lineKey(l)
			ours[k] = l
		}
		for _, l := range p.h.theirs {
			k, _ := lineKey(l)
			theirs[k] = l
		}
		for _, m := range []map[string]string{ours, theirs} {
			for k := range m {
				if ours[k] == theirs[k] {
					continue // the same on both sides: not what conflicts
				}
				unit := k
				switch {
				case strings.HasPrefix(k, "links:"):
					unit = "field:links"
				case strings.HasPrefix(k, "note:"):
					unit = "note"
				case strings.HasPrefix(k, "line:"):
					if strings.TrimSpace(k[len("line:"):]) == "" {
						continue
					}
					unit = "prose"
				}
				if !both[unit] {
					return true, unit
				}
			}
		}
	}
	return false, ""
}
