package markdown

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func lines(ss ...string) string { return strings.Join(ss, "\n") + "\n" }

func TestMergeLines(t *testing.T) {
	base := lines("a", "b", "c", "d", "e")
	tests := []struct {
		name         string
		ours, theirs string
		want         string
		conflict     bool
	}{
		{"no change", base, base, base, false},
		{"ours only", lines("a", "B", "c", "d", "e"), base, lines("a", "B", "c", "d", "e"), false},
		{"theirs only", base, lines("a", "b", "c", "D", "e"), lines("a", "b", "c", "D", "e"), false},
		{"different lines", lines("A", "b", "c", "d", "e"), lines("a", "b", "c", "d", "E"), lines("A", "b", "c", "d", "E"), false},
		{"same change both", lines("a", "X", "c", "d", "e"), lines("a", "X", "c", "d", "e"), lines("a", "X", "c", "d", "e"), false},
		{"insert and delete apart", lines("a", "a2", "b", "c", "d", "e"), lines("a", "b", "c", "e"), lines("a", "a2", "b", "c", "e"), false},
		{"append both at end", lines("a", "b", "c", "d", "e", "f"), lines("a", "b", "c", "d", "e", "g"),
			lines("a", "b", "c", "d", "e", "<<<<<<< ours", "f", "=======", "g", ">>>>>>> theirs"), true},
		{"conflicting change", lines("a", "b1", "c", "d", "e"), lines("a", "b2", "c", "d", "e"),
			lines("a", "<<<<<<< ours", "b1", "=======", "b2", ">>>>>>> theirs", "c", "d", "e"), true},
		{"adjacent changes conflict", lines("a", "B", "c", "d", "e"), lines("a", "b", "C", "d", "e"),
			lines("a", "<<<<<<< ours", "B", "c", "=======", "b", "C", ">>>>>>> theirs", "d", "e"), true},
		{"delete vs edit", lines("a", "c", "d", "e"), lines("a", "B", "c", "d", "e"),
			lines("a", "<<<<<<< ours", "=======", "B", ">>>>>>> theirs", "c", "d", "e"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, conflict := MergeLines([]byte(base), []byte(tt.ours), []byte(tt.theirs), "ours", "theirs")
			if string(got) != tt.want || conflict != tt.conflict {
				t.Fatalf("got (conflict %v)\n%s\nwant (conflict %v)\n%s", conflict, got, tt.conflict, tt.want)
			}
		})
	}
}

func TestMergeLinesTakesAnIdenticalInsertionOnce(t *testing.T) {
	// Both sides insert a heading and a blank line before the last line;
	// ours also edits the first line, which leads a shortest edit script to
	// place its insertion one line higher than theirs.
	base := lines("a", "t", "", "n")
	ours := lines("A", "t", "", "h", "", "n")
	theirs := lines("a", "t", "", "h", "", "n")
	got, conflict := MergeLines([]byte(base), []byte(ours), []byte(theirs), "ours", "theirs")
	if want := lines("A", "t", "", "h", "", "n"); conflict || string(got) != want {
		t.Fatalf("got (conflict %v)\n%s\nwant\n%s", conflict, got, want)
	}
}

func TestMergeLinesKeepsCRLFAndMissingFinalNewline(t *testing.T) {
	base := "a\r\nb\r\nc"
	got, conflict := MergeLines([]byte(base), []byte("A\r\nb\r\nc"), []byte("a\r\nb\r\nC"), "o", "t")
	if conflict || string(got) != "A\r\nb\r\nC" {
		t.Fatalf("got %q, conflict %v", got, conflict)
	}
	got, conflict = MergeLines([]byte(base), []byte("a\r\nb\r\nx"), []byte("a\r\nb\r\ny"), "o", "t")
	if !conflict || string(got) != "a\r\nb\r\n<<<<<<< o\r\nx\r\n=======\r\ny\r\n>>>>>>> t\r\n" {
		t.Fatalf("got %q, conflict %v", got, conflict)
	}
}

// randomEdit deletes, inserts and changes random lines.
func randomEdit(rng *rand.Rand, in []string) []string {
	out := append([]string{}, in...)
	for n := rng.IntN(4); n > 0; n-- {
		switch p := rng.IntN(len(out) + 1); rng.IntN(3) {
		case 0:
			if p < len(out) {
				out = append(out[:p], out[p+1:]...)
			}
		case 1:
			out = append(out[:p], append([]string{"new" + string(rune('a'+rng.IntN(26)))}, out[p:]...)...)
		default:
			if p < len(out) {
				out[p] = out[p] + "!"
			}
		}
	}
	return out
}

func TestMergeLinesProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for it := 0; it < 3000; it++ {
		var o []string
		for n := rng.IntN(12); n > 0; n-- {
			o = append(o, string(rune('a'+rng.IntN(5))))
		}
		a, b := randomEdit(rng, o), randomEdit(rng, o)
		O, A, B := join(o), join(a), join(b)
		checkMergeProperties(t, O, A, B)
	}
}

func join(ss []string) []byte {
	if len(ss) == 0 {
		return nil
	}
	return []byte(strings.Join(ss, "\n") + "\n")
}

func checkMergeProperties(t *testing.T, O, A, B []byte) {
	t.Helper()
	if got, c := MergeLines(O, A, A, "o", "t"); c || !bytes.Equal(got, A) {
		t.Fatalf("merge(O,A,A) != A\nO=%q\nA=%q\ngot %q", O, A, got)
	}
	if got, c := MergeLines(O, O, B, "o", "t"); c || !bytes.Equal(got, B) {
		t.Fatalf("merge(O,O,B) != B\nO=%q\nB=%q\ngot %q", O, B, got)
	}
	if got, c := MergeLines(O, A, O, "o", "t"); c || !bytes.Equal(got, A) {
		t.Fatalf("merge(O,A,O) != A\nO=%q\nA=%q\ngot %q", O, A, got)
	}
	ab, c1 := MergeLines(O, A, B, "o", "t")
	ba, c2 := MergeLines(O, B, A, "o", "t")
	if c1 != c2 {
		t.Fatalf("conflict is not symmetric\nO=%q\nA=%q\nB=%q", O, A, B)
	}
	if !c1 && !bytes.Equal(ab, ba) {
		t.Fatalf("clean merge is not symmetric\nO=%q\nA=%q\nB=%q\nab=%q\nba=%q", O, A, B, ab, ba)
	}
}

func TestMyersFindsAShortestScript(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 2000; it++ {
		var x, y [][]byte
		for n := rng.IntN(15); n > 0; n-- {
			x = append(x, []byte{byte('a' + rng.IntN(3))})
		}
		for n := rng.IntN(15); n > 0; n-- {
			y = append(y, []byte{byte('a' + rng.IntN(3))})
		}
		m, ok := myers(x, y)
		if !ok {
			t.Fatal("gave up on a small input")
		}
		pi, pj := -1, -1
		for _, p := range m {
			if p[0] <= pi || p[1] <= pj || !bytes.Equal(x[p[0]], y[p[1]]) {
				t.Fatalf("bad match %v in %v for %q %q", p, m, x, y)
			}
			pi, pj = p[0], p[1]
		}
		if want := lcsLen(x, y); len(m) != want {
			t.Fatalf("%d matches, the longest common subsequence has %d (%q, %q)", len(m), want, x, y)
		}
	}
}

func lcsLen(x, y [][]byte) int {
	dp := make([][]int, len(x)+1)
	for i := range dp {
		dp[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if bytes.Equal(x[i], y[j]) {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func FuzzMergeLines(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nb\nC\n"))
	f.Add([]byte("a\r\nb"), []byte("x\r\nb"), []byte("a\r\ny"))
	f.Add([]byte(""), []byte("new\n"), []byte("other\n"))
	f.Add([]byte("---\nid: td-abc123\n---\n- [ ] one\n- [ ] two\n"), []byte("---\nid: td-abc123\n---\n- [x] one\n- [ ] two\n"), []byte("---\nid: td-abc123\n---\n- [ ] one\n- [x] two\n"))
	f.Fuzz(func(t *testing.T, O, A, B []byte) {
		checkMergeProperties(t, O, A, B)
	})
}
