package markdown

import (
	"flag"
	"math/rand/v2"
	"strings"
	"testing"
)

// randFront returns a frontmatter near the subset the fast path reads:
// keys, scalars, flow collections and block sequences built from pieces
// chosen to sit on its edges.
func randFront(r *rand.Rand) []byte {
	good := []string{"a", "td-k3x9qa", "P2", "Fix the b: c", "\"q\\\"x\"", "false", "2026-11-21T10:04:11Z", "[a, b]", "{kind: child_of, to: td-a}", "é x"}
	edge := []string{
		"a", "td-k3x9qa", "P2", "true", "False", "NULL", "null", "yes", "~", "0", "12", "012", "1_0", "1e3",
		"0x1F", "-1", "+1", ".5", ".inf", "2026-11-21T10:04:11Z", "2026-02-30T10:04:11Z", "2026-11-21",
		"2026-11-21 10:04:11", "2026-11-21t10:04:11Z", "2026-11-21T10:04:11.5Z", "b c", "b  c", "b:c", "b: c",
		"b #c", "b#c", "x\"y", "x'y", "\"q\"", "\"q\\\"x\"", "\"\\x41\\u00e9\"", "\"\\/\"", "\"\\z\"",
		"'s'", "é", "\u00a0x", "x\u00a0", "日本", "🎉", "\u2028", "[]", "[a]", "[a, b]", "[a,b]", "[ a ]",
		"{}", "{a: b}", "{a: b, c: d}", "{a:b}", "{a: b, a: c}", "[{a: b}]", "[[a]]", "&x a", "*x", "!t a",
		"|", ">", "%", "@", "`", "-", "- a", "? a", "a?", "a,b", "a]", "a}", "a{b", "<<", "a\tb", "",
	}
	atom := func() string {
		if r.IntN(3) > 0 {
			return good[r.IntN(len(good))]
		}
		return edge[r.IntN(len(edge))]
	}
	seps := []string{": ", ": ", ": ", ":  ", ":", ": \n", ":\n", ":\n"}
	keys := []string{"id", "title", "labels", "x-k", "k_1", "true", "1", "a", "a", "A b", "b", "c", "d", "e"}
	var b strings.Builder
	for range 1 + r.IntN(5) {
		b.WriteString(keys[r.IntN(len(keys))])
		sep := seps[r.IntN(len(seps))]
		b.WriteString(sep)
		if sep == ":\n" {
			indent := strings.Repeat(" ", r.IntN(4))
			if r.IntN(2) == 0 {
				indent = "  "
			}
			for range r.IntN(4) + r.IntN(2) {
				b.WriteString(indent + "- " + atom() + "\n")
			}
			continue
		}
		if r.IntN(3) == 0 {
			b.WriteString("[" + atom() + ", " + atom() + "]")
		} else {
			b.WriteString(atom())
		}
		if r.IntN(20) > 0 {
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// randSeed varies TestFrontFastRandom's inputs: go test -args -seed N.
var randSeed = flag.Int("seed", 2, "seed of TestFrontFastRandom")

// TestFrontFastRandom compares the fast path with yaml.v3 on many
// frontmatters built from edge pieces, and checks it accepts enough of
// them for the comparison to mean something.
func TestFrontFastRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, uint64(*randSeed)))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	accepted := 0
	for range n {
		if checkFast(t, randFront(r)) {
			accepted++
		}
	}
	if accepted < n/20 {
		t.Errorf("the fast path accepted only %d of %d", accepted, n)
	}
	t.Logf("the fast path accepted %d of %d", accepted, n)
}
