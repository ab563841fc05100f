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
		{"td approve td-qkm5oz --reason ok", ""},
		{"TD_SESSION= td approve qkm", ""},
		{"td approve qkm --override-open-criteria 'shipped anyway'", "operator's override"},
		{"td approve qkm --override-open-criteria=later", "operator's override"},
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

// TestApprovals: the guard reads every td approve of a shell command, with
// the issue, the reason and the session it would act as, however the
// command sets or clears TD_SESSION.
func TestApprovals(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []Approval
	}{
		{"td approve td-qkm5oz --reason ok", []Approval{{Ref: "td-qkm5oz", Reason: "ok"}}},
		{"td approve qkm -m 'read the diff' --session ses_a", []Approval{{Ref: "qkm", Reason: "read the diff", Session: "ses_a"}}},
		{"td --session=ses_a approve --reason=ok qkm", []Approval{{Ref: "qkm", Reason: "ok", Session: "ses_a"}}},
		{"td -C /repo approve qkm", []Approval{{Ref: "qkm"}}},
		{"TD_SESSION=ses_b td approve qkm", []Approval{{Ref: "qkm", Session: "ses_b"}}},
		{"TD_SESSION= td approve qkm", []Approval{{Ref: "qkm", Unsets: true}}},
		{"env -u TD_SESSION td approve qkm", []Approval{{Ref: "qkm", Unsets: true}}},
		{"env TD_SESSION=ses_c td approve qkm", []Approval{{Ref: "qkm", Session: "ses_c"}}},
		{"TD_SESSION= td approve qkm --session ses_a", []Approval{{Ref: "qkm", Session: "ses_a"}}},
		{"cd /repo && /usr/local/bin/td approve qkm; td approve t3y", []Approval{{Ref: "qkm"}, {Ref: "t3y"}}},
		{"echo $(td approve qkm)", []Approval{{Ref: "qkm"}}},
		{"td approve", []Approval{{}}},
		{"td review qkm", nil},
		{"td list --assignee approve", nil},
		{`echo "td approve qkm"`, nil},
		{"git commit -m 'td approve later'", nil},
	} {
		got := Approvals(c.cmd)
		if len(got) != len(c.want) {
			t.Errorf("Approvals(%q) = %+v, want %+v", c.cmd, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Approvals(%q)[%d] = %+v, want %+v", c.cmd, i, got[i], c.want[i])
			}
		}
		if Guarded(c.cmd) != (len(c.want) > 0) {
			t.Errorf("Guarded(%q) = %v", c.cmd, Guarded(c.cmd))
		}
	}
}

// FuzzApprovals: reading any shell command never panics, finds a td
// approve only where the guard then has something to judge, and reads
// back the issue and the session of a command written the way an agent
// writes one, whatever follows it.
func FuzzApprovals(f *testing.F) {
	for _, seed := range []struct{ prefix, ref, session string }{
		{"", "td-qkm5oz", "ses_qmt3y9ft"},
		{"cd src && ", "qkm", "ses_oejv9dom"},
		{"TD_SESSION= ", "t3y", "ses_a"},
		{"env -u TD_SESSION ", "td-t3y9ft", "ses_b"},
		{"echo 'td approve x' | ", "848", "ses_c"},
		{"$(td approve y) ; ", "jv9", "ses_d"},
		{"\"unterminated ", "a", "ses_e"},
	} {
		f.Add(seed.prefix, seed.ref, seed.session)
	}
	f.Fuzz(func(t *testing.T, prefix, ref, session string) {
		for _, a := range Approvals(prefix) {
			if a.Session != "" && a.Unsets {
				t.Fatalf("%q: an approval both names %q and clears TD_SESSION", prefix, a.Session)
			}
		}
		if len(Approvals(prefix)) > 0 && !Guarded(prefix) {
			t.Fatalf("%q: an approval the guard would not judge", prefix)
		}
		if !plainWord(ref) || !plainWord(session) {
			return
		}
		cmd := "td approve " + ref + " --session " + session + "; " + prefix
		got := Approvals(cmd)
		if len(got) == 0 {
			t.Fatalf("%q: no approval read", cmd)
		}
		if first := got[0]; first.Ref != ref || first.Session != session || first.Unsets {
			t.Fatalf("%q: read %+v", cmd, first)
		}
	})
}

// plainWord reports whether s is a word a shell passes through unchanged
// and td does not read as a flag.
func plainWord(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
