package domain

import "testing"

func TestLinkKindInverse(t *testing.T) {
	for _, c := range []struct {
		kind, inverse    LinkKind
		stored, computed bool
	}{
		{ChildOf, ParentOf, true, false},
		{DuplicateOf, DuplicatedBy, true, false},
		{BlockedBy, Blocks, true, false},
		{RelatesTo, RelatesTo, true, false},
		{ParentOf, ChildOf, false, true},
		{DuplicatedBy, DuplicateOf, false, true},
		{Blocks, BlockedBy, false, true},
		{"x", "", false, false},
		{"", "", false, false},
	} {
		if got := c.kind.Inverse(); got != c.inverse {
			t.Errorf("%q.Inverse() = %q, want %q", c.kind, got, c.inverse)
		}
		if got := c.kind.Stored(); got != c.stored {
			t.Errorf("%q.Stored() = %v, want %v", c.kind, got, c.stored)
		}
		if got := c.kind.Computed(); got != c.computed {
			t.Errorf("%q.Computed() = %v, want %v", c.kind, got, c.computed)
		}
	}
}

func TestAgentPath(t *testing.T) {
	for _, c := range []struct {
		path       AgentPath
		valid, sub bool
		root       AgentPath
	}{
		{"primary", true, false, "primary"},
		{"primary.subagents.ui", true, true, "primary"},
		{"a1.b-c.d_e", true, true, "a1"},
		{"", false, false, ""},
		{"Primary", false, false, "Primary"},
		{"primary.", false, true, "primary"},
		{".ui", false, true, ""},
		{"-x", false, false, "-x"},
		{"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p", true, true, "a"},
		{"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q", false, true, "a"},
	} {
		if got := c.path.Valid(); got != c.valid {
			t.Errorf("%q.Valid() = %v, want %v", c.path, got, c.valid)
		}
		if got := c.path.IsSubagent(); got != c.sub {
			t.Errorf("%q.IsSubagent() = %v, want %v", c.path, got, c.sub)
		}
		if got := c.path.Root(); got != c.root {
			t.Errorf("%q.Root() = %q, want %q", c.path, got, c.root)
		}
	}
}

func TestSummary(t *testing.T) {
	var s Summary
	for _, td := range []Todo{
		{Kind: KindCriterion, Status: TodoCompleted, Text: "c1"},
		{Kind: KindCriterion, Status: TodoPending, Text: "c2"},
		{Kind: KindCriterion, Status: TodoAbandoned, Text: "c3"},
		{Kind: KindStep, Status: TodoCompleted, Text: "s1"},
		{Kind: KindStep, Status: TodoInProgress, Text: "s2", Phase: "Backend"},
		{Kind: KindStep, Status: TodoInProgress, Text: "s3"},
		{Kind: KindStep, Status: TodoBlocked, Text: "s4"},
		{Kind: KindStep, Status: TodoPending, Text: "s5"},
	} {
		s.Add(td)
	}
	want := Summary{Done: 1, Open: 3, Dropped: 0, Blocked: 1, CriteriaTotal: 2, CriteriaDone: 1} // steps apart from criteria
	if s.Done != want.Done || s.Open != want.Open || s.Dropped != want.Dropped || s.Blocked != want.Blocked ||
		s.CriteriaTotal != want.CriteriaTotal || s.CriteriaDone != want.CriteriaDone {
		t.Errorf("summary = %+v, want %+v", s, want)
	}
	if s.Active == nil || s.Active.Text != "s2" || s.Active.Phase != "Backend" {
		t.Errorf("active = %+v, want the first item in progress, s2 (Backend)", s.Active)
	}
	if s.CriteriaMet() || s.OpenCriteria() != 1 {
		t.Errorf("CriteriaMet() = %v, OpenCriteria() = %d; want false, 1", s.CriteriaMet(), s.OpenCriteria())
	}
	var none Summary
	if none.CriteriaMet() {
		t.Error("a checklist without criteria has not met them")
	}
}

func TestValidWords(t *testing.T) {
	for _, s := range Statuses() {
		if !s.Valid() {
			t.Errorf("status %q not valid", s)
		}
	}
	for _, s := range TodoStatuses() {
		if !s.Valid() {
			t.Errorf("todo status %q not valid", s)
		}
	}
	if Status("pending").Valid() || TodoStatus("in_review").Valid() || Priority("P5").Valid() ||
		IssueType("story").Valid() || Resolution("fixed").Valid() || TodoKind("phase").Valid() ||
		Category("ops").Valid() || AnchorPriority("low").Valid() {
		t.Error("a word from outside the domain was accepted")
	}
	is := Issue{Assignee: "session:ses_1"}
	if got := is.AssignedSession(); got != "ses_1" {
		t.Errorf("AssignedSession() = %q", got)
	}
	if got := (&Issue{Assignee: "Bob"}).AssignedSession(); got != "" {
		t.Errorf("AssignedSession() of a name = %q", got)
	}
}

func TestPluralAndQuoteList(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "todos"}, {1, "todo"}, {2, "todos"}} {
		if got := Plural(tt.n, "todo", "todos"); got != tt.want {
			t.Errorf("Plural(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	for _, tt := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"a"}, `"a"`}, {[]string{"a", `say "hi"`}, `"a", "say \"hi\""`}} {
		if got := QuoteList(tt.in); got != tt.want {
			t.Errorf("QuoteList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIdentityKey(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"Op One <op@example.com>", "Op One <op@example.com>", true},
		{"Op One <op@example.com>", "Op One <OP@Example.com>", true},
		{"Op One <op@example.com>", "Someone Else <op@example.com>", true},
		{"Op One <op@example.com>", " Op One  < op@example.com > ", true},
		{"Op One <op@example.com>", "op@example.com", true},
		{"Op One <op@example.com>", "Op One <op2@example.com>", false},
		{"Op One <op@example.com>", "Op One", false},
		{"Op One", "op  one", true},
		{"Op One", "Op Two", false},
		{"", "", false},
		{"<>", "", false},
	} {
		if got := SameIdentity(tt.a, tt.b); got != tt.same {
			t.Errorf("SameIdentity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
		if got := SameIdentity(tt.b, tt.a); got != tt.same {
			t.Errorf("SameIdentity(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.same)
		}
	}
}

func TestActorSame(t *testing.T) {
	person := Session{Author: "Op One <op@example.com>", Role: RoleOperator}
	again := Session{Author: "Op One <OP@Example.com>", Role: RoleMember}
	other := Session{Author: "Someone Else <op@example.com>", Role: RoleOperator}
	agent := Session{Author: "Op One <op@example.com>", Role: RoleAgent, Agent: "primary"}
	bare := Session{Author: "Op One <op@example.com>", Role: RoleAgent} // an agent's file with no path
	worker := Session{Author: "Op One <op@example.com>", Role: RoleAgent, Agent: "worker"}
	for _, tt := range []struct {
		name string
		a, b Session
		same bool
	}{
		{"the same person, the email's case differs", person, again, true},
		{"the same email, another name", person, other, true},
		{"the person and their agent", person, agent, false},
		{"an agent's file with no path is the root agent", bare, agent, true},
		{"an agent's file with no path is not the person", bare, person, false},
		{"two agent paths", agent, worker, false},
	} {
		if got := tt.a.Actor().Same(tt.b.Actor()); got != tt.same {
			t.Errorf("%s: Same = %v, want %v", tt.name, got, tt.same)
		}
	}
	if bare.Actor().Human() {
		t.Error("a session recorded as an agent's acts as a person")
	}
}
