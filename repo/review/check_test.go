package review

import (
	"fmt"
	"strings"
	"testing"
)

// ledgerOf writes entries named by letters as ledger lines.
func ledgerOf(names string) []byte {
	var b strings.Builder
	for _, n := range strings.Fields(names) {
		fmt.Fprintf(&b, `{"ts":"2026-11-21T10:00:00Z","session":"ses_%s","action":"commented","text":"%s"}`+"\n", strings.Repeat(strings.ToLower(n[:1]), 8), n)
	}
	return []byte(b.String())
}

func TestMissingLines(t *testing.T) {
	cases := []struct {
		name, base, cur string
		want            []string // "line:kind:later"
	}{
		{"unchanged", "A B C", "A B C", nil},
		{"appended", "A B", "A B C D", nil},
		{"union merge interleaves after the base", "A B", "A B X Y", nil},
		{"merge of the base into a branch that grew", "A B C", "A X B Y C Z", nil},
		{"first deleted", "A B C", "B C", []string{"1:deleted:0"}},
		{"middle deleted", "A B C", "A C D", []string{"2:deleted:0"}},
		{"last deleted", "A B C", "A B", []string{"3:deleted:0"}},
		{"moved to the end", "A B C", "B C A", []string{"1:moved:3"}},
		{"two deleted", "A B C D", "A D", []string{"2:deleted:0", "3:deleted:0"}},
		{"everything deleted", "A B", "", []string{"1:deleted:0", "2:deleted:0"}},
		// A squash merge, then main merged back: the branch's lines arrive
		// a second time, after main's own. Each base entry is still there.
		{"merge-back after a squash", "A Z B C", "A B C D Z B C", nil},
		{"a line the base holds twice is one entry", "A B C B C", "A B C", nil},
		// Order is that of each line's first copy: dropping the first B
		// puts C before every B, which no merge does.
		{"the first copy of a repeat dropped", "A B C B", "A C B D", []string{"3:moved:2"}},
		{"a repeated line deleted entirely", "A B C B", "A C", []string{"2:deleted:0"}},
		{"deleted, with other lines repeated", "A B C", "A C A C", []string{"2:deleted:0"}},
	}
	for _, c := range cases {
		got := []string{}
		for _, m := range missingLines(ledgerOf(c.base), ledgerOf(c.cur)) {
			kind, later := "deleted", 0
			switch {
			case m.changed > 0:
				kind, later = "changed", m.changed
			case m.moved > 0:
				kind, later = "moved", m.moved
			}
			got = append(got, fmt.Sprintf("%d:%s:%d", m.line, kind, later))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMissingLinesOrderFree pins which moves append-only forgives: a
// binding, a link or an edit that two histories merged in different
// orders is still there; a decision, a start, a minor flag or a comment
// moved is still reported.
func TestMissingLinesOrderFree(t *testing.T) {
	line := func(action, extra string) string {
		return `{"ts":"2026-11-21T10:00:00Z","session":"ses_aaaaaaaa","action":"` + action + `"` + extra + "}\n"
	}
	created := line("created", `,"title":"T"`)
	comment := line("commented", `,"text":"c"`) + line("commented", `,"text":"d"`)
	for _, tc := range []struct {
		name  string
		moved string
		want  bool // reported
	}{
		{"bound", line("bound", ""), false},
		{"unbound", line("unbound", ""), false},
		{"linked", line("linked", `,"kind":"blocked_by","to":"td-aaaaaa"`), false},
		{"edited priority", line("edited", `,"fields":["priority"],"priority":{"from":"P2","to":"P1"}`), false},
		{"edited minor", line("edited", `,"fields":["minor"],"minor":{"from":false,"to":true}`), true},
		{"approved", line("approved", `,"from":"in_review","to":"closed"`), true},
		{"started", line("started", `,"from":"open","to":"in_progress"`), true},
		{"security", `{"ts":"2026-11-21T10:00:00Z","session":"ses_aaaaaaaa","type":"security","action":"creator_approval","reason":"r"}` + "\n", true},
	} {
		base := created + tc.moved + comment
		cur := created + comment + tc.moved
		if got := len(missingLines([]byte(base), []byte(cur))) > 0; got != tc.want {
			t.Errorf("%s moved: reported %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMissingLinesChanged(t *testing.T) {
	base := ledgerOf("A B C")
	cur := []byte(strings.Replace(string(ledgerOf("A B C D")), `"text":"B"`, `"text":"b, reworded"`, 1))
	got := missingLines(base, cur)
	if len(got) != 1 || got[0].line != 2 || got[0].changed != 2 {
		t.Fatalf("%+v, want line 2 changed on line 2", got)
	}
	if d := got[0].describe("main"); d != "line 2 at main (commented by ses_bbbbbbbb at 2026-11-21T10:00:00Z) was changed on line 2" {
		t.Errorf("describe: %s", d)
	}
	// A line that does not parse is named by its bytes.
	got = missingLines([]byte("not json at all\n"), nil)
	if len(got) != 1 || got[0].describe("main") != `line 1 at main ("not json at all") was deleted` {
		t.Errorf("%+v", got)
	}
}

func TestAddedLines(t *testing.T) {
	cases := []struct{ name, base, cur, want string }{
		{"appended", "A B", "A B C D", "C D"},
		{"interleaved by a union merge", "A B", "A X B Y", "X Y"},
		{"a base line repeated is not added", "A B B", "A X B B B Y", "X Y"},
		{"merge-back after a squash", "A Z B C", "A B C D Z B C", "D"},
		{"a new line twice is added once", "A", "A X X Y X", "X Y"},
		{"nothing at the base", "", "A B A", "A B"},
		{"nothing added", "A B", "B A", ""},
	}
	for _, c := range cases {
		if got := string(addedLines(ledgerOf(c.base), ledgerOf(c.cur))); got != string(ledgerOf(c.want)) {
			t.Errorf("%s: added:\n%swant:\n%s", c.name, got, ledgerOf(c.want))
		}
	}
	if got := addedLines(nil, []byte("\n\n x \n")); string(got) != "x\n" {
		t.Errorf("blank lines: %q", got)
	}
}

func TestViolationString(t *testing.T) {
	if s := (Violation{Path: "a", Line: 3, Message: "m"}).String(); s != "a:3: m" {
		t.Error(s)
	}
	if s := (Violation{Path: "a", Message: "m"}).String(); s != "a: m" {
		t.Error(s)
	}
}
