package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestStoredEdge(t *testing.T) {
	for _, tc := range []struct {
		from, kind, to string
		want           Edge
		bad            bool
	}{
		{"a", "child_of", "b", Edge{"a", domain.ChildOf, "b"}, false},
		{"a", "duplicate_of", "b", Edge{"a", domain.DuplicateOf, "b"}, false},
		{"a", "blocked_by", "b", Edge{"a", domain.BlockedBy, "b"}, false},
		{"a", "relates_to", "b", Edge{"a", domain.RelatesTo, "b"}, false},
		{"a", " Child_Of ", "b", Edge{"a", domain.ChildOf, "b"}, false},
		// Inverses are stored on the other issue.
		{"a", "parent_of", "b", Edge{"b", domain.ChildOf, "a"}, false},
		{"a", "duplicated_by", "b", Edge{"b", domain.DuplicateOf, "a"}, false},
		{"a", "blocks", "b", Edge{"b", domain.BlockedBy, "a"}, false},
		{"a", "depends_on", "b", Edge{}, true},
		{"a", "", "b", Edge{}, true},
	} {
		got, err := StoredEdge(tc.from, tc.kind, tc.to)
		var ke *KindError
		if tc.bad != errors.As(err, &ke) {
			t.Errorf("StoredEdge(%q, %q, %q) error %v, want bad=%v", tc.from, tc.kind, tc.to, err, tc.bad)
		}
		if got != tc.want {
			t.Errorf("StoredEdge(%q, %q, %q) = %v, want %v", tc.from, tc.kind, tc.to, got, tc.want)
		}
	}
	_, err := StoredEdge("a", "depends_on", "b")
	want := `link kind "depends_on" must be one of child_of, duplicate_of, blocked_by, relates_to (or an inverse: parent_of, duplicated_by, blocks)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestStoredEdgeMapsInversesBack(t *testing.T) {
	for _, k := range domain.LinkKinds() {
		if k2, err := StoredEdge("a", string(k.Inverse()), "b"); err != nil || k2.Kind != k {
			t.Errorf("the inverse of %s does not map back: %v %v", k, k2, err)
		}
	}
}

func TestCheckLink(t *testing.T) {
	e := func(from string, kind domain.LinkKind, to string) Edge { return Edge{from, kind, to} }
	rows := []struct {
		name     string
		existing []Edge
		add      Edge
		refusal  string // "" when allowed
	}{
		{"a first link", nil, e("a", domain.ChildOf, "b"), ""},
		{"every kind", []Edge{e("a", domain.ChildOf, "b")}, e("a", domain.BlockedBy, "b"), ""},
		{"self link", nil, e("a", domain.RelatesTo, "a"), "a cannot be linked to itself; name another issue"},
		{"self child", nil, e("a", domain.ChildOf, "a"), "a cannot be linked to itself; name another issue"},
		{"twice", []Edge{e("a", domain.BlockedBy, "b")}, e("a", domain.BlockedBy, "b"),
			"already linked: a blocked_by b; td links a shows every link"},
		{"relates_to is stored once for both ends", []Edge{e("a", domain.RelatesTo, "b")}, e("b", domain.RelatesTo, "a"),
			"already linked: a relates_to b (relates_to goes both ways); td links b shows every link"},
		{"a duplicate of its own duplicate", []Edge{e("a", domain.DuplicateOf, "b")}, e("b", domain.DuplicateOf, "a"),
			"b duplicate_of a would make a cycle: b duplicate_of a duplicate_of b; duplicate_of links may not loop, so remove one of them with td unlink first"},
		{"blocked_by both ways is a cycle", []Edge{e("a", domain.BlockedBy, "b")}, e("b", domain.BlockedBy, "a"),
			"b blocked_by a would make a cycle: b blocked_by a blocked_by b; blocked_by links may not loop, so remove one of them with td unlink first"},
		{"one parent", []Edge{e("a", domain.ChildOf, "c")}, e("a", domain.ChildOf, "b"),
			"a is already child_of c and an issue has one parent; td unlink a child_of c first"},
		{"one original", []Edge{e("a", domain.DuplicateOf, "c")}, e("a", domain.DuplicateOf, "b"),
			"a is already duplicate_of c and an issue has one original; td unlink a duplicate_of c first"},
		{"many blockers", []Edge{e("a", domain.BlockedBy, "c")}, e("a", domain.BlockedBy, "b"), ""},
		{"many children", []Edge{e("c", domain.ChildOf, "b")}, e("a", domain.ChildOf, "b"), ""},
		{"a three-step cycle", []Edge{e("b", domain.ChildOf, "c"), e("c", domain.ChildOf, "a")}, e("a", domain.ChildOf, "b"),
			"a child_of b would make a cycle: a child_of b child_of c child_of a; child_of links may not loop, so remove one of them with td unlink first"},
		{"other kinds do not close a cycle", []Edge{e("b", domain.BlockedBy, "a")}, e("a", domain.ChildOf, "b"), ""},
		{"a diamond is no cycle", []Edge{e("a", domain.BlockedBy, "b"), e("a", domain.BlockedBy, "c"), e("b", domain.BlockedBy, "d")}, e("c", domain.BlockedBy, "d"), ""},
		{"relates_to may loop", []Edge{e("b", domain.RelatesTo, "c"), e("c", domain.RelatesTo, "a")}, e("a", domain.RelatesTo, "b"), ""},
		{"unknown kind", nil, e("a", "depends_on", "b"),
			`link kind "depends_on" must be one of child_of, duplicate_of, blocked_by, relates_to (or an inverse: parent_of, duplicated_by, blocks)`},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLink(tc.existing, tc.add)
			got := ""
			if err != nil {
				got = err.Error()
				var re *RefusalError
				var ke *KindError
				if !errors.As(err, &re) && !errors.As(err, &ke) {
					t.Errorf("error %T is neither a refusal nor a kind error", err)
				}
			}
			if got != tc.refusal {
				t.Errorf("got %q\nwant %q", got, tc.refusal)
			}
		})
	}
}

func TestCycle(t *testing.T) {
	e := func(from, to string) Edge { return Edge{from, domain.ChildOf, to} }
	for _, tc := range []struct {
		name     string
		existing []Edge
		add      Edge
		want     []string
	}{
		{"none", []Edge{e("b", "c")}, e("a", "b"), nil},
		{"two", []Edge{e("b", "a")}, e("a", "b"), []string{"a", "b", "a"}},
		{"shortest of two", []Edge{e("b", "c"), e("c", "d"), e("d", "a"), e("b", "a")}, e("a", "b"), []string{"a", "b", "a"}},
		{"long", []Edge{e("b", "c"), e("c", "d"), e("d", "a")}, e("a", "b"), []string{"a", "b", "c", "d", "a"}},
		{"a cycle elsewhere is not this one's", []Edge{e("c", "d"), e("d", "c")}, e("a", "c"), nil},
		{"relates_to never", []Edge{{"b", domain.RelatesTo, "a"}}, Edge{"a", domain.RelatesTo, "b"}, nil},
	} {
		if got := Cycle(tc.existing, tc.add); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFindLinkAndNoSuchLink(t *testing.T) {
	stored := []Edge{{"a", domain.ChildOf, "p"}, {"x", domain.RelatesTo, "a"}}
	if got, ok := FindLink(stored, Edge{"a", domain.RelatesTo, "x"}); !ok || got != (Edge{"x", domain.RelatesTo, "a"}) {
		t.Errorf("relates_to from the other end: got %v %v", got, ok)
	}
	if _, ok := FindLink(stored, Edge{"p", domain.ChildOf, "a"}); ok {
		t.Errorf("a directional link matched backwards")
	}
	for _, tc := range []struct {
		links []Edge
		want  string
	}{
		{nil, "a has no links, so there is no blocked_by link to b to remove"},
		{stored, "a has no blocked_by link to b; its links: a child_of p, a relates_to x"},
	} {
		err := NoSuchLink(Edge{"a", domain.BlockedBy, "b"}, tc.links)
		var re *RefusalError
		if !errors.As(err, &re) || err.Error() != tc.want {
			t.Errorf("got %v, want refusal %q", err, tc.want)
		}
	}
}

func TestCycles(t *testing.T) {
	edges := func(pairs ...string) []Edge {
		var out []Edge
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, Edge{From: pairs[i], Kind: domain.ChildOf, To: pairs[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		edges []Edge
		want  []string
	}{
		{"none", nil, nil},
		{"a chain is not a cycle", edges("td-aaaaaa", "td-bbbbbb", "td-bbbbbb", "td-cccccc"), nil},
		{"one per group, from its smallest ID, sorted", edges(
			"td-gggggg", "td-hhhhhh", "td-hhhhhh", "td-gggggg",
			"td-aaaaaa", "td-bbbbbb", "td-bbbbbb", "td-cccccc", "td-cccccc", "td-aaaaaa", "td-cccccc", "td-dddddd",
			"td-dddddd", "td-eeeeee",
			"td-ffffff", "td-ffffff",
		), []string{
			"td-aaaaaa child_of td-bbbbbb child_of td-cccccc child_of td-aaaaaa",
			"td-ffffff child_of td-ffffff",
			"td-gggggg child_of td-hhhhhh child_of td-gggggg",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range Cycles(tc.edges) {
				got = append(got, cyclePath(c, domain.ChildOf))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("cycles:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
