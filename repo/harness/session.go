package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// How says how Session found the td session of a harness conversation.
type How string

// The ways Session finds a conversation's session.
const (
	// Known: the conversation was seen before.
	Known How = "known"
	// Started: a new agent session was started for it.
	Started How = "started"
	// FromEnv: TD_SESSION named the agent session it acts as (the operator
	// ran td send and started the harness with its export line).
	FromEnv How = "env"
	// Adopted: the harness gave a resumed or cleared conversation a new
	// id, and it continues the checkout's last harness session.
	Adopted How = "adopted"
)

// Conversation says which harness conversation to look up, and what to do
// when td has not seen it yet.
type Conversation struct {
	// Harness names the harness, a lowercase word (claude).
	Harness string
	// ID is the harness's own id of the conversation.
	ID string
	// Agent and Category are the new session's agent path (primary when
	// empty) and scope (project when empty).
	Agent    domain.AgentPath
	Category domain.Category
	// Create starts (or takes over) a session for an unknown conversation;
	// without it an unknown conversation gives a nil result.
	Create bool
	// Adopt lets an unknown conversation continue the checkout's last
	// harness session: a harness that resumes or clears a conversation may
	// give it a new id.
	Adopt bool
}

// Result is the td session a harness conversation acts as.
type Result struct {
	Session *repo.Session
	How     How
}

// link is .todos/local/harness/<harness>/sessions/<key>.json.
type link struct {
	Session        string    `json:"session"`
	HarnessSession string    `json:"harness_session"`
	LinkedAt       time.Time `json:"linked_at"`
	How            How       `json:"how"`
}

// maxID bounds a harness session id td accepts.
const maxID = 200

// Session returns the td session of a harness conversation. A
// conversation seen before keeps its session. An unknown one, with
// c.Create, takes the agent session TD_SESSION names, else (with c.Adopt)
// the checkout's last harness session, else a new agent session; the
// choice is made under the store lock, so hooks running at once agree.
func Session(s *repo.Store, c Conversation) (*Result, error) {
	return session(s, c, false)
}

// Subagent names a harness subagent: the id the harness gives it within
// its conversation, and its kind (Explore, a custom agent's name).
type Subagent struct {
	ID   string
	Type string
}

// SubagentSession returns the td session of a subagent of conversation c,
// whose own session is root: an agent session of its own, below root's
// agent path (primary.subagents.explore), in root's scope, started on its
// first event and found again by the conversation's id and the subagent's.
// What it does (a failed tool call, a stall) is its own, never root's; it
// never takes TD_SESSION's session or the checkout's last one.
func SubagentSession(s *repo.Store, c Conversation, root *repo.Session, sub Subagent) (*Result, error) {
	if strings.TrimSpace(sub.ID) == "" {
		return nil, invalid("the hook payload names a subagent without its id")
	}
	if len(sub.ID) > maxID || len(c.ID) > maxID {
		return nil, invalid("the hook payload's session or agent id is over %d characters", maxID)
	}
	sc := Conversation{Harness: c.Harness, ID: c.ID + "/" + sub.ID, Agent: SubagentPath(root.Agent, sub.Type),
		Category: root.Category, Create: c.Create}
	return session(s, sc, true)
}

// SubagentPath is the agent path of a subagent of kind below parent:
// parent.subagents.<kind>, the kind lowercased with anything but letters,
// digits, '-' and '_' made '-' ("agent" when nothing is left).
func SubagentPath(parent domain.AgentPath, kind string) domain.AgentPath {
	if parent == "" {
		parent = "primary"
	}
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(kind)) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	seg := strings.TrimRight(b.String(), "-_")
	if len(seg) > 64 {
		seg = strings.TrimRight(seg[:64], "-_")
	}
	if seg == "" {
		seg = "agent"
	}
	if p := parent + ".subagents." + domain.AgentPath(seg); p.Valid() {
		return p
	}
	return parent.Root() + ".subagents." + domain.AgentPath(seg)
}

// session finds or starts the session of c; a subagent's takes neither
// TD_SESSION's session nor the checkout's last, and is not remembered as
// the last.
func session(s *repo.Store, c Conversation, subagent bool) (*Result, error) {
	if strings.TrimSpace(c.ID) == "" {
		return nil, invalid("the hook payload has no session_id; td maps each harness conversation to a td session by it")
	}
	if len(c.ID) > maxID {
		return nil, invalid("the hook payload's session_id is over %d characters", maxID)
	}
	if c.Harness == "" || !domain.AgentPath(c.Harness).Valid() {
		return nil, invalid("harness name %q must be a lowercase word such as claude", c.Harness)
	}
	if c.Agent == "" {
		c.Agent = "primary"
	}
	se, err := linkedSession(s, c)
	if err != nil {
		return nil, err
	}
	if se != nil {
		if !subagent {
			noteLast(s, c.Harness, se.ID)
		}
		return &Result{Session: se, How: Known}, nil
	}
	if !c.Create {
		return nil, nil
	}
	res := &Result{}
	err = s.Update(func(tx *repo.Tx) error {
		if se, err := linkedSession(s, c); err != nil || se != nil {
			res.Session, res.How = se, Known
			return err
		}
		var last *repo.Session
		if c.Adopt && !subagent {
			last = lastSession(s, c.Harness)
		}
		var env *repo.Session
		if !subagent {
			env = envAgentSession(s)
		}
		if env != nil {
			res.Session, res.How = env, FromEnv
		} else if last != nil {
			res.Session, res.How = last, Adopted
		} else {
			short := c.ID
			if len(short) > 8 {
				short = short[:8]
			}
			name := c.Harness + " " + short
			if subagent {
				name += " " + string(c.Agent[strings.LastIndexByte(string(c.Agent), '.')+1:])
			}
			se, err := tx.StartSession(repo.StartOptions{Name: name, Agent: c.Agent, Category: c.Category})
			if err != nil {
				return err
			}
			res.Session, res.How = se, Started
		}
		l := link{Session: res.Session.ID, HarnessSession: c.ID, LinkedAt: s.Now(), How: res.How}
		b, _ := json.MarshalIndent(l, "", "  ")
		return s.WriteLocal(linkName(c.Harness, c.ID), string(b)+"\n")
	})
	if err != nil {
		return nil, err
	}
	if !subagent {
		noteLast(s, c.Harness, res.Session.ID)
	}
	return res, nil
}

func invalid(format string, args ...any) error {
	return &repo.Error{Code: repo.CodeInvalid, Msg: fmt.Sprintf(format, args...)}
}

// linkedSession reads the conversation's link; nil when there is none, or
// when the session it names has gone (the link is then made again). A link
// file td cannot read is an error: it is left as it is.
func linkedSession(s *repo.Store, c Conversation) (*repo.Session, error) {
	data, err := s.ReadLocal(linkName(c.Harness, c.ID))
	if err != nil || data == "" {
		return nil, err
	}
	var l link
	if err := json.Unmarshal([]byte(data), &l); err != nil || l.HarnessSession != c.ID {
		// Never made again over what td cannot read: the bytes may be a
		// person's, and the session they name would be lost.
		return nil, invalid(".todos/local/%s is not a link td wrote for this conversation; td will not overwrite it: remove the file and the conversation gets a session again", linkName(c.Harness, c.ID))
	}
	se, err := s.Session(l.Session)
	if code := repo.CodeOf(err); code == repo.CodeNotFound || code == repo.CodeInvalid {
		return nil, nil
	}
	return se, err
}

// envAgentSession is the agent session TD_SESSION names, if it names one.
// An operator session is not handed to a harness: the harness is an agent.
func envAgentSession(s *repo.Store) *repo.Session {
	id := s.Env("TD_SESSION")
	if id == "" {
		return nil
	}
	se, err := s.Session(id)
	if err != nil {
		s.Warnf("TD_SESSION: %v; the harness gets a session of its own", err)
		return nil
	}
	if !se.IsAgent() {
		s.Warnf("TD_SESSION names %s, an operator session; the harness is an agent, so it gets an agent session of its own", se.ID)
		return nil
	}
	return se
}

// lastName is the file under .todos/local naming the session the
// checkout's harness used last.
func lastName(harness string) string { return "harness/" + harness + "/last" }

// lastSession is the session the checkout's harness used last.
func lastSession(s *repo.Store, harness string) *repo.Session {
	id, err := s.ReadLocal(lastName(harness))
	if err != nil || id == "" {
		return nil
	}
	se, err := s.Session(id)
	if err != nil {
		return nil
	}
	return se
}

// noteLast remembers the session the harness used last, for a
// conversation it resumes or clears under a new id. Losing it costs only
// that guess, so a failure is a warning.
func noteLast(s *repo.Store, harness, id string) {
	name := lastName(harness)
	if cur, _ := s.ReadLocal(name); cur == id {
		return
	}
	if err := s.WriteLocal(name, id+"\n"); err != nil {
		s.Warnf("could not remember the harness's last session: %v", err)
	}
}

// linkName is the link file of a conversation under .todos/local: the id
// itself when it is a plain file name, else a hash of it.
func linkName(harness, id string) string {
	key := id
	if !plainFileName(id) {
		sum := sha256.Sum256([]byte(id))
		key = "h-" + hex.EncodeToString(sum[:16])
	}
	return "harness/" + harness + "/sessions/" + key + ".json"
}

func plainFileName(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
