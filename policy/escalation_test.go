package policy

import (
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestMayStartSession(t *testing.T) {
	cases := []struct {
		name          string
		acting        domain.Role
		operator, use bool
		want          string
	}{
		{name: "a person starts an operator session", acting: "", operator: true, use: true},
		{name: "an operator starts an agent", acting: domain.RoleOperator, operator: false},
		{name: "an operator starts another operator session", acting: domain.RoleOperator, operator: true, use: true},
		{name: "an agent starts a subagent", acting: domain.RoleAgent},
		{name: "an agent starts an operator session", acting: domain.RoleAgent, operator: true,
			want: "agent session ses_a cannot start an operator session; an operator starts one at their own terminal, without TD_SESSION"},
		{name: "an agent starts an operator session with --use", acting: domain.RoleAgent, operator: true, use: true,
			want: "agent session ses_a cannot start an operator session; an operator starts one at their own terminal, without TD_SESSION"},
		{name: "an agent switches the checkout", acting: domain.RoleAgent, use: true,
			want: "agent session ses_a cannot change which session this checkout acts as; start the session without --use and pass its export line on"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := MayStartSession(c.acting, "ses_a", c.operator, c.use)
			if got := errText(err); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestMayUseSession(t *testing.T) {
	for role, want := range map[domain.Role]string{
		"":                  "",
		domain.RoleOperator: "",
		domain.RoleAgent:    "agent session ses_a cannot change which session this checkout acts as; only a person at their own terminal runs td session use",
	} {
		if got := errText(MayUseSession(role, "ses_a")); got != want {
			t.Errorf("%q: got %q, want %q", role, got, want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
