package teamsim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The model reads issue files on its own, with a parser much simpler than
// td's, so that what td wrote is judged by something that is not td.

// todoItem is one checklist line of an issue file.
type todoItem struct {
	kind, phase, text, marker string
	notes                     []string
	line                      int // line number in the file
}

func (t todoItem) key() string { return t.kind + "|" + t.phase + "|" + t.text }

// issueDoc is what the model reads from an issue file.
type issueDoc struct {
	ok         bool
	conflicted bool
	fields     map[string]string
	fieldLine  map[string]int
	sets       map[string]map[string]bool
	todos      []todoItem
	prose      []string // non-blank lines outside the checklists
	proseLines []int
	sections   map[string]int // "criterion", "step": the line of the heading
	lines      int
}

var (
	itemRE  = regexp.MustCompile(`^\s*[-*] \[(.)\] (.*)$`)
	noteRE  = regexp.MustCompile(`^\s+> ?(.*)$`)
	setKeys = map[string]bool{"labels": true, "links": true}
)

func parseIssue(s string) issueDoc {
	d := issueDoc{fields: map[string]string{}, fieldLine: map[string]int{}, sets: map[string]map[string]bool{}, sections: map[string]int{}}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	d.lines = len(lines)
	for _, l := range lines {
		if strings.HasPrefix(l, "<<<<<<<") || strings.HasPrefix(l, ">>>>>>>") || l == "=======" {
			d.conflicted = true
			return d
		}
	}
	if len(lines) < 2 || lines[0] != "---" {
		return d
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if lines[i] == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return d
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(strings.Join(lines[1:end], "\n")), &fm); err != nil {
		return d
	}
	for i := 1; i < end; i++ {
		if k, _, ok := strings.Cut(lines[i], ":"); ok && !strings.HasPrefix(k, " ") && !strings.HasPrefix(k, "-") {
			d.fieldLine[k] = i + 1
		}
	}
	for k, v := range fm {
		if setKeys[k] {
			set := map[string]bool{}
			if list, ok := v.([]any); ok {
				for _, e := range list {
					set[setElem(e)] = true
				}
			}
			d.sets[k] = set
			continue
		}
		d.fields[k] = scalar(v)
	}
	section, phase := "", ""
	var last *todoItem
	for i := end + 1; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "## "):
			h := strings.TrimSpace(l[3:])
			section, phase, last = "", "", nil
			switch strings.ToLower(h) {
			case "acceptance criteria":
				section = "criterion"
			case "todos":
				section = "step"
			}
			if section != "" {
				d.sections[section] = i + 1
				continue
			}
		case section == "step" && strings.HasPrefix(l, "### "):
			phase, last = strings.TrimSpace(l[4:]), nil
			continue
		}
		if section != "" {
			if m := itemRE.FindStringSubmatch(l); m != nil {
				marker := strings.ToLower(m[1])
				d.todos = append(d.todos, todoItem{kind: section, phase: phase, text: strings.TrimSpace(m[2]), marker: marker, line: i + 1})
				last = &d.todos[len(d.todos)-1]
				continue
			}
			if m := noteRE.FindStringSubmatch(l); m != nil && last != nil {
				last.notes = append(last.notes, m[1])
				continue
			}
		}
		if strings.TrimSpace(l) != "" {
			d.prose = append(d.prose, l)
			d.proseLines = append(d.proseLines, i+1)
		}
	}
	d.ok = true
	return d
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	default:
		return fmt.Sprint(x)
	}
}

func setElem(e any) string {
	if m, ok := e.(map[string]any); ok {
		return scalar(m["kind"]) + ":" + scalar(m["to"])
	}
	return scalar(e)
}

func (d issueDoc) todo(key string) (todoItem, int) {
	var it todoItem
	n := 0
	for _, t := range d.todos {
		if t.key() == key {
			if n == 0 {
				it = t
			}
			n++
		}
	}
	return it, n
}

// three picks what a clean three-way merge must give: the side that
// changed, or the common value. decided is false when both sides changed
// differently.
func three(b, o, t string) (want string, decided bool) {
	switch {
	case o == t:
		return o, true
	case o == b:
		return t, true
	case t == b:
		return o, true
	}
	return "", false
}

// mergeCase is one merge to judge: the files of the merge base, the two
// sides and the result, by path.
type mergeCase struct {
	what               string
	base, ours, theirs map[string]string
	result             map[string]string
	handResolved       map[string]bool
}

// finding is something a check found wrong, before it becomes a violation.
type finding struct {
	inv, class, detail string
}

// checkMerge judges a merge: whatever one side changed and the other did
// not must be in the result, once (invariant 3).
func checkMerge(c mergeCase) (fs []finding, rawDoubled int) {
	paths := map[string]bool{}
	for _, m := range []map[string]string{c.ours, c.theirs, c.result} {
		for p := range m {
			paths[p] = true
		}
	}
	for _, p := range sortedKeys(paths) {
		b, o, t, r := c.base[p], c.ours[p], c.theirs[p], c.result[p]
		switch {
		case strings.HasSuffix(p, ".jsonl"):
			f, d := checkLines(p, o, t, r)
			fs = append(fs, f...)
			rawDoubled += d
		case strings.HasPrefix(p, ".todos/issues/") && strings.HasSuffix(p, ".md"):
			if c.handResolved[p] {
				continue
			}
			fs = append(fs, checkIssue(p, b, o, t, r)...)
		case strings.HasPrefix(p, ".todos/sessions/"):
			if (o != "" || t != "") && r == "" {
				fs = append(fs, finding{"3", "a session file is lost", p})
			}
		}
	}
	return fs, rawDoubled
}

// checkLines judges an append-only file: every line of either side is in
// the result; a line in the result more often than on either side came
// twice through the merge.
func checkLines(p, o, t, r string) (fs []finding, doubled int) {
	co, ct, cr := countLines(o), countLines(t), countLines(r)
	for _, l := range unionKeys(co, ct) {
		if cr[l] == 0 {
			fs = append(fs, finding{"3", "a ledger line is lost in the merge", p + ": " + clip(l, 160)})
		}
	}
	for l, n := range cr {
		if m := max(co[l], ct[l]); n > m && m > 0 {
			doubled += n - m
		}
	}
	return fs, doubled
}

func countLines(s string) map[string]int {
	m := map[string]int{}
	for _, l := range splitLines(s) {
		m[l]++
	}
	return m
}

func unionKeys(a, b map[string]int) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	return sortedKeys(seen)
}

func checkIssue(p, b, o, t, r string) []finding {
	if r == "" {
		if o != "" || t != "" {
			return []finding{{"3", "an issue file is lost", p}}
		}
		return nil
	}
	db, do, dt, dr := parseIssue(b), parseIssue(o), parseIssue(t), parseIssue(r)
	if !dr.ok || !do.ok || !dt.ok || (b != "" && !db.ok) {
		return nil
	}
	var fs []finding
	add := func(class, format string, args ...any) {
		fs = append(fs, finding{"3", class, p + ": " + fmt.Sprintf(format, args...)})
	}
	keys := map[string]bool{}
	for _, d := range []issueDoc{db, do, dt, dr} {
		for k := range d.fields {
			keys[k] = true
		}
	}
	for _, k := range sortedKeys(keys) {
		if k == "updated_at" || k == "resolution" {
			continue // the resolution is judged with the status, as one
		}
		want, ok := three(db.fields[k], do.fields[k], dt.fields[k])
		got := dr.fields[k]
		if k == "status" {
			want, ok = three(pair(db), pair(do), pair(dt))
			got = pair(dr)
		}
		if ok && got != want {
			add("a field changed on one side lost its value", "%s is %q, the side that changed it set %q", k, got, want)
		}
		vo, vt := do.fields[k], dt.fields[k]
		if k == "status" {
			vo, vt = pair(do), pair(dt)
		}
		if !ok && got != vo && got != vt {
			add("a merge invented a field value", "%s is %q, the sides had %q and %q", k, got, vo, vt)
		}
	}
	for k := range setKeys {
		want := map[string]bool{}
		for e := range db.sets[k] {
			want[e] = true
		}
		for _, side := range []issueDoc{do, dt} {
			for e := range side.sets[k] {
				if !db.sets[k][e] {
					want[e] = true
				}
			}
			for e := range db.sets[k] {
				if !side.sets[k][e] {
					delete(want, e)
				}
			}
		}
		if a, g := setString(want), setString(dr.sets[k]); a != g {
			add("a "+k+" change is lost or undone", "%s is [%s], want [%s]", k, g, a)
		}
	}
	fs = append(fs, checkTodos(p, db, do, dt, dr)...)
	fs = append(fs, checkProse(p, db, do, dt, dr)...)
	return fs
}

func checkTodos(p string, db, do, dt, dr issueDoc) []finding {
	var fs []finding
	keys := map[string]bool{}
	for _, d := range []issueDoc{db, do, dt, dr} {
		for _, it := range d.todos {
			keys[it.key()] = true
		}
	}
	present := func(n int) string {
		if n > 0 {
			return "1"
		}
		return ""
	}
	for _, k := range sortedKeys(keys) {
		ib, nb := db.todo(k)
		io, no := do.todo(k)
		it, nt := dt.todo(k)
		ir, nr := dr.todo(k)
		name := strings.ReplaceAll(k, "|", " ")
		if nr > 1 && nr > max(no, nt) {
			fs = append(fs, finding{"3", "a todo is doubled", fmt.Sprintf("%s: %q appears %d times", p, name, nr)})
		}
		// Deleting a todo on one side and changing it on the other is a
		// conflict, not a deletion: presence is decided on the whole state.
		state := func(it todoItem, n int) string {
			if n == 0 {
				return ""
			}
			return "1" + it.marker + strings.Join(it.notes, "\n")
		}
		sw, ok := three(state(ib, nb), state(io, no), state(it, nt))
		want := present(len(sw))
		if !ok {
			_, ok = three(present(nb), present(no), present(nt))
			if no == 0 || nt == 0 {
				ok = false // deleted on one side, changed on the other
			}
			want = "1"
		}
		if ok && want == "1" && nr == 0 {
			fs = append(fs, finding{"3", "a todo is lost", fmt.Sprintf("%s: %q", p, name)})
			continue
		}
		if ok && want == "" && nr > 0 && nb > 0 {
			fs = append(fs, finding{"3", "a todo deleted on one side came back", fmt.Sprintf("%s: %q", p, name)})
		}
		if nr == 0 {
			continue
		}
		m, ok := three(ib.marker, io.marker, it.marker)
		if ok && m != "" && ir.marker != m && !(m == "/" && ir.marker == " ") {
			fs = append(fs, finding{"3", "a todo's status changed on one side is lost", fmt.Sprintf("%s: %q is [%s], the side that changed it has [%s]", p, name, ir.marker, m)})
		}
		nset := func(it todoItem) map[string]bool {
			s := map[string]bool{}
			for _, n := range it.notes {
				s[n] = true
			}
			return s
		}
		sb, so, st, sr := nset(ib), nset(io), nset(it), nset(ir)
		for n := range so {
			if !sb[n] && !sr[n] {
				fs = append(fs, finding{"3", "a todo's note is lost", fmt.Sprintf("%s: %q: %q", p, name, n)})
			}
		}
		for n := range st {
			if !sb[n] && !sr[n] {
				fs = append(fs, finding{"3", "a todo's note is lost", fmt.Sprintf("%s: %q: %q", p, name, n)})
			}
		}
	}
	return fs
}

// checkProse judges the lines outside the checklists as multisets: what a
// side added is there, once; what a side removed is gone.
func checkProse(p string, db, do, dt, dr issueDoc) []finding {
	cb, co, ct, cr := countSlice(db.prose), countSlice(do.prose), countSlice(dt.prose), countSlice(dr.prose)
	var fs []finding
	for _, l := range unionKeys(co, ct) {
		// The same change on both sides is taken once, as git and td's
		// driver take it: a line both sides added (one of them through a
		// squash of the other) is there once.
		dO, dT := co[l]-cb[l], ct[l]-cb[l]
		want := cb[l] + dO + dT
		switch {
		case dO > 0 && dT > 0:
			want = cb[l] + max(dO, dT)
		case dO < 0 && dT < 0:
			want = cb[l] + min(dO, dT)
		}
		want = max(want, 0)
		switch {
		case cr[l] < want:
			fs = append(fs, finding{"3", "a line of the description is lost", fmt.Sprintf("%s: %q", p, clip(l, 100))})
		case cr[l] > want && cr[l] > max(co[l], ct[l]):
			fs = append(fs, finding{"3", "a line of the description is doubled", fmt.Sprintf("%s: %q", p, clip(l, 100))})
		}
	}
	return fs
}

func countSlice(s []string) map[string]int {
	m := map[string]int{}
	for _, l := range s {
		m[l]++
	}
	return m
}

func setString(s map[string]bool) string {
	return strings.Join(sortedKeys(s), ",")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// clip shortens s to at most n bytes, at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// change is what one side did to an issue file, as units a merge could
// collide on.
type change struct {
	units   map[string]string // unit -> the value it was changed to
	touched []int             // lines of the base the side changed or inserted at
}

// diffIssue lists what side changed against base.
func diffIssue(db, ds issueDoc) change {
	c := change{units: map[string]string{}}
	for k := range union(db.fields, ds.fields) {
		if k == "status" || k == "resolution" {
			// One unit, as td merges them: a close sets the resolution,
			// a reopen clears it.
			if pair(db) != pair(ds) {
				c.units["field:status"] = pair(ds)
			}
			continue
		}
		if k != "updated_at" && db.fields[k] != ds.fields[k] {
			c.units["field:"+k] = ds.fields[k]
		}
	}
	for k := range setKeys {
		if setString(db.sets[k]) != setString(ds.sets[k]) {
			c.units["field:"+k] = setString(ds.sets[k])
		}
	}
	for _, it := range ds.todos {
		ib, n := db.todo(it.key())
		switch {
		case n == 0:
			c.units["todo:"+it.key()] = "added " + it.marker
			c.touched = append(c.touched, insertionLine(db, it))
			if db.sections[it.kind] == 0 {
				c.units["newsection:"+it.kind] = "added"
			}
		case ib.marker != it.marker || strings.Join(ib.notes, "\n") != strings.Join(it.notes, "\n"):
			c.units["todo:"+it.key()] = it.marker + strings.Join(it.notes, "\n")
			c.touched = append(c.touched, ib.line)
		}
	}
	for _, ib := range db.todos {
		if _, n := ds.todo(ib.key()); n == 0 {
			c.units["todo:"+ib.key()] = "deleted"
			c.touched = append(c.touched, ib.line)
		}
	}
	if strings.Join(db.prose, "\n") != strings.Join(ds.prose, "\n") {
		c.units["prose"] = strings.Join(ds.prose, "\n")
	}
	diffOrder(db, ds, &c)
	return c
}

// diffOrder records a change of the order of the todos both db and ds
// hold, per kind (td todo move, or the driver's order): the order as a
// unit, and the base lines of the todos that moved as touched, since git
// sees a move as lines deleted there and added elsewhere.
func diffOrder(db, ds issueDoc, c *change) {
	for _, kind := range []string{"criterion", "step"} {
		in := func(d issueDoc, other issueDoc) []todoItem {
			var out []todoItem
			for _, it := range d.todos {
				if _, n := other.todo(it.key()); it.kind == kind && n > 0 {
					out = append(out, it)
				}
			}
			return out
		}
		bo, so := in(db, ds), in(ds, db)
		if len(bo) != len(so) {
			continue // a text held twice: the model does not judge its order
		}
		var order []string
		moved := false
		for i := range bo {
			order = append(order, so[i].key())
			if bo[i].key() != so[i].key() {
				moved = true
				c.touched = append(c.touched, bo[i].line)
			}
		}
		if moved {
			c.units["order:"+kind] = strings.Join(order, "\n")
		}
	}
}

// pair is an issue's status with its resolution, which td merges as one.
func pair(d issueDoc) string { return d.fields["status"] + " / " + d.fields["resolution"] }

// insertionLine is where plain git inserts a new todo: after the last item
// of its phase, or of its section, or at the end of the file.
func insertionLine(db issueDoc, it todoItem) int {
	line := 0
	for _, b := range db.todos {
		if b.kind == it.kind && (b.phase == it.phase || line == 0) {
			line = b.line + len(b.notes)
		}
	}
	if line == 0 {
		if l := db.sections[it.kind]; l > 0 {
			return l
		}
		return db.lines
	}
	return line
}

func union(a, b map[string]string) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// classifyConflict says whether a conflict on an issue file is one the
// invariants allow: both sides changed one thing differently (with the
// driver), or, for plain git, also changed lines next to each other
// within a checklist section. Anything else is a violation of invariant 4.
// kinds names the two sides' changes, family the kinds of change, for the
// violation's class; both holds the units both sides changed differently
// (field:NAME, todo:TEXT, prose).
func classifyConflict(b, o, t string, driver bool) (legit bool, kinds, family string, both map[string]bool) {
	both = map[string]bool{}
	db, do, dt := parseIssue(b), parseIssue(o), parseIssue(t)
	if b == "" && do.ok && dt.ok {
		// Both sides added the file (a squash-landed branch that merged
		// main back): there is no base, so whatever the two copies hold
		// differently both sides changed.
		for u := range diffIssue(dt, do).units {
			if strings.HasPrefix(u, "todo:") {
				both["todo:"+u[strings.LastIndex(u, "|")+1:]] = true
			} else if !strings.HasPrefix(u, "newsection:") {
				both[u] = true
			}
		}
		if driver {
			delete(both, "field:labels") // sets merge
			delete(both, "field:links")
		}
		return len(both) > 0 || !driver, "a file both sides added", "a file both sides added", both
	}
	if !db.ok || !do.ok || !dt.ok {
		return true, "a side td cannot read", "unreadable", both
	}
	co, ct := diffIssue(db, do), diffIssue(db, dt)
	k1, k2 := unitKinds(co), unitKinds(ct)
	f1, f2 := unitFamily(co), unitFamily(ct)
	if k2 < k1 {
		k1, k2 = k2, k1
	}
	if f2 < f1 {
		f1, f2 = f2, f1
	}
	kinds, family = k1+" × "+k2, f1+" × "+f2
	for u, v := range co.units {
		if w, ok := ct.units[u]; ok && w != v {
			if strings.HasPrefix(u, "newsection:") {
				continue
			}
			if driver && (u == "field:labels" || u == "field:links") {
				continue // sets merge
			}
			if strings.HasPrefix(u, "todo:") {
				both["todo:"+u[strings.LastIndex(u, "|")+1:]] = true
			} else {
				both[u] = true
			}
		}
	}
	if len(both) > 0 {
		return true, kinds, family, both
	}
	if driver {
		return false, kinds, family, both
	}
	for _, a := range co.touched {
		for _, b := range ct.touched {
			if a-b <= 1 && b-a <= 1 && !(isSectionEnd(db, a) && isSectionEnd(db, b) && a != b) {
				return true, kinds, family, both
			}
		}
	}
	return false, kinds, family, both
}

// unitFamily names a side's changes coarsely: frontmatter fields, todos,
// a new checklist section, the description.
func unitFamily(c change) string {
	fam := map[string]bool{}
	for u := range c.units {
		switch {
		case strings.HasPrefix(u, "field:"):
			fam["fields"] = true
		case strings.HasPrefix(u, "todo:"), strings.HasPrefix(u, "order:"):
			fam["todos"] = true
		case strings.HasPrefix(u, "newsection:"):
			fam["a new checklist section"] = true
		case u == "prose":
			fam["the description"] = true
		}
	}
	if fam["a new checklist section"] {
		delete(fam, "todos")
	}
	if len(fam) == 0 {
		return "nothing"
	}
	return strings.Join(sortedKeys(fam), " + ")
}

// isSectionEnd reports a line at which td inserts a new section.
func isSectionEnd(d issueDoc, line int) bool { return line >= d.lines }

// unitKinds names a side's changes by kind: the fields by name, then
// todos, new sections and prose.
func unitKinds(c change) string {
	kinds := map[string]bool{}
	for u := range c.units {
		switch {
		case strings.HasPrefix(u, "field:"):
			kinds[u[len("field:"):]] = true
		case strings.HasPrefix(u, "todo:"), strings.HasPrefix(u, "order:"):
			if !kinds["first criterion"] && !kinds["first step"] {
				kinds["todos"] = true
			}
		case u == "newsection:criterion":
			kinds["first criterion"] = true
		case u == "newsection:step":
			kinds["first step"] = true
		case u == "prose":
			kinds["description"] = true
		}
	}
	if kinds["first criterion"] || kinds["first step"] {
		delete(kinds, "todos")
	}
	if len(kinds) == 0 {
		return "nothing"
	}
	return "{" + strings.Join(sortedKeys(kinds), ",") + "}"
}

// treeAt reads the files under .todos at a revision of a repository, in
// one git process.
func treeAt(gitDir, rev string, env []string) (map[string]string, error) {
	files := map[string]string{}
	if rev == "" {
		return files, nil
	}
	ls := exec.Command("git", "ls-tree", "-r", "--name-only", rev, "--", ".todos")
	ls.Dir, ls.Env = gitDir, env
	out, err := ls.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %v", rev, err)
	}
	paths := splitLines(string(out))
	if len(paths) == 0 {
		return files, nil
	}
	cat := exec.Command("git", "cat-file", "--batch")
	cat.Dir, cat.Env = gitDir, env
	var in bytes.Buffer
	for _, p := range paths {
		fmt.Fprintf(&in, "%s:%s\n", rev, p)
	}
	cat.Stdin = &in
	data, err := cat.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	rd := bufio.NewReader(bytes.NewReader(data))
	for _, p := range paths {
		head, err := rd.ReadString('\n')
		if err != nil {
			return nil, err
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			continue // missing
		}
		n, _ := strconv.Atoi(f[2])
		buf := make([]byte, n+1)
		if _, err := io.ReadFull(rd, buf); err != nil {
			return nil, err
		}
		files[p] = string(buf[:n])
	}
	return files, nil
}

// claim is one claim record, as td writes it in a claim ref's commit.
type claim struct {
	issue, session, actor, agent string
	claimed, expires             time.Time
}

// claimsAt lists the claim refs of a repository.
func claimsAt(gitDir string, env []string) map[string]claim {
	c := exec.Command("git", "for-each-ref", "--format=%(contents)%00", "refs/td/claims/")
	c.Dir, c.Env = gitDir, env
	out, err := c.Output()
	claims := map[string]claim{}
	if err != nil {
		return claims
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		var cl claim
		for _, l := range strings.Split(rec, "\n") {
			k, v, ok := strings.Cut(l, ": ")
			if !ok {
				continue
			}
			switch k {
			case "issue":
				cl.issue = v
			case "session":
				cl.session = v
			case "actor":
				cl.actor = v
			case "agent":
				cl.agent = v
			case "claimed":
				cl.claimed, _ = time.Parse(time.RFC3339, v)
			case "expires":
				cl.expires, _ = time.Parse(time.RFC3339, v)
			}
		}
		if cl.issue != "" {
			claims[cl.issue] = cl
		}
	}
	return claims
}
