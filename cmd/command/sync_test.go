package command

import "testing"

func TestSyncOptions(t *testing.T) {
	testParse(t, (*runner).syncCommand, []parseCase[SyncOptions]{
		{name: "default remote", argv: []string{"sync"}, want: SyncOptions{}},
		{name: "named", argv: []string{"sync", "upstream"}, want: SyncOptions{Remote: "upstream"}},
		{name: "two remotes", argv: []string{"sync", "a", "b"}, usage: true},
	})
}
