package command

import "testing"

func TestAuditVerifyOptions(t *testing.T) {
	testParse(t, (*runner).auditVerifyCommand, []parseCase[AuditVerifyOptions]{
		{name: "head", argv: []string{"verify"}, want: AuditVerifyOptions{}},
		{name: "base", argv: []string{"verify", "--base", "main"}, want: AuditVerifyOptions{Base: "main"}},
		{name: "argument", argv: []string{"verify", "main"}, usage: true},
	})
}
