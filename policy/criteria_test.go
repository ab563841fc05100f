package policy

import (
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestCloseWithOpenCriteria(t *testing.T) {
	cases := []struct {
		name     string
		role     domain.Role
		verb     string
		open     []string
		override string
		want     CriteriaDecision
	}{
		{name: "nothing open, agent", role: domain.RoleAgent, verb: "close", want: CriteriaDecision{Allowed: true}},
		{name: "nothing open, operator", role: domain.RoleOperator, verb: "approve", want: CriteriaDecision{Allowed: true}},
		{name: "nothing open ignores an override", role: domain.RoleOperator, verb: "close", override: "why", want: CriteriaDecision{Allowed: true}},
		{name: "agent is told to finish", role: domain.RoleAgent, verb: "close", open: []string{"a"},
			want: CriteriaDecision{Refusal: `cannot close td-x: 1 acceptance criterion is still open ("a"); finish it, then ask for sign-off with td review td-x: an operator signs off acceptance criteria`}},
		{name: "a member reviewer hears who finishes and who signs off", role: domain.RoleMember, verb: "approve", open: []string{"a"},
			want: CriteriaDecision{Refusal: `cannot approve td-x: 1 acceptance criterion is still open ("a"); the implementer finishes it (td reject td-x --reason sends it back), and an operator signs off acceptance criteria`}},
		{name: "member override does not count", role: domain.RoleMember, verb: "approve", open: []string{"a", "b"}, override: "shipped",
			want: CriteriaDecision{Refusal: `cannot approve td-x: 2 acceptance criteria are still open ("a", "b"); the implementer finishes them (td reject td-x --reason sends it back), and an operator signs off acceptance criteria`}},
		{name: "a member closing is told to finish", role: domain.RoleMember, verb: "close", open: []string{"a"},
			want: CriteriaDecision{Refusal: `cannot close td-x: 1 acceptance criterion is still open ("a"); finish it, then ask for sign-off with td review td-x: an operator signs off acceptance criteria`}},
		{name: "agent override does not count", role: domain.RoleAgent, verb: "close", open: []string{"a", "b"}, override: "I am confident",
			want: CriteriaDecision{Refusal: `cannot close td-x: 2 acceptance criteria are still open ("a", "b"); finish them, then ask for sign-off with td review td-x: an operator signs off acceptance criteria`}},
		{name: "operator without override", role: domain.RoleOperator, verb: "approve", open: []string{"a"},
			want: CriteriaDecision{Refusal: `cannot approve td-x: 1 acceptance criterion is still open ("a"); finish it, drop what no longer applies (td todo drop --issue td-x TEXT), or pass --override-open-criteria "why" (audited)`}},
		{name: "operator override", role: domain.RoleOperator, verb: "close", open: []string{"a"}, override: "shipped behind a flag",
			want: CriteriaDecision{Allowed: true, Override: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := CloseWithOpenCriteria(c.role, "td-x", c.verb, c.open, c.override)
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}
