package command

import (
	"strings"
	"testing"
)

func TestReorderArgs(t *testing.T) {
	app := (&runner{st: &streams{}, getenv: func(string) string { return "" }}).app()
	tests := []struct {
		in, want string
	}{
		// Flags after the positional move before it; values stay with their flags.
		{"td edit td-k3x -p P1", "td edit -p P1 -- td-k3x"},
		{"td edit -p P1 td-k3x", "td edit -p P1 -- td-k3x"},
		{"td create Fix the bug --type bug -l a", "td create --type bug -l a -- Fix the bug"},
		// A boolean flag takes no value: the word after it is positional.
		{"td create --minor Typo", "td create --minor -- Typo"},
		{"td edit x --minor=false", "td edit --minor=false -- x"},
		// Global flags go before the command wherever they stand.
		{"td show x --json", "td --json show -- x"},
		{"td show x -C sub", "td -C sub show -- x"},
		{"td --session ses_12345678 show x", "td --session ses_12345678 show -- x"},
		// Subcommands are found through the tree; their flags too.
		{"td session start --agent primary --name n", "td session start --agent primary --name n"},
		// After --, everything is positional, even what looks like a flag.
		{"td create -p P3 -- -v is a title", "td create -p P3 -- -v is a title"},
		// A positional equal to a command name is still positional once past the path.
		{"td show list", "td show -- list"},
		// Unknown flags are left for the parser to report.
		{"td create x --colour red", "td create --colour -- x red"},
		{"td", "td"},
		{"td list", "td list"},
	}
	for _, tt := range tests {
		got := strings.Join(reorderArgs(app, strings.Fields(tt.in)), " ")
		if got != tt.want {
			t.Errorf("reorderArgs(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestVersionOnly(t *testing.T) {
	tests := []struct {
		args          []string
		version, json bool
	}{
		{[]string{"td", "--version"}, true, false},
		{[]string{"td", "-v"}, true, false},
		{[]string{"td", "version"}, true, false},
		{[]string{"td", "--version", "--json"}, true, true},
		{[]string{"td", "--json", "version"}, true, true},
		{[]string{"td", "--json"}, false, false},
		{[]string{"td", "version", "--dir", "x"}, false, false},
		{[]string{"td", "list", "--version"}, false, false},
		{[]string{"td"}, false, false},
	}
	for _, tt := range tests {
		v, j := versionOnly(tt.args)
		if v != tt.version || j != tt.json {
			t.Errorf("versionOnly(%q) = %v, %v; want %v, %v", tt.args, v, j, tt.version, tt.json)
		}
	}
}
