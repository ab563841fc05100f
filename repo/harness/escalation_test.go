package harness

import (
	"strings"
	"testing"
)

func TestEscalation(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		deny string // a word the denial must hold; "" for none
	}{
		{"td approve td-qkm5oz --reason ok", "td review"},
		{"TD_SESSION= td approve qkm", "td review"},
		{"env -u TD_SESSION td approve qkm", "td review"},
		{"cd /repo && /usr/local/bin/td approve qkm", "td review"},
		{"echo $(td approve qkm)", "td review"},
		{"td --session ses_x approve qkm", "td review"},
		{"td session start --name me", "--agent PATH"},
		{"td session start --use", "--agent PATH"},
		{"td session start --agent primary.subagents.ui", ""},
		{"td session start --agent=primary", ""},
		{"td session use ses_x", "TD_SESSION"},
		{"td feature set balanced_review_policy false", "td feature set"},
		{"td feature unset balanced_review_policy", "td feature unset"},
		{"td feature list", ""},
		{"td operator add 'Eve <eve@example.com>'", "td operator add"},
		{"td operator rm lead@example.com", "td operator rm"},
		{"td operator list", ""},
		{"td review qkm; td show qkm", ""},
		{"td close qkm --override-open-criteria 'shipped anyway'", "td review ID"},
		{"td close qkm --self-close-exception=urgent", "--self-close-exception"},
		{"td close qkm --reason done", ""},
		{"git commit -m 'td approve later'", ""},
		{`echo "td approve qkm"`, ""},
		{"grep -r 'td session use' docs", ""},
		{"td list --assignee approve", ""},
		{"go test ./... | tee out.txt", ""},
		{"", ""},
	} {
		got := Escalation(c.cmd)
		switch {
		case c.deny == "" && got != "":
			t.Errorf("Escalation(%q) = %q, want none", c.cmd, got)
		case c.deny != "" && !strings.Contains(got, c.deny):
			t.Errorf("Escalation(%q) = %q, want a denial naming %q", c.cmd, got, c.deny)
		}
	}
}
