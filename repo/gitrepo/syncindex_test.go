package gitrepo

import "testing"

// TestSyncIndexFollowsCoreFsync: the index is synced when written only
// where git would sync it, by core.fsync's component list.
func TestSyncIndexFollowsCoreFsync(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string // "" leaves core.fsync unset
		want  bool
	}{
		{"", false},
		{"committed", false},
		{"objects,reference", false},
		{"index", true},
		{"added", true},
		{"all", true},
		{"All, -loose-object", true},
		{"index,none", false},
		{"none,index", true},
		{"-index", false},
	} {
		r := newRepo(t)
		if tc.value != "" {
			if err := r.SetConfigValue("core", "", "fsync", tc.value); err != nil {
				t.Fatal(err)
			}
		}
		if got := r.syncIndex(); got != tc.want {
			t.Errorf("core.fsync=%q: syncIndex() = %v, want %v", tc.value, got, tc.want)
		}
	}
}
