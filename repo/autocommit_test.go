package repo

import (
	"testing"
)

func TestCommitMessage(t *testing.T) {
	issue := ".todos/issues/td-aaaaaa.md"
	ledger := ".todos/history/td-aaaaaa.jsonl"
	for _, tc := range []struct {
		name  string
		note  commitNote
		actor string
		paths []string
		want  string
	}{
		{"a ledger action", commitNote{session: "ses_11111111", actions: []string{"closed"}, issues: []string{"td-aaaaaa"}}, "", []string{issue, ledger},
			"td: close td-aaaaaa\n\nTd-Session: ses_11111111\nTd-Action: closed\nTd-Issue: td-aaaaaa\n"},
		{"every action, the first in the subject", commitNote{session: "ses_11111111", actions: []string{"approved", "closed_against_criteria"}, issues: []string{"td-aaaaaa"}}, "ses_22222222", []string{issue, ledger},
			"td: approve td-aaaaaa\n\nTd-Session: ses_11111111\nTd-Action: approved\nTd-Action: closed_against_criteria\nTd-Issue: td-aaaaaa\n"},
		{"routine todo churn", commitNote{actions: []string{actionTodosChanged}, issues: []string{"td-aaaaaa"}}, "ses_22222222", []string{issue},
			"td: update the todos of td-aaaaaa\n\nTd-Session: ses_22222222\nTd-Action: todos_changed\nTd-Issue: td-aaaaaa\n"},
		{"a criterion outranks the churn", commitNote{session: "ses_11111111", actions: []string{actionTodosChanged, "criterion_completed"}, issues: []string{"td-aaaaaa"}}, "", []string{issue, ledger},
			"td: complete a criterion of td-aaaaaa\n\nTd-Session: ses_11111111\nTd-Action: criterion_completed\nTd-Issue: td-aaaaaa\n"},
		{"a session file", commitNote{}, "", []string{".todos/sessions/ses_33333333.yaml"},
			"td: start session ses_33333333\n\nTd-Session: ses_33333333\nTd-Action: session_started\n"},
		{"a session started by another", commitNote{}, "ses_22222222", []string{".todos/sessions/ses_33333333.yaml"},
			"td: start session ses_33333333\n\nTd-Session: ses_22222222\nTd-Action: session_started\n"},
		{"a policy flag", commitNote{}, "ses_22222222", []string{".todos/config.yaml", ".todos/security_events.jsonl"},
			"td: change the configuration\n\nTd-Session: ses_22222222\nTd-Action: config_changed\nTd-Action: security_event\n"},
		{"a security event alone", commitNote{}, "", []string{".todos/security_events.jsonl"},
			"td: record a security event\n\nTd-Action: security_event\n"},
		{"files of several issues", commitNote{}, "", []string{issue, ".todos/issues/td-bbbbbb.md", ".todos/issues/td-cccccc.md"},
			"td: update td-aaaaaa and 2 more issues\n\nTd-Action: updated\nTd-Issue: td-aaaaaa\nTd-Issue: td-bbbbbb\nTd-Issue: td-cccccc\n"},
		{"two issues", commitNote{session: "ses_11111111", actions: []string{"linked"}, issues: []string{"td-aaaaaa"}}, "", []string{issue, ".todos/history/td-bbbbbb.jsonl"},
			"td: link td-aaaaaa and td-bbbbbb\n\nTd-Session: ses_11111111\nTd-Action: linked\nTd-Issue: td-aaaaaa\nTd-Issue: td-bbbbbb\n"},
		{"an unknown action", commitNote{actions: []string{"creator_approval_exception"}, issues: []string{"td-aaaaaa"}}, "", []string{ledger},
			"td: creator approval exception td-aaaaaa\n\nTd-Action: creator_approval_exception\nTd-Issue: td-aaaaaa\n"},
		{"another file", commitNote{}, "", []string{".todos/anchors.md"},
			"td: updated\n\nTd-Action: updated\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := commitMessage(tc.note, tc.actor, tc.paths); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
