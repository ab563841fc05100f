package web

import (
	"path/filepath"
	"testing"
)

// TestTempNames holds the sweep of a killed run's leftovers to the names
// td gives its temporary files, and to nothing else.
func TestTempNames(t *testing.T) {
	made, err := tempBeside(filepath.Join("site", "issues", "td-abc123.html"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		filepath.Base(made):                  true,
		".index.html.tmp-0123456789ab":       true,
		".td-abc123.html.tmp-ABCDEF012345":   true,
		"index.html.tmp-0123456789ab":        false, // not a dot file
		".index.html.tmp-0123456789a":        false, // 11 digits
		".index.html.tmp-0123456789abc":      false,
		".index.html.tmp-0123456789ag":       false,
		".tmp-0123456789ab":                  false, // no page name
		".notes.tmp-mine":                    false,
		".td-site":                           false,
		"index.html":                         false,
		".index.html.tmp-0123456789ab.html":  false,
		"..index.html.tmp-0123456789ab":      true, // a page named ".index.html"
		".style.css.tmp-000000000000":        true,
		".style.css.tmp-000000000000\x00abc": false,
	} {
		if got := isTempName(name); got != want {
			t.Errorf("isTempName(%q) = %v, want %v", name, got, want)
		}
	}
}
