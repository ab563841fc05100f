package policy

import (
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestMayUnstart(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		role                     domain.Role
		session, implementer, id string
		want                     string
	}{
		{"implementer", domain.RoleAgent, "ses_a", "ses_a", "td-1", ""},
		{"operator", domain.RoleOperator, "ses_o", "ses_a", "td-1", ""},
		{"no implementer recorded", domain.RoleAgent, "ses_b", "", "td-1", ""},
		{"bystander agent", domain.RoleAgent, "ses_b", "ses_a", "td-1", "only ses_a, which is working on td-1, or an operator may hand it back with td unstart"},
		{"bystander without an issue ID", domain.RoleAgent, "ses_b", "ses_a", "", "only ses_a, which is working on this issue, or an operator may hand it back with td unstart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := MayUnstart(tc.role, tc.session, tc.implementer, tc.id)
			got := ""
			if err != nil {
				got = err.Error()
				if _, ok := err.(*RefusalError); !ok {
					t.Errorf("error %T is not a *RefusalError", err)
				}
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
