// Package people holds td's use cases on the people a project trusts: the
// operators listed in .todos/config.yaml, whom only an operator may add
// or remove, each change written as a security event.
package people

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
)

// Operator is one entry of operators:, split for reading.
type Operator struct {
	// Identity is the entry as written, "Name <email>".
	Identity string `json:"identity"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	// You is true when the entry matches the acting session's git identity.
	You bool `json:"you"`
}

// Change is what AddOperator and RemoveOperator did.
type Change struct {
	// Identity is the entry added or removed, as written in the config.
	Identity string
	// Changed is false when the config already said what was asked.
	Changed bool
	// Operators is the list after the change.
	Operators []string
	// Event is the security event written, nil when nothing changed.
	Event *audit.SecurityEvent
}

// Operators lists operators: in config order, marking the entries that
// are the acting session's person (se may be nil: nobody acts yet).
func Operators(s *repo.Store, se *repo.Session) []Operator {
	out := []Operator{}
	for _, op := range s.Config.Operators {
		n, e := repo.SplitIdentity(op)
		o := Operator{Identity: op, Name: n, Email: e}
		if se != nil && !se.IsAgent() && se.Author != "" {
			o.You = Matches(op, se.Author)
		}
		out = append(out, o)
	}
	return out
}

// ParseIdentity checks a git identity given to td operator add and
// returns it as the config writes it, "Name <email>". A name alone is
// refused: it would match anyone who sets that user.name.
func ParseIdentity(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsFunc(s, unicode.IsControl) {
		return "", repo.Errorf(repo.CodeInvalid, "%q holds a control character; give a git identity as \"Name <email>\"", s)
	}
	name, email := repo.SplitIdentity(s)
	switch {
	case s == "":
		return "", repo.Errorf(repo.CodeInvalid, "give a git identity as \"Name <email>\"")
	case email == "":
		return "", repo.Errorf(repo.CodeInvalid, "%q has no email; give a git identity as \"Name <email>\": a name alone would match anyone who sets that user.name", s)
	case strings.ContainsAny(email, "<> ") || !strings.Contains(email, "@") || strings.ContainsAny(name, "<>"):
		return "", repo.Errorf(repo.CodeInvalid, "%q is not a git identity such as \"Ada Lovelace <ada@example.com>\"", s)
	case name == "":
		return email, nil
	}
	return name + " <" + email + ">", nil
}

// Matches reports whether the operators: entry op names the git identity
// who, as td's operator check compares them (domain.IdentityKey): by
// email whatever its case, an entry without an email by its name. who may also be a bare email or
// a bare name, as td operator rm takes it.
func Matches(op, who string) bool {
	wn, we := repo.SplitIdentity(who)
	if repo.OperatorMatches(op, wn, we) {
		return true
	}
	if on, _ := repo.SplitIdentity(op); we == "" && wn != "" {
		// td operator rm "Bob": an entry with that name.
		return domain.IdentityKey(on) == domain.IdentityKey(wn)
	}
	return false
}

// MayChange refuses anyone but an operator, in one line that says why;
// verb is "add" or "remove". se may be the session td would start (no ID
// yet), so that a command can refuse before it writes a session file.
func MayChange(s *repo.Store, se *repo.Session, verb string) error {
	who := "session " + se.ID + " acts"
	if se.ID == "" {
		who = "you act"
	}
	if se.IsAgent() {
		return repo.Errorf(repo.CodeRefused, "only an operator may %s operators; %s as %s", verb, who, issues.ActorName(se.Actor()))
	}
	if s.EffectiveRole(se) != domain.RoleOperator {
		return repo.Errorf(repo.CodeRefused, "only an operator may %s operators; %s for %s, a member (a person not listed in operators)", verb, who, se.Author)
	}
	return nil
}

// AddOperator adds the git identity to operators: in config.yaml. Only an
// operator may; the addition is a security event. An identity already
// listed (same email) changes nothing.
func AddOperator(s *repo.Store, se *repo.Session, identity string) (Change, error) {
	id, err := ParseIdentity(identity)
	if err != nil {
		return Change{}, err
	}
	var ch Change
	err = s.Update(func(tx *repo.Tx) error {
		cfg, err := s.ReadConfig()
		if err != nil {
			return err
		}
		s.Config = cfg
		if err := MayChange(s, se, "add"); err != nil {
			return err
		}
		ch.Identity, ch.Operators = id, cfg.Operators
		for _, op := range cfg.Operators {
			if Matches(op, id) {
				ch.Identity = op
				return nil
			}
		}
		next := append(append([]string{}, cfg.Operators...), id)
		if err := s.WriteOperators(tx, next); err != nil {
			return err
		}
		e, err := s.AppendSecurityEvent(tx, se, "", audit.KindOperatorAdded, fmt.Sprintf("added %s to operators", id))
		if err != nil {
			return err
		}
		ch.Changed, ch.Operators, ch.Event = true, next, &e
		return nil
	})
	if err != nil {
		return Change{}, err
	}
	return ch, nil
}

// RemoveOptions is what td operator rm asks for.
type RemoveOptions struct {
	// Who names the entry: "Name <email>", an email, or a name.
	Who string
	// Yes confirms removing the acting person's own entry.
	Yes bool
}

// RemoveOperator removes one entry from operators: in config.yaml. Only
// an operator may; the removal is a security event. It refuses to remove
// the last operator (nobody could change operators or flags afterwards,
// short of a hand edit the guard refuses) and, without Yes, the acting
// person's own entry (they stop being an operator at once and cannot undo
// it themselves).
func RemoveOperator(s *repo.Store, se *repo.Session, o RemoveOptions) (Change, error) {
	who := strings.TrimSpace(o.Who)
	if who == "" {
		return Change{}, repo.Errorf(repo.CodeInvalid, "name the operator to remove: \"Name <email>\", an email or a name")
	}
	var ch Change
	err := s.Update(func(tx *repo.Tx) error {
		cfg, err := s.ReadConfig()
		if err != nil {
			return err
		}
		s.Config = cfg
		if err := MayChange(s, se, "remove"); err != nil {
			return err
		}
		idx, err := match(cfg.Operators, who)
		if err != nil {
			return err
		}
		op := cfg.Operators[idx]
		if len(cfg.Operators) == 1 {
			return repo.Errorf(repo.CodeRefused, "%s is the last operator; with none, nobody could change operators or feature flags: add another operator first", op)
		}
		if Matches(op, se.Author) && !o.Yes {
			return repo.Errorf(repo.CodeRefused, "%s is you: you would stop being an operator at once and only another operator could add you back; pass --yes to remove yourself", op)
		}
		next := append(append([]string{}, cfg.Operators[:idx]...), cfg.Operators[idx+1:]...)
		if err := s.WriteOperators(tx, next); err != nil {
			return err
		}
		e, err := s.AppendSecurityEvent(tx, se, "", audit.KindOperatorRemoved, fmt.Sprintf("removed %s from operators", op))
		if err != nil {
			return err
		}
		ch = Change{Identity: op, Changed: true, Operators: next, Event: &e}
		return nil
	})
	if err != nil {
		return Change{}, err
	}
	return ch, nil
}

// match finds the one entry who names: the entry as written, else the
// entries that match by email or name. None or several is an error.
func match(ops []string, who string) (int, error) {
	for i, op := range ops {
		if op == who {
			return i, nil
		}
	}
	var hits []int
	for i, op := range ops {
		if Matches(op, who) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return 0, repo.Errorf(repo.CodeNotFound, "%s is not an operator; td operator list shows them", who)
	}
	var names []string
	for _, i := range hits {
		names = append(names, ops[i])
	}
	return 0, repo.Errorf(repo.CodeAmbiguous, "%q matches %d operators (%s); give the whole entry", who, len(hits), strings.Join(names, "; "))
}

// Name is who acts through se, for people to read: the person's name
// ("Bob", else the email), or "primary agent of Bob" for an agent.
func Name(se *repo.Session) string { return se.Actor().ShortName() }

// AssigneeNamer returns a function that names an assignee
// ("session:ses_x" or a person) as the board does: a session whose
// identity file is here by its actor ("primary agent of Alice"), any
// other by what it says. It reads each session once.
func AssigneeNamer(s *repo.Store) func(assignee string) string {
	known := s.SessionIDs()
	names := map[string]string{}
	return func(assignee string) string {
		se := strings.TrimPrefix(assignee, "session:")
		if !known[se] {
			return se
		}
		if n, ok := names[se]; ok {
			return n
		}
		n := NameOf(s, se)
		if n == "" {
			n = se
		}
		names[se] = n
		return n
	}
}

// NameOf names the session id for people to read (see Name), or returns
// "" when id is not a session whose identity file td can read.
func NameOf(s *repo.Store, id string) string {
	if !strings.HasPrefix(id, "ses_") {
		return ""
	}
	se, err := s.Session(id)
	if err != nil {
		return ""
	}
	return Name(se)
}
