package policy

import (
	"reflect"
	"testing"
)

func TestStalls(t *testing.T) {
	kinds := func(ss []Stall) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Kind)
		}
		return out
	}
	tests := []struct {
		name  string
		facts StallFacts
		want  []string
	}{
		{"nothing yet", StallFacts{}, nil},
		{"two repeats", StallFacts{SameErrorRun: 2, Errors: 2}, nil},
		{"three repeats", StallFacts{SameErrorRun: 3, Errors: 3}, []string{StallRepeatedError}},
		{"four changes without progress", StallFacts{NoProgressRun: 4}, nil},
		{"five changes without progress", StallFacts{NoProgressRun: 5}, []string{StallNoProgress}},
		{"twenty errors", StallFacts{Errors: 20}, nil},
		{"twenty-one errors", StallFacts{Errors: 21}, []string{StallManyErrors}},
		{"all three", StallFacts{SameErrorRun: 7, NoProgressRun: 9, Errors: 30}, []string{StallRepeatedError, StallNoProgress, StallManyErrors}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kinds(Stalls(tt.facts)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Stalls(%+v) = %v, want %v", tt.facts, got, tt.want)
			}
		})
	}
}

func TestErrorSignature(t *testing.T) {
	same := [][2][2]string{
		{{"build failed: 3 errors", "main.go:12"}, {"build  failed:\n7 errors", "main.go:12"}},
		{{"Timeout after 30s", ""}, {"timeout after 45s", ""}},
		{{"x", " a.go:1 "}, {"x", "a.go:1"}},
	}
	for _, p := range same {
		if a, b := ErrorSignature(p[0][0], p[0][1]), ErrorSignature(p[1][0], p[1][1]); a != b {
			t.Errorf("%q and %q should share a signature: %s != %s", p[0], p[1], a, b)
		}
	}
	differ := [][2][2]string{
		{{"build failed", "main.go:12"}, {"build failed", "main.go:13"}},
		{{"build failed", ""}, {"test failed", ""}},
		{{"ab", ""}, {"a b", ""}},
	}
	for _, p := range differ {
		if a, b := ErrorSignature(p[0][0], p[0][1]), ErrorSignature(p[1][0], p[1][1]); a == b {
			t.Errorf("%q and %q should differ, both %s", p[0], p[1], a)
		}
	}
	if n := len(ErrorSignature("x", "")); n != 12 {
		t.Errorf("signature length %d, want 12", n)
	}
}
