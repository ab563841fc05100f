package command

import "testing"

func TestVersionOptions(t *testing.T) {
	testParse(t, (*runner).versionCommand, []parseCase[VersionOptions]{
		{name: "plain", argv: []string{"version"}, want: VersionOptions{}},
		{name: "json", argv: []string{"version", "--json"}, json: true, want: VersionOptions{}},
		{name: "unknown flag", argv: []string{"version", "--short"}, usage: true},
	})
}
