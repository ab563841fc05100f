package domain

import (
	"strings"
	"time"
)

// Role is what a session may do: an operator owns the definition of done,
// a member and an agent work towards it.
type Role string

// Session roles, judged under the operators a config lists. A session
// records only whether it was started for a person or an agent; the role
// follows from that and the list.
const (
	// RoleOperator is a person listed in operators: they sign off the
	// definition of done and change flags, operators and criteria.
	RoleOperator Role = "operator"
	// RoleMember is a person not listed in operators: they create,
	// implement and approve under the review table like anyone, but sign
	// off no acceptance criteria and change no flags, operators or
	// criteria someone else must keep.
	RoleMember Role = "member"
	// RoleAgent is any session with an agent path.
	RoleAgent Role = "agent"
)

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return r == RoleOperator || r == RoleMember || r == RoleAgent }

// Person reports whether the role is a person's: an operator or a member.
func (r Role) Person() bool { return r == RoleOperator || r == RoleMember }

// Category is the kind of work an agent session does, for the scope rules.
type Category string

// Session categories: a project agent works on the user's code, a meta
// agent on td's governance files.
const (
	CategoryProject Category = "project"
	CategoryMeta    Category = "meta"
)

// Valid reports whether c is one of the categories.
func (c Category) Valid() bool { return c == CategoryProject || c == CategoryMeta }

// AgentPath names an agent in its tree: "primary" for a root agent,
// "primary.subagents.ui" for one of its subagents. "" is no agent: a person.
type AgentPath string

// Valid reports whether p is a dotted agent tree path: up to 16 segments,
// each a lowercase letter or digit followed by up to 63 lowercase letters,
// digits, '-' or '_'.
func (p AgentPath) Valid() bool {
	segs := strings.Split(string(p), ".")
	if len(segs) > 16 {
		return false
	}
	for _, seg := range segs {
		if len(seg) == 0 || len(seg) > 64 || !lowerAlnum(seg[0]) {
			return false
		}
		for i := 1; i < len(seg); i++ {
			if ch := seg[i]; !lowerAlnum(ch) && ch != '-' && ch != '_' {
				return false
			}
		}
	}
	return true
}

// IsSubagent reports whether the path is deeper than a root agent.
func (p AgentPath) IsSubagent() bool { return strings.Contains(string(p), ".") }

// Root returns the root agent of the path: its first segment.
func (p AgentPath) Root() AgentPath {
	if i := strings.IndexByte(string(p), '.'); i >= 0 {
		return p[:i]
	}
	return p
}

func lowerAlnum(ch byte) bool { return ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' }

// Session is one agent conversation or one person at a terminal, as its
// identity file under .todos/sessions records it, once.
type Session struct {
	ID        string    `yaml:"id" json:"id"`
	Name      string    `yaml:"name" json:"name"`
	Role      Role      `yaml:"role" json:"role"`
	Agent     AgentPath `yaml:"agent,omitempty" json:"agent,omitempty"`
	Category  Category  `yaml:"category" json:"category"`
	Author    string    `yaml:"author" json:"author"` // git identity, "Name <email>"
	CreatedAt time.Time `yaml:"created_at" json:"created_at"`
	Previous  string    `yaml:"previous,omitempty" json:"previous,omitempty"`
}

// IsAgent reports whether the session was started as an agent.
func (se *Session) IsAgent() bool { return se.Agent != "" || se.Role == RoleAgent }

// IsSubagent reports whether the session is a subagent's.
func (se *Session) IsSubagent() bool { return se.Agent.IsSubagent() }

// Actor is who acts through a session: a git identity, and the agent path
// acting for it ("" when the person acts). Two sessions with the same
// actor are one party to the review policy.
type Actor struct {
	Identity string    `json:"identity"` // git identity, "Name <email>"
	Agent    AgentPath `json:"agent,omitempty"`
}

// Actor returns the actor the session acts for. A session recorded as an
// agent's without an agent path acts as its person's root agent,
// "primary": td calls it an agent, so the review policy never takes it
// for the person.
func (se *Session) Actor() Actor {
	a := Actor{Identity: se.Author, Agent: se.Agent}
	if a.Agent == "" && se.IsAgent() {
		a.Agent = DefaultAgentPath
	}
	return a
}

// DefaultAgentPath is the path of a root agent that names none.
const DefaultAgentPath AgentPath = "primary"

// ActorKey is an actor in its canonical form: two actors are one party to
// the review policy, the claims and the operator list exactly when their
// keys are equal.
type ActorKey struct {
	Identity string    // IdentityKey of the git identity
	Agent    AgentPath // the agent path, "" for the person
}

// Key returns the actor's canonical form (IdentityKey of its identity).
func (a Actor) Key() ActorKey { return ActorKey{Identity: IdentityKey(a.Identity), Agent: a.Agent} }

// Same reports whether a and b are one actor: the same person by
// IdentityKey, and the same agent path.
func (a Actor) Same(b Actor) bool { return a.Key() == b.Key() }

// IdentityKey is the one canonical form of a git identity, "Name
// <email>", that td compares operators, actors and commit identities by.
// A person is their email: with an email, the name does not count, and
// the email compares without regard to case (git's mailmap matches
// emails so, and a hosting service maps OP@Example.com and op@example.com
// to one account), so "Op One <OP@Example.com>" and "Someone Else
// <op@example.com>" are one identity. Without an email, the name counts,
// trimmed, its runs of spaces made one, case ignored. The key of an
// empty identity is "".
func IdentityKey(s string) string {
	name, email := SplitIdentity(s)
	if email != "" {
		return "<" + strings.ToLower(email) + ">"
	}
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return ""
	}
	return strings.ToLower(name)
}

// SameIdentity reports whether two git identities are one by IdentityKey;
// two empty identities are not.
func SameIdentity(a, b string) bool {
	k := IdentityKey(a)
	return k != "" && k == IdentityKey(b)
}

// Human reports whether the actor is a person rather than an agent.
func (a Actor) Human() bool { return a.Agent == "" }

// Name names the actor where people read: "Bob <bob@example.com>", or
// "agent primary of Bob <bob@example.com>".
func (a Actor) Name() string {
	if a.Human() {
		return a.Identity
	}
	return "agent " + string(a.Agent) + " of " + a.Identity
}

// ShortName names the actor in a sentence: the person's name ("Bob",
// else the email), or "primary agent of Bob" for an agent.
func (a Actor) ShortName() string {
	n, e := SplitIdentity(a.Identity)
	if n == "" {
		n = e
	}
	if n == "" {
		n = "unknown"
	}
	if a.Agent != "" {
		return string(a.Agent) + " agent of " + n
	}
	return n
}

// SplitIdentity splits a git identity "Name <email>" into its parts; a
// bare email or a bare name gives only that part.
func SplitIdentity(s string) (name, email string) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "<"); i >= 0 && strings.HasSuffix(s, ">") {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1 : len(s)-1])
	}
	if strings.Contains(s, "@") {
		return "", s
	}
	return s, ""
}
