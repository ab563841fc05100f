package command

import "testing"

func TestMergeDriverOptions(t *testing.T) {
	testParse(t, (*runner).mergeDriverCommand, []parseCase[MergeDriverOptions]{
		{name: "with path", argv: []string{"merge-driver", "b", "o", "t", ".todos/issues/td-k3x9qa.md"},
			want: MergeDriverOptions{Base: "b", Ours: "o", Theirs: "t", Path: ".todos/issues/td-k3x9qa.md"}},
		{name: "no path", argv: []string{"merge-driver", "b", "o", "t"}, want: MergeDriverOptions{Base: "b", Ours: "o", Theirs: "t", Path: "o"}},
		{name: "two files", argv: []string{"merge-driver", "b", "o"}, usage: true},
		{name: "five", argv: []string{"merge-driver", "b", "o", "t", "p", "x"}, usage: true},
	})
}
