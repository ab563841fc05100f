package command

import "testing"

func TestOperatorListOptions(t *testing.T) {
	testParse(t, (*runner).operatorListCommand, []parseCase[OperatorListOptions]{
		{name: "list", argv: []string{"list"}, want: OperatorListOptions{}},
		{name: "session", argv: []string{"list", "--session", "s-1"}, want: OperatorListOptions{Session: "s-1"}},
		{name: "argument", argv: []string{"list", "x"}, usage: true},
	})
}

func TestOperatorAddOptions(t *testing.T) {
	testParse(t, (*runner).operatorAddCommand, []parseCase[OperatorAddOptions]{
		{name: "identity", argv: []string{"add", "Bob <bob@example.com>"}, want: OperatorAddOptions{Identity: "Bob <bob@example.com>"}},
		{name: "session", argv: []string{"add", "b@x.org", "--session", "s-1"}, want: OperatorAddOptions{Session: "s-1", Identity: "b@x.org"}},
		{name: "none", argv: []string{"add"}, usage: true},
		{name: "unquoted", argv: []string{"add", "Bob", "<bob@example.com>"}, usage: true},
	})
}

func TestOperatorRmOptions(t *testing.T) {
	testParse(t, (*runner).operatorRmCommand, []parseCase[OperatorRmOptions]{
		{name: "email", argv: []string{"rm", "bob@example.com"}, want: OperatorRmOptions{Who: "bob@example.com"}},
		{name: "yes", argv: []string{"rm", "--yes", "Alice"}, want: OperatorRmOptions{Who: "Alice", Yes: true}},
		{name: "none", argv: []string{"rm"}, usage: true},
	})
}
