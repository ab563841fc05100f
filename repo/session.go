package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"gopkg.in/yaml.v3"
)

// Session is one agent conversation or one person at a terminal; its
// identity file under .todos/sessions is written once.
type Session = domain.Session

// EffectiveRole is the role rules use: an operator session counts as an
// operator only while its git author is listed in config operators.
func (s *Store) EffectiveRole(se *Session) domain.Role { return RoleUnder(s.Config, se) }

// RoleUnder is the role session se has under the operators cfg lists: an
// operator session counts only while its author is listed; an agent
// session, or none, is an agent. td check --base judges with the base's
// config, the commands with the work tree's.
func RoleUnder(cfg *Config, se *Session) domain.Role {
	if se == nil || se.IsAgent() {
		return domain.RoleAgent
	}
	name, email := SplitIdentity(se.Author)
	if cfg.IsOperator(name, email) {
		return domain.RoleOperator
	}
	return domain.RoleAgent
}

// How the current session was found.
const (
	SourceFlag     = "--session"
	SourceEnv      = "TD_SESSION"
	SourceCheckout = "checkout"
	SourceDefault  = "default"
	SourceNone     = "none yet"
)

// StartOptions configures StartSession.
type StartOptions struct {
	Name     string
	Agent    domain.AgentPath // agent path; empty for an operator session
	Category domain.Category  // project (default) or meta
	Use      bool             // make it this checkout's current session
	Previous string
}

// StartSession creates a session and writes its identity file.
func (s *Store) StartSession(o StartOptions) (*Session, error) {
	var se *Session
	err := s.Update(func(tx *Tx) error {
		var err error
		se, err = s.startSession(tx, o)
		return err
	})
	if err != nil {
		return nil, err
	}
	return se, s.markStarted(se)
}

// StartSession creates a session inside a locked update and records its
// first state, as Store.StartSession does outside one: for a caller that
// decides under the lock whether to start a session at all (a harness
// hook, when several of one conversation run at once).
func (tx *Tx) StartSession(o StartOptions) (*Session, error) {
	se, err := tx.s.startSession(tx, o)
	if err != nil {
		return nil, err
	}
	return se, tx.s.markStarted(se)
}

// Check refuses options no session can be started with: an agent path
// or a category td does not know.
func (o StartOptions) Check() error {
	if o.Agent != "" && !o.Agent.Valid() {
		return Errorf(CodeInvalid, "agent path %q must be dot-separated lowercase names such as primary or primary.subagents.ui", o.Agent)
	}
	switch o.Category {
	case "", domain.CategoryProject, domain.CategoryMeta:
		return nil
	}
	return Errorf(CodeInvalid, "category %q must be project or meta", o.Category)
}

// startSession creates a session inside a locked update.
func (s *Store) startSession(tx *Tx, o StartOptions) (*Session, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Category == "" {
		o.Category = domain.CategoryProject
	}
	author, err := s.Author()
	if err != nil {
		return nil, err
	}
	se, err := s.newSession(o, author)
	if err != nil {
		return nil, err
	}
	if err := s.writeSession(tx, se); err != nil {
		return nil, err
	}
	if o.Use {
		if err := s.writeLocal("current", se.ID); err != nil {
			return nil, err
		}
	}
	return se, nil
}

// newSession makes the session o describes for author, with a fresh ID,
// and writes nothing.
func (s *Store) newSession(o StartOptions, author string) (*Session, error) {
	id, err := s.newSessionID()
	if err != nil {
		return nil, err
	}
	role := domain.RoleOperator
	if o.Agent != "" {
		role = domain.RoleAgent
	}
	name := o.Name
	if name == "" {
		name = string(o.Agent)
	}
	if name == "" {
		name, _ = SplitIdentity(author)
	}
	return &Session{ID: id, Name: name, Role: role, Agent: o.Agent, Category: o.Category,
		Author: author, CreatedAt: s.Now(), Previous: o.Previous}, nil
}

func (s *Store) writeSession(tx *Tx, se *Session) error {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(se); err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	return tx.WriteFile(b.Bytes(), SessionsDir, se.ID+".yaml")
}

func (s *Store) newSessionID() (string, error) {
	return s.freeID(sessionSuffixLen, func(suf string) (string, string) {
		id := "ses_" + suf
		return id, s.Path(SessionsDir, id+".yaml")
	})
}

// author is the git identity of whoever runs td, "Name <email>".
func (s *Store) Author() (string, error) {
	if n, e := s.Env("GIT_AUTHOR_NAME"), s.Env("GIT_AUTHOR_EMAIL"); n != "" && e != "" {
		return n + " <" + e + ">", nil
	}
	g, err := s.GitRepo()
	if err != nil {
		return "", err
	}
	if g == nil {
		if u := s.Env("USER"); u != "" {
			return u, nil
		}
		return "unknown", nil
	}
	id, err := g.Author()
	if err != nil {
		return "", Errorf(CodeRefused, "no git identity: set one with git config user.name and user.email (%v)", err)
	}
	return id.String(), nil
}

// Session loads a session identity file.
func (s *Store) Session(id string) (*Session, error) {
	if !ValidSessionID(id) {
		return nil, Errorf(CodeInvalid, "%q is not a session ID: session IDs look like ses_7hq2m4p1", id)
	}
	if se := s.pendingDefault; se != nil && se.ID == id {
		return se, nil
	}
	p := s.Path(SessionsDir, id+".yaml")
	data, err := readRegular(p, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Errorf(CodeNotFound, "no session %s; td session list shows the sessions", id)
	}
	if err != nil {
		return nil, s.FileError(p, err)
	}
	var se Session
	if err := yaml.Unmarshal(data, &se); err != nil {
		return nil, &ParseError{Path: s.rel(p), Line: YAMLErrorLine(err), Msg: YAMLErrorMsg(err)}
	}
	if se.ID != id {
		return nil, &ParseError{Path: s.rel(p), Line: 1, Msg: fmt.Sprintf("id %q does not match the file name", se.ID)}
	}
	return &se, nil
}

// SessionIDs lists the sessions that have an identity file, without
// reading them: for a caller that names many assignees, most of which may
// be sessions of other clones whose files were never committed here.
func (s *Store) SessionIDs() map[string]bool {
	out := map[string]bool{}
	ents, _ := os.ReadDir(s.Path(SessionsDir)) // unreadable: no names, the IDs stand
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && ValidSessionID(id) {
			out[id] = true
		}
	}
	if se := s.pendingDefault; se != nil {
		out[se.ID] = true
	}
	return out
}

// Sessions lists every session, oldest first. Unreadable files are
// returned as errors beside the rest.
func (s *Store) Sessions() ([]*Session, []error) {
	ents, err := os.ReadDir(s.Path(SessionsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, []error{s.FileError(s.Path(SessionsDir), err)}
	}
	var out []*Session
	var errs []error
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		se, err := s.Session(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, se)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, errs
}

// SessionsOf lists the IDs of every session that acts for actor, oldest
// first: one person's sessions in every clone and worktree, or one agent
// path's conversations. The identity files are read once per Store; a
// session started later in the same process is not in the list.
func (s *Store) SessionsOf(a domain.Actor) []string {
	s.actorsOnce.Do(func() {
		s.actors = map[domain.Actor][]string{}
		all, _ := s.Sessions() // unreadable identity files are reported where they are read
		for _, se := range all {
			s.actors[se.Actor()] = append(s.actors[se.Actor()], se.ID)
		}
	})
	return s.actors[a]
}

// UseSession makes id this checkout's current session.
func (s *Store) UseSession(id string) (*Session, error) {
	se, err := s.Session(id)
	if err != nil {
		return nil, err
	}
	return se, s.writeLocal("current", id)
}

// CurrentSession resolves who is acting: flag, then TD_SESSION, then the
// checkout's current session, then the operator's default session for this
// checkout. With create, a missing default session is made; without it,
// (nil, "", nil) means nobody is acting yet.
func (s *Store) CurrentSession(flag string, create bool) (acting *Session, source string, err error) {
	defer func() {
		if acting != nil && err == nil {
			s.actor = acting.ID // who td's commits in git mode auto name
		}
	}()
	if flag != "" {
		se, err := s.Session(flag)
		return se, SourceFlag, err
	}
	if env := s.Env("TD_SESSION"); env != "" {
		se, err := s.Session(env)
		if err != nil {
			return nil, "", fmt.Errorf("TD_SESSION: %w", err)
		}
		return se, SourceEnv, nil
	}
	cur, err := s.readLocal("current")
	if err != nil {
		return nil, "", err
	}
	if cur != "" {
		se, err := s.Session(cur)
		if err == nil {
			return se, SourceCheckout, nil
		}
		if CodeOf(err) != CodeNotFound {
			return nil, "", err
		}
		s.warnf("the checkout's current session %s no longer exists; using the default session", cur)
	}
	author, err := s.Author()
	if err != nil {
		return nil, "", err
	}
	se, err := s.defaultSession(author)
	if err != nil {
		return nil, "", err
	}
	if se != nil {
		return se, SourceDefault, nil
	}
	if !create {
		return nil, "", nil
	}
	// The default session is written with the command's first change, in
	// the same transaction (Update), so a command that changes nothing, a
	// refused one above all, leaves no session behind.
	if s.pendingDefault == nil {
		if s.pendingDefault, err = s.newSession(StartOptions{Category: domain.CategoryProject}, author); err != nil {
			return nil, "", err
		}
	}
	return s.pendingDefault, SourceDefault, nil
}

// SaveSession writes the default session CurrentSession made for this
// command, if it has not been written yet, as a change of its own: for a
// caller that hands the session's ID to something that reads it from
// disk before the command changes anything.
func (s *Store) SaveSession() error {
	if s.pendingDefault == nil {
		return nil
	}
	return s.Update(func(tx *Tx) error {
		return s.writePendingDefault(tx)
	})
}

// writePendingDefault writes the default session CurrentSession made for
// this command, in the transaction of its first change. The next td then
// finds it: unless another td process made this person's default first
// (looked up again here, under the lock), it becomes the checkout's
// default. Either way the session is written, since the change names it.
func (s *Store) writePendingDefault(tx *Tx) error {
	se := s.pendingDefault
	if err := s.writeSession(tx, se); err != nil {
		return err
	}
	tx.afterCommit = func() error {
		s.pendingDefault = nil
		if other, err := s.defaultSession(se.Author); other != nil || err != nil {
			return err
		}
		defaults, err := s.readDefaults()
		if err != nil {
			return err
		}
		defaults[se.Author] = se.ID
		b, _ := json.MarshalIndent(defaults, "", "  ")
		return s.writeLocal("default-sessions.json", string(b)+"\n")
	}
	return nil
}

// ReadingSession is CurrentSession for a command that only reads: when
// nobody is acting yet it returns the default session td would start at
// the first change, with an empty ID and the source SourceNone, and writes
// nothing. A reading command must not leave a session file behind.
func (s *Store) ReadingSession(flag string) (*Session, string, error) {
	se, src, err := s.CurrentSession(flag, false)
	if err != nil || se != nil {
		return se, src, err
	}
	author, err := s.Author()
	if err != nil {
		return nil, "", err
	}
	name, _ := SplitIdentity(author)
	return &Session{Name: name, Role: domain.RoleOperator, Category: domain.CategoryProject,
		Author: author, CreatedAt: s.Now()}, SourceNone, nil
}

// defaultSession returns the author's default session for this checkout,
// nil when there is none yet, or when its file is gone. A session file td
// will not read (a symlink, a parse error) is an error: minting a new
// session in its place would hide it.
func (s *Store) defaultSession(author string) (*Session, error) {
	defaults, err := s.readDefaults()
	if err != nil || defaults[author] == "" {
		return nil, err
	}
	se, err := s.Session(defaults[author])
	if CodeOf(err) == CodeNotFound {
		return nil, nil
	}
	return se, err
}

func (s *Store) readDefaults() (map[string]string, error) {
	m := map[string]string{}
	data, err := s.readLocal("default-sessions.json")
	if err != nil || data == "" {
		return m, err
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return nil, s.localParseError("default-sessions.json", []byte(data), err, "which session is each person's default here (td starts new ones)")
	}
	return m, nil
}

// CurrentID returns the checkout's current session pointer, "" if unset.
func (s *Store) CurrentID() string {
	id, _ := s.readLocal("current")
	return id
}
