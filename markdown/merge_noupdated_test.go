package markdown

import (
	"strings"
	"testing"
)

// TestMergeWithAndWithoutUpdatedAt: td no longer writes updated_at, so
// issue files come with it (written by an older td, kept frozen) and
// without it. Both merge clean through the driver and through git's own
// line merge when the sides changed different fields and todos on lines
// that are not adjacent; a key one side deleted by hand stays deleted.
func TestMergeWithAndWithoutUpdatedAt(t *testing.T) {
	without := strings.Replace(mergeBase, "updated_at: 2026-11-21T10:00:00Z\n", "", 1)
	for _, tc := range []struct {
		name, base string
	}{
		{"with updated_at", mergeBase},
		{"without updated_at", without},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours := edited(t, tc.base, "title: Sign in with GitHub", "title: Sign in with GitHub or GitLab", "- [ ] Test it", "- [x] Test it")
			theirs := edited(t, tc.base, "priority: P2", "priority: P1", "- [/] Register the app", "- [x] Register the app")
			want := edited(t, tc.base, "title: Sign in with GitHub", "title: Sign in with GitHub or GitLab", "priority: P2", "priority: P1",
				"- [ ] Test it", "- [x] Test it", "- [/] Register the app", "- [x] Register the app")
			got, conflicts := MergeIssue([]byte(tc.base), []byte(ours), []byte(theirs), "ours", "theirs")
			if conflicts != nil || string(got) != want {
				t.Fatalf("driver: conflicts %q, got\n%s", conflicts, got)
			}
			lines, conflict := MergeLines([]byte(tc.base), []byte(ours), []byte(theirs), "ours", "theirs")
			if conflict || string(lines) != want {
				t.Fatalf("line merge: conflict %v, got\n%s", conflict, lines)
			}
		})
	}
	t.Run("one side deleted the key by hand", func(t *testing.T) {
		ours := edited(t, without, "priority: P2", "priority: P1")
		theirs := edited(t, mergeBase, "title: Sign in with GitHub", "title: Sign in with GitLab")
		want := edited(t, ours, "title: Sign in with GitHub", "title: Sign in with GitLab")
		got, conflicts := MergeIssue([]byte(mergeBase), []byte(ours), []byte(theirs), "ours", "theirs")
		if conflicts != nil || string(got) != want {
			t.Fatalf("conflicts %q, got\n%s", conflicts, got)
		}
	})
}
