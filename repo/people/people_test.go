package people

import (
	"testing"

	"github.com/tdproject/td/repo"
)

func TestParseIdentity(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "Ada Lovelace <ada@example.com>", want: "Ada Lovelace <ada@example.com>"},
		{in: "  Ada   <ada@example.com> ", want: "Ada <ada@example.com>"},
		{in: "ada@example.com", want: "ada@example.com"},
		{in: "Ada", err: `"Ada" has no email; give a git identity as "Name <email>": a name alone would match anyone who sets that user.name`},
		{in: "", err: `give a git identity as "Name <email>"`},
		{in: "Ada <ada>", err: `"Ada <ada>" is not a git identity such as "Ada Lovelace <ada@example.com>"`},
		{in: "Ada <a b@example.com>", err: `"Ada <a b@example.com>" is not a git identity such as "Ada Lovelace <ada@example.com>"`},
		{in: "Ada\n<ada@example.com>", err: `"Ada\n<ada@example.com>" holds a control character; give a git identity as "Name <email>"`},
	} {
		got, err := ParseIdentity(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseIdentity(%q) = %q, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseIdentity(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		op, who string
		want    bool
	}{
		{"Bob <bob@example.com>", "Bob <BOB@example.com>", true},
		{"Bob <bob@example.com>", "Robert <bob@example.com>", true},
		{"Bob <bob@example.com>", "bob@example.com", true},
		{"Bob <bob@example.com>", "bob", true},
		{"Bob <bob@example.com>", "Bob <bob@other.org>", false},
		{"Bob <bob@example.com>", "Alice", false},
		{"Bob", "Bob <bob@example.com>", true},
		{"Bob", "bob <bob@example.com>", true}, // names compare without case, as git's mailmap
		{"Bob", "bob@example.com", false},
		{"bob@example.com", "Bob <bob@example.com>", true},
	} {
		if got := Matches(c.op, c.who); got != c.want {
			t.Errorf("Matches(%q, %q) = %t, want %t", c.op, c.who, got, c.want)
		}
	}
}

func TestMatch(t *testing.T) {
	ops := []string{"Bob <bob@example.com>", "Bob <bob@work.example>", "Alice <alice@example.com>"}
	for _, c := range []struct {
		who  string
		want int
		code repo.Code
	}{
		{who: "Alice", want: 2},
		{who: "ALICE@example.com", want: 2},
		{who: "Bob <bob@work.example>", want: 1},
		{who: "Bob", code: repo.CodeAmbiguous},
		{who: "Carol", code: repo.CodeNotFound},
	} {
		got, err := match(ops, c.who)
		if c.code != "" {
			if repo.CodeOf(err) != c.code {
				t.Errorf("match(%q) = %d, %v; want code %s", c.who, got, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("match(%q) = %d, %v; want %d", c.who, got, err, c.want)
		}
	}
}

func TestName(t *testing.T) {
	for _, c := range []struct {
		se   repo.Session
		want string
	}{
		{repo.Session{Author: "Bob Stone <bob@example.com>"}, "Bob Stone"},
		{repo.Session{Author: "bob@example.com"}, "bob@example.com"},
		{repo.Session{Author: "Alice <alice@example.com>", Agent: "primary"}, "primary agent of Alice"},
		{repo.Session{Author: "Alice <alice@example.com>", Agent: "primary.subagents.ui"}, "primary.subagents.ui agent of Alice"},
		{repo.Session{}, "unknown"},
	} {
		if got := Name(&c.se); got != c.want {
			t.Errorf("Name(%+v) = %q, want %q", c.se, got, c.want)
		}
	}
}
