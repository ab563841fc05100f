package markdown

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

// mergeBase is an issue file as td writes it.
const mergeBase = `---
id: td-qkm5oz
title: Sign in with GitHub
status: in_progress
type: task
priority: P2
minor: false
labels: [auth]
created_by: ses_qmt3y9ft
implementer: ses_qmt3y9ft
assignee: ""
resolution: ""
links: []
created_at: 2026-11-21T10:00:00Z
updated_at: 2026-11-21T10:00:00Z
---

Users sign in with their GitHub account.

## Acceptance criteria

- [ ] A user can sign in

## Todos

- [/] Register the app
- [ ] Write the callback
- [ ] Test it
`

// edited applies each old, new pair of replacements to s once, failing the
// test when old is not there.
func edited(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("edit: %q is not in the text", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// descOnly is an issue file with a description and no checklist, in the
// layout td wrote before its sections were written with every new file.
const descOnly = `---
id: td-qkm5oz
title: Sign in with GitHub
status: open
---

Users sign in with their GitHub account.
`

// noDesc is an issue file as td creates it without a description.
const noDesc = `---
id: td-qkm5oz
title: Sign in with GitHub
created_at: 2026-11-21T10:00:00Z

status: open
---

## Acceptance criteria

## Todos
`

func TestMergeIssueClean(t *testing.T) {
	const (
		upd10 = "updated_at: 2026-11-21T10:00:00Z"
		upd11 = "updated_at: 2026-11-21T11:00:00Z"
		upd12 = "updated_at: 2026-11-21T12:00:00Z"
	)
	tests := []struct {
		name              string
		base              string
		ours, theirs      []string // replacements applied to base
		want              []string // replacements applied to base
		wantOurs, wantAll bool     // want is ours, or base edited by both lists
	}{
		{
			name:   "different items ticked",
			ours:   []string{"- [/] Register", "- [x] Register", "- [ ] Write", "- [/] Write", upd10, upd11},
			theirs: []string{"- [ ] Test it", "- [x] Test it", upd10, upd12},
			want:   []string{"- [/] Register", "- [x] Register", "- [ ] Write", "- [/] Write", "- [ ] Test it", "- [x] Test it", upd10, upd12},
		},
		{
			// Ours finished the active step and td started the next; theirs
			// finished that next step. Done beats the automatic start.
			name:   "a step started on one side and done on the other",
			ours:   []string{"- [/] Register", "- [x] Register", "- [ ] Write", "- [/] Write", upd10, upd11},
			theirs: []string{"- [ ] Write", "- [x] Write", upd10, upd12},
			want:   []string{"- [/] Register", "- [x] Register", "- [ ] Write", "- [x] Write", upd10, upd12},
		},
		{
			name:   "different labels added",
			ours:   []string{"labels: [auth]", "labels: [auth, x]", upd10, upd12},
			theirs: []string{"labels: [auth]", "labels: [auth, ops]", upd10, upd11},
			want:   []string{"labels: [auth]", "labels:\n  - auth\n  - x\n  - ops", upd10, upd12},
		},
		{
			name:   "the same label added on both sides",
			ours:   []string{"labels: [auth]", "labels: [auth, x]", upd10, upd11},
			theirs: []string{"labels: [auth]", "labels: [auth, x]", upd10, upd12},
			want:   []string{"labels: [auth]", "labels: [auth, x]", upd10, upd12},
		},
		{
			name:   "a label removed on one side and another added on the other",
			ours:   []string{"labels: [auth]", "labels: []", upd10, upd11},
			theirs: []string{"labels: [auth]", "labels: [auth, ui]", upd10, upd12},
			want:   []string{"labels: [auth]", "labels:\n  - ui", upd10, upd12},
		},
		{
			name:   "links merged as sets",
			ours:   []string{"links: []", "links:\n  - {kind: child_of, to: td-a0b1c2}", upd10, upd11},
			theirs: []string{"links: []", "links:\n  - {kind: relates_to, to: td-z9y8x7}", upd10, upd12},
			want:   []string{"links: []", "links:\n  - {kind: child_of, to: td-a0b1c2}\n  - {kind: relates_to, to: td-z9y8x7}", upd10, upd12},
		},
		{
			name:   "notes unioned",
			ours:   []string{"- [ ] Write the callback\n", "- [ ] Write the callback\n  > state must be verified\n", upd10, upd11},
			theirs: []string{"- [ ] Write the callback\n", "- [ ] Write the callback\n  > use the fake provider\n", upd10, upd12},
			want:   []string{"- [ ] Write the callback\n", "- [ ] Write the callback\n  > state must be verified\n\n  > use the fake provider\n", upd10, upd12},
		},
		{
			name:   "a note and a status change on the same todo",
			ours:   []string{"- [ ] Test it\n", "- [ ] Test it\n  > flaky on CI\n"},
			theirs: []string{"- [ ] Test it\n", "- [!] Test it\n"},
			want:   []string{"- [ ] Test it\n", "- [!] Test it\n  > flaky on CI\n"},
		},
		{
			name:   "a blocked note removed by done on one side, a note added on the other",
			base:   strings.Replace(mergeBase, "- [ ] Test it\n", "- [!] Test it\n  > blocked: no CI\n", 1),
			ours:   []string{"- [!] Test it\n  > blocked: no CI\n", "- [x] Test it\n"},
			theirs: []string{"- [!] Test it\n  > blocked: no CI\n", "- [!] Test it\n  > blocked: no CI\n\n  > flaky\n"},
			want:   []string{"- [!] Test it\n  > blocked: no CI\n", "- [x] Test it\n  > flaky\n"},
		},
		{
			name:   "the same todo added on both sides",
			ours:   []string{"- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n", upd10, upd11},
			theirs: []string{"- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n", upd10, upd12},
			want:   []string{"- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n", upd10, upd12},
		},
		{
			name:   "different todos added on both sides, ours first",
			ours:   []string{"- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n"},
			theirs: []string{"- [ ] Test it\n", "- [ ] Test it\n- [ ] Announce\n- [ ] Celebrate\n"},
			want:   []string{"- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n- [ ] Announce\n- [ ] Celebrate\n"},
		},
		{
			name:   "a criterion added on one side, a phase on the other",
			ours:   []string{"- [ ] A user can sign in\n", "- [ ] A user can sign in\n- [ ] Tokens refresh\n"},
			theirs: []string{"- [ ] Test it\n", "- [ ] Test it\n\n### Release\n- [ ] Tag it\n"},
			want:   []string{"- [ ] A user can sign in\n", "- [ ] A user can sign in\n- [ ] Tokens refresh\n", "- [ ] Test it\n", "- [ ] Test it\n\n### Release\n- [ ] Tag it\n"},
		},
		{
			name:   "a todo deleted on one side and ticked elsewhere on the other",
			ours:   []string{"- [ ] Write the callback\n", ""},
			theirs: []string{"- [ ] Test it", "- [x] Test it"},
			want:   []string{"- [ ] Write the callback\n", "", "- [ ] Test it", "- [x] Test it"},
		},
		{
			name:   "the description edited on one side, a todo ticked on the other",
			ours:   []string{"their GitHub account.", "their GitHub account.\n\nGitLab comes later."},
			theirs: []string{"- [ ] Test it", "- [x] Test it"},
			want:   []string{"their GitHub account.", "their GitHub account.\n\nGitLab comes later.", "- [ ] Test it", "- [x] Test it"},
		},
		{
			name:   "unknown keys added on both sides",
			ours:   []string{upd10 + "\n", upd10 + "\nestimate: 3\n"},
			theirs: []string{upd10 + "\n", upd10 + "\nsprint: 12 # q4\n"},
			want:   []string{upd10 + "\n", upd10 + "\nestimate: 3\nsprint: 12 # q4\n"},
		},
		{
			name:   "different fields changed",
			ours:   []string{"priority: P2", "priority: P1", upd10, upd11},
			theirs: []string{"title: Sign in with GitHub", "title: Sign in with GitHub or GitLab", upd10, upd12},
			want:   []string{"priority: P2", "priority: P1", "title: Sign in with GitHub", "title: Sign in with GitHub or GitLab", upd10, upd12},
		},
		{
			// Neither side wrote two active todos: the merge keeps the
			// first in the file in progress, as td does after every
			// change, so that td check accepts the result.
			name:   "each side started a different todo",
			base:   strings.Replace(mergeBase, "- [/] Register", "- [x] Register", 1),
			ours:   []string{"- [ ] Write", "- [/] Write"},
			theirs: []string{"- [ ] Test it", "- [/] Test it"},
			want:   []string{"- [ ] Write", "- [/] Write"},
		},
		{
			name:   "a step started on one side, a criterion on the other",
			base:   strings.Replace(mergeBase, "- [/] Register", "- [x] Register", 1),
			ours:   []string{"- [ ] Test it", "- [/] Test it"},
			theirs: []string{"- [ ] A user can sign in", "- [/] A user can sign in"},
			want:   []string{"- [ ] A user can sign in", "- [/] A user can sign in"},
		},
		{
			// Base: a description only. One side wrote the first steps, the
			// other the first criterion: two new sections, criteria first.
			name:   "the first steps on one side, the first criterion on the other",
			base:   descOnly,
			ours:   []string{"account.\n", "account.\n\n## Todos\n\n- [/] step one\n- [ ] step two\n"},
			theirs: []string{"account.\n", "account.\n\n## Acceptance criteria\n\n- [ ] It works\n"},
			want:   []string{"account.\n", "account.\n\n## Acceptance criteria\n\n- [ ] It works\n\n## Todos\n\n- [/] step one\n- [ ] step two\n"},
		},
		{
			// No description: its piece is empty on every side, and stays.
			name:   "the first step on each side of a file with no description",
			base:   noDesc,
			ours:   []string{"## Todos\n", "## Todos\n\n- [/] Rotate the secret\n"},
			theirs: []string{"## Todos\n", "## Todos\n\n- [/] Register the app\n- [ ] Write the callback\n"},
			want:   []string{"## Todos\n", "## Todos\n\n- [/] Rotate the secret\n- [ ] Register the app\n- [ ] Write the callback\n"},
		},
		{
			name:   "an append to the description on one side, the first criterion on the other",
			base:   descOnly,
			ours:   []string{"account.\n", "account.\n\nGitLab later.\n"},
			theirs: []string{"account.\n", "account.\n\n## Acceptance criteria\n\n- [ ] It works\n"},
			want:   []string{"account.\n", "account.\n\nGitLab later.\n\n## Acceptance criteria\n\n- [ ] It works\n"},
		},
		{
			name:   "two appends to the description: both, ours first",
			ours:   []string{"account.\n", "account.\n\nGitLab later.\n"},
			theirs: []string{"account.\n", "account.\n\nBitbucket never.\n"},
			want:   []string{"account.\n", "account.\n\nGitLab later.\n\nBitbucket never.\n"},
		},
		{
			name:   "a phase added on both sides: ours first",
			ours:   []string{"- [ ] Test it\n", "- [ ] Test it\n\n### Release\n- [ ] Tag it\n"},
			theirs: []string{"- [ ] Test it\n", "- [ ] Test it\n\n### Docs\n- [ ] Write the guide\n"},
			want:   []string{"- [ ] Test it\n", "- [ ] Test it\n\n### Release\n- [ ] Tag it\n\n### Docs\n- [ ] Write the guide\n"},
		},
		{
			name:   "a loose list keeps its blank lines when the other side only ticks",
			base:   strings.Replace(mergeBase, "- [ ] Write the callback\n", "\n- [ ] Write the callback\n\n", 1),
			ours:   []string{"- [ ] Test it", "- [x] Test it"},
			theirs: []string{"- [ ] Write", "- [x] Write"},
			want:   []string{"- [ ] Test it", "- [x] Test it", "- [ ] Write", "- [x] Write"},
		},
		{
			name:   "a todo moved on one side, a todo added on the other: the order of the side that moved it",
			ours:   []string{"- [/] Register the app\n- [ ] Write the callback\n- [ ] Test it\n", "- [ ] Test it\n- [/] Register the app\n- [ ] Write the callback\n"},
			theirs: []string{"- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n"},
			want:   []string{"- [/] Register the app\n- [ ] Write the callback\n- [ ] Test it\n", "- [ ] Test it\n- [/] Register the app\n- [ ] Write the callback\n- [ ] Deploy\n"},
		},
		{
			// A squash-landed branch and main that merged it back, say:
			// both hold the same move, and each added a todo of its own.
			name:   "the same todo moved alike on both sides, one added on each",
			ours:   []string{"- [/] Register the app\n- [ ] Write the callback\n- [ ] Test it\n", "- [/] Write the callback\n- [ ] Register the app\n- [ ] Test it\n- [ ] Ours\n"},
			theirs: []string{"- [/] Register the app\n- [ ] Write the callback\n- [ ] Test it\n", "- [/] Write the callback\n- [ ] Theirs\n- [ ] Register the app\n- [x] Test it\n"},
			want:   []string{"- [/] Register the app\n- [ ] Write the callback\n- [ ] Test it\n", "- [/] Write the callback\n- [ ] Register the app\n- [x] Test it\n- [ ] Ours\n- [ ] Theirs\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := tt.base
			if base == "" {
				base = mergeBase
			}
			ours, theirs := edited(t, base, tt.ours...), edited(t, base, tt.theirs...)
			want := edited(t, base, tt.want...)
			got, conflicts := MergeIssue([]byte(base), []byte(ours), []byte(theirs), "ours", "theirs")
			if conflicts != nil || string(got) != want {
				t.Fatalf("conflicts %q, got\n%s\nwant\n%s", conflicts, got, want)
			}
			if _, err := Parse(got); err != nil {
				t.Fatalf("the merge does not parse: %v", err)
			}
			back, conflicts := MergeIssue([]byte(base), []byte(theirs), []byte(ours), "ours", "theirs")
			if conflicts != nil || mergeContent(back) != mergeContent(got) {
				t.Fatalf("the swapped merge differs (conflicts %q):\n%s", conflicts, back)
			}
		})
	}
}

// TestMergeIssueConflicts checks that a conflict is marked where it is:
// the frontmatter key, the todo or the lines of prose both sides changed,
// with the rest of the file merged by td's rules.
func TestMergeIssueConflicts(t *testing.T) {
	tests := []struct {
		name         string
		ours, theirs []string
		conflicts    []string
		marked       []string // replacements applied to base
	}{
		{
			name:      "the title edited on both sides",
			ours:      []string{"title: Sign in with GitHub", "title: Sign in with GitLab"},
			theirs:    []string{"title: Sign in with GitHub", "title: Sign in with Bitbucket", "- [ ] Test it", "- [x] Test it"},
			conflicts: []string{"the field title"},
			marked: []string{"title: Sign in with GitHub\n", "<<<<<<< ours\ntitle: Sign in with GitLab\n=======\ntitle: Sign in with Bitbucket\n>>>>>>> theirs\n",
				"- [ ] Test it", "- [x] Test it"},
		},
		{
			name:      "the same todo done on one side and dropped on the other",
			ours:      []string{"- [ ] Test it", "- [x] Test it", "- [ ] Write", "- [x] Write"},
			theirs:    []string{"- [ ] Test it", "- [-] Test it", "title: Sign in with GitHub", "title: Sign in with GitLab"},
			conflicts: []string{`the todo "Test it"`},
			marked: []string{"- [ ] Test it\n", "<<<<<<< ours\n- [x] Test it\n=======\n- [-] Test it\n>>>>>>> theirs\n",
				"- [ ] Write", "- [x] Write", "title: Sign in with GitHub", "title: Sign in with GitLab"},
		},
		{
			name:      "a todo deleted on one side and changed on the other",
			ours:      []string{"- [ ] Test it\n", ""},
			theirs:    []string{"- [ ] Test it", "- [x] Test it"},
			conflicts: []string{`the todo "Test it" (one side deleted it, the other changed it)`},
			marked:    []string{"- [ ] Test it\n", "<<<<<<< ours\n=======\n- [x] Test it\n>>>>>>> theirs\n"},
		},
		{
			name:      "the same line of the description",
			ours:      []string{"their GitHub account.", "their GitHub login.", "- [ ] Test it", "- [x] Test it"},
			theirs:    []string{"their GitHub account.", "their GitHub handle.", "priority: P2", "priority: P1"},
			conflicts: []string{"the same lines of the description"},
			marked: []string{"Users sign in with their GitHub account.\n", "<<<<<<< ours\nUsers sign in with their GitHub login.\n=======\nUsers sign in with their GitHub handle.\n>>>>>>> theirs\n",
				"- [ ] Test it", "- [x] Test it", "priority: P2", "priority: P1"},
		},
		{
			name:      "the status changed on both sides and a todo text on one",
			ours:      []string{"status: in_progress", "status: in_review", "- [ ] Test it", "- [ ] Test it well"},
			theirs:    []string{"status: in_progress", "status: blocked", "- [ ] Test it", "- [x] Test it"},
			conflicts: []string{"the field status", `the todo "Test it" (one side deleted it, the other changed it)`},
			marked: []string{"status: in_progress\n", "<<<<<<< ours\nstatus: in_review\n=======\nstatus: blocked\n>>>>>>> theirs\n",
				"- [ ] Test it\n", "<<<<<<< ours\n=======\n- [x] Test it\n>>>>>>> theirs\n- [ ] Test it well\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ours, theirs := edited(t, mergeBase, tt.ours...), edited(t, mergeBase, tt.theirs...)
			got, conflicts := MergeIssue([]byte(mergeBase), []byte(ours), []byte(theirs), "ours", "theirs")
			if !slices.Equal(conflicts, tt.conflicts) {
				t.Fatalf("conflicts %q, want %q", conflicts, tt.conflicts)
			}
			if want := edited(t, mergeBase, tt.marked...); string(got) != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			// Swapped, the same conflicts, the sides of each marked
			// region swapped.
			back, conflicts := MergeIssue([]byte(mergeBase), []byte(theirs), []byte(ours), "ours", "theirs")
			if !slices.Equal(conflicts, tt.conflicts) {
				t.Fatalf("swapped: conflicts %q, want %q", conflicts, tt.conflicts)
			}
			if !bytes.Equal(Side(back, true), Side(got, false)) {
				t.Fatalf("swapped: theirs of the swapped merge is not ours of the merge:\n%s", back)
			}
		})
	}
}

func TestMergeIssueCRLF(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	base := crlf(mergeBase)
	ours := crlf(edited(t, mergeBase, "labels: [auth]", "labels: [auth, x]", "- [ ] Write the callback\n", "- [ ] Write the callback\n  > state\n", "updated_at: 2026-11-21T10:00:00Z", "updated_at: 2026-11-21T11:00:00Z"))
	theirs := crlf(edited(t, mergeBase, "labels: [auth]", "labels: [ops, auth]", "- [ ] Write the callback\n", "- [x] Write the callback\n  > done\n", "- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n"))
	want := crlf(edited(t, mergeBase, "labels: [auth]", "labels:\n  - auth\n  - x\n  - ops", "- [ ] Write the callback\n", "- [x] Write the callback\n  > state\n\n  > done\n", "- [ ] Test it\n", "- [ ] Test it\n- [ ] Deploy\n", "updated_at: 2026-11-21T10:00:00Z", "updated_at: 2026-11-21T11:00:00Z"))
	got, conflicts := MergeIssue([]byte(base), []byte(ours), []byte(theirs), "ours", "theirs")
	if conflicts != nil || string(got) != want {
		t.Fatalf("conflicts %q, got %q\nwant %q", conflicts, got, want)
	}
}

func TestMergeIssueUnreadableSideMergesByLine(t *testing.T) {
	ours := edited(t, mergeBase, "- [ ] Test it", "- [x] Test it")
	theirs := edited(t, mergeBase, "title: Sign in with GitHub\n", "title: [unclosed\n")
	got, conflicts := MergeIssue([]byte(mergeBase), []byte(ours), []byte(theirs), "ours", "theirs")
	want := edited(t, ours, "title: Sign in with GitHub\n", "title: [unclosed\n")
	if conflicts != nil || string(got) != want {
		t.Fatalf("conflicts %q, got\n%s", conflicts, got)
	}
	theirs = edited(t, mergeBase, "- [ ] Test it", "- [-] Test it", "title: Sign in with GitHub\n", "title: [unclosed\n")
	got, conflicts = MergeIssue([]byte(mergeBase), []byte(ours), []byte(theirs), "ours", "theirs")
	lines, _ := MergeLines([]byte(mergeBase), []byte(ours), []byte(theirs), "ours", "theirs")
	if len(conflicts) != 1 || !bytes.Equal(got, lines) {
		t.Fatalf("conflicts %q, got\n%s", conflicts, got)
	}
}

// mergeContent describes what a merged file says, whatever the order in
// which the merge met the two sides' additions: the frontmatter values
// (labels and links as sets), and the body's pieces as a set, each with
// its lines as a set (two additions at one place come ours first, so a
// swapped merge orders them the other way) and each group's todos as a
// set with their notes as a set.
func mergeContent(data []byte) string {
	f, err := Parse(data)
	if err != nil {
		return "unparsed:" + string(data)
	}
	var b strings.Builder
	keys := f.Front.Keys()
	slices.Sort(keys)
	for _, k := range keys {
		n := f.Front.Node(k)
		if (k == labelsKey || k == linksKey) && n.Kind == 2 /* sequence */ {
			var elems []string
			for _, c := range n.Content {
				elems = append(elems, nodeKey(c))
			}
			slices.Sort(elems)
			b.WriteString(k + "=" + strings.Join(slices.Compact(elems), ";") + "\n")
			continue
		}
		b.WriteString(k + "=" + nodeKey(n) + "\n")
	}
	var pieces []string
	for _, p := range splitPieces(f.Body) {
		var pb strings.Builder
		// Two sections of one heading, one added on each side, come ours
		// first: their occurrence numbers say which side was ours.
		key, _, _ := strings.Cut(p.key, "\x00#")
		pb.WriteString(key + ":")
		text := p.text
		if p.kind == phasePiece {
			text = append([]byte("## Todos\n"), text...)
		}
		l, ok := layoutBody(text)
		if p.kind == prosePiece || !ok {
			ls := contentLines(text)
			pb.WriteString(strings.Join(ls, ""))
			pieces = append(pieces, pb.String())
			continue
		}
		ls := contentLines(l.skeleton)
		pb.WriteString(strings.Join(ls, ""))
		keysOf := slices.Clone(l.order)
		slices.SortFunc(keysOf, func(x, y groupKey) int { return strings.Compare(x.token(), y.token()) })
		for _, k := range keysOf {
			var items []string
			for _, t := range l.runs[k].todos {
				notes := slices.Clone(t.Notes)
				slices.Sort(notes)
				// Which of two started todos stays in progress depends on
				// which side came first in the file (the later is
				// demoted): in progress reads as pending here, and the
				// number in progress is compared apart.
				status := t.Status
				if status == domain.TodoInProgress {
					status = domain.TodoPending
				}
				items = append(items, string(status)+"|"+t.Text+"|"+strings.Join(notes, "\x01")+"|"+t.residue)
			}
			slices.Sort(items)
			pb.WriteString(k.token() + strings.Join(items, "\x02") + "\n")
		}
		pieces = append(pieces, pb.String())
	}
	slices.Sort(pieces)
	b.WriteString(strings.Join(pieces, "\x03"))
	active := 0
	for _, it := range ParseChecklist(f.Body).Items() {
		if it.Status == domain.TodoInProgress {
			active++
		}
	}
	fmt.Fprintf(&b, "\x04%d in progress", active)
	return b.String()
}

// contentLines returns the lines of text, sorted, without their line
// endings: a side's last line without one gains one when the merge puts a
// piece of the other side after it.
func contentLines(text []byte) []string {
	t := strings.TrimSuffix(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n")
	ls := strings.Split(t, "\n")
	slices.Sort(ls)
	return ls
}

// TestMergeIssuePhaseRename pins a merge the structural reading calls a
// conflict (one side renamed a phase, so by phase its todos went away,
// while the other changed one of them) but the line merge gets right: it
// is clean both ways, with the new name and the change.
func TestMergeIssuePhaseRename(t *testing.T) {
	O := canonical + "\n## Todos\n\n### Backend\n- [ ] write the handler\n- [ ] test it\n"
	A := strings.Replace(O, "### Backend", "### Server", 1)
	B := strings.Replace(O, "- [ ] test it", "- [x] test it", 1)
	want := strings.Replace(A, "- [ ] test it", "- [x] test it", 1)
	for _, sides := range [][2]string{{A, B}, {B, A}} {
		got, conflicts := MergeIssue([]byte(O), []byte(sides[0]), []byte(sides[1]), "ours", "theirs")
		if conflicts != nil || string(got) != want {
			t.Errorf("merge: conflicts %q\n%s", conflicts, got)
		}
	}
	// Deleting the todo the other side changed stays a conflict, however
	// far apart the lines.
	D := strings.Replace(O, "- [ ] write the handler\n", "", 1)
	C := strings.Replace(O, "- [ ] write the handler\n", "- [ ] write the handler\n  > a note\n", 1)
	if _, conflicts := MergeIssue([]byte(O), []byte(D), []byte(C), "ours", "theirs"); conflicts == nil {
		t.Errorf("deleting a todo the other side noted merged cleanly")
	}
}

// TestMergeIssueTodosMovedDifferently: two sides that gave the same todos
// different orders conflict, as no order keeps both.
func TestMergeIssueTodosMovedDifferently(t *testing.T) {
	todos := "- [/] Register the app\n- [ ] Write the callback\n- [ ] Test it\n"
	ours := edited(t, mergeBase, todos, "- [ ] Test it\n- [/] Register the app\n- [ ] Write the callback\n")
	theirs := edited(t, mergeBase, todos, "- [/] Write the callback\n- [ ] Register the app\n- [ ] Test it\n")
	_, conflicts := MergeIssue([]byte(mergeBase), []byte(ours), []byte(theirs), "ours", "theirs")
	if !slices.Contains(conflicts, "the order of the todos") {
		t.Fatalf("conflicts %q, want the order of the todos", conflicts)
	}
}

// TestMergeIssueAddedOnBothSides: git gives an empty base for a file
// both sides added (add/add), as a branch that created an issue, was
// squash-landed and merged main back sees it. The copies merge as two
// additions to an issue with nothing in it: what they hold alike is kept
// once, labels and todos are joined, and only the keys they give
// different values are marked, not the whole file.
func TestMergeIssueAddedOnBothSides(t *testing.T) {
	const file = `---
id: td-qkm5oz
title: Sign in with GitHub
created_by: ses_qmt3y9ft
created_at: 2026-11-21T10:00:00Z

status: open
resolution: ""

implementer: ""

assignee: ""

labels: []
---

Users sign in with GitHub.

## Acceptance criteria

## Todos

- [/] Register the app
`
	ours := edited(t, file, "labels: []", "labels:\n  - auth", "- [/] Register the app\n", "- [/] Register the app\n- [ ] Write the callback\n")
	theirs := edited(t, file, "status: open", "status: in_progress", `implementer: ""`, "implementer: ses_qmt3y9ft", "labels: []", "labels:\n  - ui")
	got, conflicts := MergeIssue(nil, []byte(ours), []byte(theirs), "ours", "theirs")
	if !slices.Equal(conflicts, []string{"the field status", "the field implementer"}) {
		t.Fatalf("conflicts %q", conflicts)
	}
	want := edited(t, file, "status: open\n", "<<<<<<< ours\nstatus: open\n=======\nstatus: in_progress\n>>>>>>> theirs\n",
		"implementer: \"\"\n", "<<<<<<< ours\nimplementer: \"\"\n=======\nimplementer: ses_qmt3y9ft\n>>>>>>> theirs\n",
		"labels: []", "labels:\n  - auth\n  - ui", "- [/] Register the app\n", "- [/] Register the app\n- [ ] Write the callback\n")
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// The same copies with the status alike merge cleanly.
	theirs = edited(t, file, "labels: []", "labels:\n  - ui")
	got, conflicts = MergeIssue(nil, []byte(ours), []byte(theirs), "ours", "theirs")
	want = edited(t, file, "labels: []", "labels:\n  - auth\n  - ui", "- [/] Register the app\n", "- [/] Register the app\n- [ ] Write the callback\n")
	if conflicts != nil || string(got) != want {
		t.Fatalf("conflicts %q, got\n%s\nwant\n%s", conflicts, got, want)
	}
}

// TestMergeIssueStatusPair pins that the status and the resolution merge
// as one: the side whose status the merge takes brings its resolution.
func TestMergeIssueStatusPair(t *testing.T) {
	file := func(status, resolution, priority string) []byte {
		return []byte("---\nid: td-qkm5oz\ntitle: Sign in\n\nstatus: " + status + "\nresolution: " + resolution +
			"\n\nimplementer: \"\"\n\npriority: " + priority + "\n---\n\nText.\n")
	}
	base := file("in_progress", `""`, "P2")
	closed := file("closed", "wontfix", "P2")
	review := file("in_review", `""`, "P2")
	for _, tc := range []struct {
		name         string
		ours, theirs []byte
		prefer       Preference
		want         string // the status and resolution lines, or "conflict"
	}{
		{"one side closes", closed, file("in_progress", `""`, "P1"), 0, "status: closed\nresolution: wontfix\n"},
		{"both moved it: a conflict on the pair", closed, review, 0, "conflict"},
		{"both moved it, theirs kept: theirs' resolution too", closed, review, PreferTheirs, "status: in_review\nresolution: \"\"\n"},
		{"both moved it, ours kept", closed, review, PreferOurs, "status: closed\nresolution: wontfix\n"},
		{"only the resolution on one side, the status on the other", file("in_progress", "wontfix", "P2"), review, 0, "conflict"},
	} {
		m := MergeIssueWith(base, tc.ours, tc.theirs, MergeOptions{Prefer: map[string]Preference{"status": tc.prefer}})
		if tc.prefer == 0 {
			m = MergeIssueWith(base, tc.ours, tc.theirs, MergeOptions{})
		}
		if tc.want == "conflict" {
			if len(m.Conflicts) == 0 {
				t.Errorf("%s: merged cleanly:\n%s", tc.name, m.Data)
			} else if !bytes.Contains(m.Data, []byte("<<<<<<< ours\nstatus: closed\n")) && !bytes.Contains(m.Data, []byte("<<<<<<< ours\nstatus: in_progress\n")) {
				t.Errorf("%s: the status is not marked:\n%s", tc.name, m.Data)
			}
			continue
		}
		if len(m.Conflicts) > 0 || !bytes.Contains(m.Data, []byte(tc.want)) {
			t.Errorf("%s: conflicts %q, got\n%s\nwant it to hold\n%s", tc.name, m.Conflicts, m.Data, tc.want)
		}
	}
}
