package teamsim

import (
	"regexp"
	"sort"
	"strings"
)

// A person resolving a conflicted issue file by hand keeps what each side
// changed and chooses only where both changed one thing differently.
// resolveIssue does that from the three versions git keeps (base, ours,
// theirs), not from the markers, so that every line lands in its section:
// frontmatter field by field (labels and links as sets), the prose with
// the paragraphs both sides added, the criteria and the steps todo by
// todo. It writes the result in td's layout.

// linkLineRE matches a link in a block list of the frontmatter.
var linkLineRE = regexp.MustCompile(`^\s+- \{?kind:`)

// frontmatter splits an issue file's frontmatter into keys, in order,
// each with its raw lines (a block list's items included).
func frontmatter(s string) (keys []string, raw map[string]string) {
	raw = map[string]string{}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if len(lines) == 0 || lines[0] != "---" {
		return nil, raw
	}
	cur := ""
	for _, l := range lines[1:] {
		if l == "---" {
			break
		}
		if k, _, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "-") {
			cur = k
			keys = append(keys, k)
			raw[k] = l
			continue
		}
		if cur != "" {
			raw[cur] += "\n" + l
		}
	}
	return keys, raw
}

// resolveIssue merges three versions of an issue file as a careful person
// does; pick chooses where both sides changed one thing differently
// (0 ours, 1 theirs).
func resolveIssue(base, ours, theirs string, pick func() int) string {
	db, do, dt := parseIssue(base), parseIssue(ours), parseIssue(theirs)
	var b strings.Builder
	b.WriteString("---\n")
	_, rb := frontmatter(base)
	ko, ro := frontmatter(ours)
	kt, rt := frontmatter(theirs)
	keys := append([]string{}, ko...)
	for _, k := range kt {
		if _, ok := ro[k]; !ok {
			if _, inB := rb[k]; !inB {
				keys = append(keys, k) // a key only theirs added
			}
		}
	}
	for _, k := range keys {
		if _, inO := ro[k]; !inO {
			b.WriteString(rt[k] + "\n")
			continue
		}
		if _, inT := rt[k]; !inT {
			if _, inB := rb[k]; inB && rb[k] == ro[k] {
				continue // theirs removed it
			}
		}
		if want, ok := three(rb[k], ro[k], rt[k]); ok {
			if want != "" {
				b.WriteString(want + "\n")
			}
			continue
		}
		// The empty lines after the key stay, as td's layout has them.
		gap := strings.Repeat("\n", len(ro[k])-len(strings.TrimRight(ro[k], "\n")))
		switch k {
		case "labels", "links":
			elems := mergeSet(db.sets[k], do.sets[k], dt.sets[k])
			if len(elems) == 0 {
				b.WriteString(k + ": []\n" + gap)
				continue
			}
			b.WriteString(k + ":\n")
			for _, e := range elems {
				if k == "labels" {
					b.WriteString("  - " + e + "\n")
					continue
				}
				kind, to, _ := strings.Cut(e, ":")
				b.WriteString("  - {kind: " + kind + ", to: " + to + "}\n")
			}
			b.WriteString(gap)
		default:
			if pick() == 0 {
				b.WriteString(ro[k] + "\n")
			} else {
				b.WriteString(rt[k] + "\n")
			}
		}
	}
	b.WriteString("---\n")
	for _, l := range mergeLines(db.prose, do.prose, dt.prose) {
		b.WriteString("\n" + l + "\n")
	}
	for _, kind := range []string{"criterion", "step"} {
		items := mergeTodos(kind, db, do, dt, pick)
		if len(items) == 0 && do.sections[kind] == 0 && dt.sections[kind] == 0 {
			continue
		}
		// As td writes them: an empty section is its heading alone.
		if kind == "criterion" {
			b.WriteString("\n## Acceptance criteria\n")
		} else {
			b.WriteString("\n## Todos\n")
		}
		if len(items) > 0 {
			b.WriteString("\n")
		}
		phase := ""
		for _, it := range items {
			if it.phase != phase {
				phase = it.phase
				b.WriteString("### " + phase + "\n")
			}
			b.WriteString("- [" + it.marker + "] " + it.text + "\n")
			for _, n := range it.notes {
				b.WriteString("  > " + n + "\n")
			}
		}
	}
	return b.String()
}

// mergeSet merges a set-valued field: what either side added, less what
// either side removed.
func mergeSet(b, o, t map[string]bool) []string {
	out := map[string]bool{}
	for e := range b {
		out[e] = o[e] && t[e]
	}
	for _, side := range []map[string]bool{o, t} {
		for e := range side {
			if !b[e] {
				out[e] = true
			}
		}
	}
	var list []string
	for e, keep := range out {
		if keep {
			list = append(list, e)
		}
	}
	sort.Strings(list)
	return list
}

// mergeLines merges the prose: ours' lines that theirs did not remove,
// then the lines theirs added.
func mergeLines(b, o, t []string) []string {
	inB, inO, inT := countSlice(b), countSlice(o), countSlice(t)
	var out []string
	for _, l := range o {
		if inB[l] > 0 && inT[l] == 0 {
			continue // theirs removed it
		}
		out = append(out, l)
	}
	for _, l := range t {
		if inO[l] == 0 && inB[l] == 0 {
			out = append(out, l)
		}
	}
	return out
}

// mergeTodos merges one kind of todo: ours in ours' order, then what only
// theirs has, each todo three-way on its marker (pick where both changed
// it) with its notes merged as a set; a todo one side deleted and the
// other left alone goes.
func mergeTodos(kind string, db, do, dt issueDoc, pick func() int) []todoItem {
	var out []todoItem
	seen := map[string]bool{}
	notes := func(b, o, t todoItem) []string {
		return mergeLines(b.notes, o.notes, t.notes)
	}
	add := func(key string) {
		if seen[key] {
			return
		}
		seen[key] = true
		ib, nb := db.todo(key)
		io, no := do.todo(key)
		it, nt := dt.todo(key)
		switch {
		case no == 0 && nt == 0:
			return
		case no == 0: // only theirs has it
			if nb > 0 && ib.marker == it.marker && strings.Join(ib.notes, "\n") == strings.Join(it.notes, "\n") {
				return // ours deleted it, theirs left it alone
			}
			out = append(out, it)
			return
		case nt == 0:
			if nb > 0 && ib.marker == io.marker && strings.Join(ib.notes, "\n") == strings.Join(io.notes, "\n") {
				return // theirs deleted it, ours left it alone
			}
			out = append(out, io)
			return
		}
		m, ok := three(ib.marker, io.marker, it.marker)
		if !ok {
			m = []string{io.marker, it.marker}[pick()]
		}
		io.marker, io.notes = m, notes(ib, io, it)
		out = append(out, io)
	}
	for _, it := range do.todos {
		if it.kind == kind {
			add(it.key())
		}
	}
	for _, it := range dt.todos {
		if it.kind == kind {
			add(it.key())
		}
	}
	// Keep each phase's todos together, phases in the order they came.
	order := map[string]int{}
	for _, it := range out {
		if _, ok := order[it.phase]; !ok {
			order[it.phase] = len(order)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return order[out[i].phase] < order[out[j].phase] })
	return out
}

// hunk is one marked region of a conflicted file: ours, the merge base
// when the markers carry it (diff3), and theirs.
type hunk struct {
	ours, base, theirs []string
}

// splitHunks cuts a conflicted file into its marked regions.
func splitHunks(s string) []hunk {
	var hunks []hunk
	var h *hunk
	state := 0 // 0 outside, 1 ours, 2 base, 3 theirs
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		t := strings.TrimRight(l, "\r")
		switch {
		case strings.HasPrefix(t, "<<<<<<<") && state == 0:
			h, state = &hunk{}, 1
			continue
		case strings.HasPrefix(t, "|||||||") && state == 1:
			state = 2
			continue
		case t == "=======" && (state == 1 || state == 2):
			state = 3
			continue
		case strings.HasPrefix(t, ">>>>>>>") && state == 3:
			hunks = append(hunks, *h)
			h, state = nil, 0
			continue
		}
		switch state {
		case 1:
			h.ours = append(h.ours, l)
		case 2:
			h.base = append(h.base, l)
		case 3:
			h.theirs = append(h.theirs, l)
		}
	}
	return hunks
}

// unionSides resolves a marked append-only file by keeping both sides.
func unionSides(s string) string {
	var out []string
	seen := map[string]bool{}
	in := false
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		t := strings.TrimRight(l, "\r")
		switch {
		case strings.HasPrefix(t, "<<<<<<<"), strings.HasPrefix(t, "|||||||"), t == "=======":
			in = true
			continue
		case strings.HasPrefix(t, ">>>>>>>"):
			in = false
			continue
		}
		if in && seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
	}
	return strings.Join(out, "\n") + "\n"
}

// lineKey names what a line of an issue file holds: a frontmatter field,
// a todo by its text, a link, a note, or, for anything else, the line.
func lineKey(l string) string {
	switch {
	case linkLineRE.MatchString(l):
		return "field:links"
	case noteRE.MatchString(l):
		return "note"
	}
	if m := itemRE.FindStringSubmatch(l); m != nil {
		return "todo:" + strings.TrimSpace(m[2])
	}
	if k, _, ok := strings.Cut(l, ":"); ok && k != "" && !strings.ContainsAny(k, " \t-*>#[{") {
		return "field:" + k
	}
	if strings.TrimSpace(l) == "" {
		return ""
	}
	return "prose"
}

// markedBeyondConflict reports whether a file's conflict markers surround
// a field, a todo or prose that the two sides did not both change: with
// td's driver, markers may surround only what really conflicts. both
// holds the units (field:NAME, todo:TEXT, prose) both sides changed
// differently.
func markedBeyondConflict(s string, both map[string]bool) (bool, string) {
	// A note belongs to the todo above it: a todo both sides changed is
	// marked with its notes.
	keys := func(lines []string) map[string][]string {
		m := map[string][]string{}
		todo := ""
		for _, l := range lines {
			k := lineKey(l)
			switch {
			case strings.HasPrefix(k, "todo:"):
				todo = k
			case k == "note" && todo != "":
				k = todo
			case k != "":
				todo = ""
			}
			m[k] = append(m[k], l)
		}
		return m
	}
	for _, h := range splitHunks(s) {
		ours, theirs := keys(h.ours), keys(h.theirs)
		for _, m := range []map[string][]string{ours, theirs} {
			for k := range m {
				if k == "" || strings.Join(ours[k], "\n") == strings.Join(theirs[k], "\n") {
					continue // blank, or the same on both sides: not what conflicts
				}
				switch {
				case both[k]:
				case k == "field:resolution" && both["field:status"]:
					// The resolution is marked with its status.
				case strings.HasPrefix(k, "todo:") && (both["order:criterion"] || both["order:step"]):
					// Both sides ordered the checklist differently: its
					// todos are marked where they moved.
				default:
					return true, k
				}
			}
		}
	}
	return false, ""
}
