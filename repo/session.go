package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"gopkg.in/yaml.v3"
)

// Session is one agent conversation or one person at a terminal; its
// identity file under .todos/sessions is written once.
type Session = domain.Session

// EffectiveRole is the role rules use: a person's session is an operator
// while its git author is listed in config operators, a member otherwise.
func (s *Store) EffectiveRole(se *Session) domain.Role { return RoleUnder(s.Config, se) }

// RoleUnder is the role session se has under the operators cfg lists: a
// person's session is an operator while its author is listed and a
// member otherwise; an agent session, or none, is an agent. td check
// --base judges with the base's config, the commands with the work
// tree's.
func RoleUnder(cfg *Config, se *Session) domain.Role {
	if se == nil || se.IsAgent() {
		return domain.RoleAgent
	}
	name, email := SplitIdentity(se.Author)
	if cfg.IsOperator(name, email) {
		return domain.RoleOperator
	}
	return domain.RoleMember
}

// RoleNoun names a role in a sentence: "an operator", "a member (a
// person not listed in operators)", "an agent".
func RoleNoun(r domain.Role) string {
	switch r {
	case domain.RoleOperator:
		return "an operator"
	case domain.RoleMember:
		return "a member (a person not listed in operators)"
	}
	return "an agent"
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

// writeSession writes a new session's identity file and, once the
// transaction lands, its shared copy for the clone's other work trees.
func (s *Store) writeSession(tx *Tx, se *Session) error {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(se); err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	if err := tx.WriteFile(b.Bytes(), SessionsDir, se.ID+".yaml"); err != nil {
		return err
	}
	tx.afterCommit = append(tx.afterCommit, func() error {
		if err := s.shareRecord(se.ID, b.Bytes()); err != nil {
			s.warnf("session %s is written, but the clone's other work trees will not find it until their branch has its file: %v", se.ID, err)
		}
		return nil
	})
	return nil
}

// name notes that the transaction's changes name session id.
func (tx *Tx) name(id string) {
	if id != "" && !slices.Contains(tx.named, id) {
		tx.named = append(tx.named, id)
	}
}

// namedRecords writes, into this work tree, the identity file of every
// session the transaction names (and of the session acting) that the
// work tree lacks and the clone has a copy of: a session started in
// another work tree acts here, and the branch that carries its entries
// carries its identity, as CI reads it. The copy is the bytes the
// session was started with, so the file merges cleanly with the branch
// that already has it. A copy td cannot read is left out, with a warning.
func (tx *Tx) namedRecords() error {
	s := tx.s
	if !s.sharedInGit() {
		return nil
	}
	ids := append([]string{}, tx.named...)
	if s.actor != "" && !slices.Contains(ids, s.actor) {
		ids = append(ids, s.actor)
	}
	for _, id := range ids {
		if !ValidSessionID(id) {
			continue
		}
		if _, err := os.Lstat(s.Path(SessionsDir, id+".yaml")); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		data, p, err := s.sharedRecord(id)
		if err != nil || data == nil {
			if err != nil {
				s.warnf("%v; the identity file of session %s is not written here", err, id)
			}
			continue
		}
		if _, err := parseSession(s.shown(p), id, data); err != nil {
			s.warnf("%v; the identity file of session %s is not written here", err, id)
			continue
		}
		if err := tx.WriteFile(data, SessionsDir, id+".yaml"); err != nil {
			return err
		}
	}
	return nil
}

// parseSession reads an identity file's bytes, refusing one whose id is
// not the one its name gives.
func parseSession(shown, id string, data []byte) (*Session, error) {
	var se Session
	if err := yaml.Unmarshal(data, &se); err != nil {
		return nil, &ParseError{Path: shown, Line: YAMLErrorLine(err), Msg: YAMLErrorMsg(err)}
	}
	if se.ID != id {
		return nil, &ParseError{Path: shown, Line: 1, Msg: fmt.Sprintf("id %q does not match the file name", se.ID)}
	}
	return &se, nil
}

// newSessionID draws a session ID no identity file of this work tree,
// nor any of the clone's other work trees, has.
func (s *Store) newSessionID() (string, error) {
	for i := 0; i < 100; i++ {
		id, err := s.freeID(sessionSuffixLen, func(suf string) (string, string) {
			id := "ses_" + suf
			return id, s.Path(SessionsDir, id+".yaml")
		})
		if err != nil {
			return "", err
		}
		if data, _, _ := s.sharedRecord(id); data == nil {
			return id, nil
		}
	}
	return "", Errorf(CodeInternal, "could not find a free session ID after 100 draws")
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
		// Started in another work tree of this clone, on a branch not
		// merged here: the clone's copy (shared.go).
		shared, sp, serr := s.sharedRecord(id)
		if serr != nil {
			return nil, serr
		}
		if shared == nil {
			return nil, Errorf(CodeNotFound, "no session %s; td session list shows the sessions", id)
		}
		return parseSession(s.shown(sp), id, shared)
	}
	if err != nil {
		return nil, s.FileError(p, err)
	}
	return parseSession(s.rel(p), id, data)
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
	for _, id := range s.SharedSessionIDs() { // this clone's, from other work trees
		out[id] = true
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
		s.actors = map[domain.ActorKey][]string{}
		all, _ := s.Sessions() // unreadable identity files are reported where they are read
		for _, se := range all {
			k := se.Actor().Key()
			s.actors[k] = append(s.actors[k], se.ID)
		}
	})
	return s.actors[a.Key()]
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

// Unsaved reports whether se is a session no file records yet: the one
// CurrentSession made for this command, written with its first change,
// or ReadingSession's stand-in. A refusal must not name it by its ID.
func (s *Store) Unsaved(se *Session) bool {
	return se.ID == "" || s.pendingDefault != nil && s.pendingDefault.ID == se.ID
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
	tx.afterCommit = append(tx.afterCommit, func() error {
		s.pendingDefault = nil
		return s.setDefault(se)
	})
	return nil
}

// setDefault makes se its author's default session in this clone, unless
// another td process (in any work tree) made one first: looked up again
// under the shared lock.
func (s *Store) setDefault(se *Session) error {
	unlock, err := s.lockShared()
	if err != nil {
		return err
	}
	defer unlock()
	if other, err := s.defaultSession(se.Author); other != nil || err != nil {
		return err
	}
	return s.writeDefault(se.Author, se.ID)
}

// writeDefault records id as author's default session in the shared
// defaults; the caller holds the shared lock.
func (s *Store) writeDefault(author, id string) error {
	defaults, _, err := s.readDefaultsAt(s.SharedPath(defaultsName))
	if err != nil {
		return err
	}
	defaults[author] = id
	b, _ := json.MarshalIndent(defaults, "", "  ")
	return s.writeSharedFile(s.SharedPath(defaultsName), append(b, '\n'), true)
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

// defaultSession returns the author's default session in this clone,
// nil when there is none yet, or when its file is gone. A session file td
// will not read (a symlink, a parse error) is an error: minting a new
// session in its place would hide it.
//
// The default is per clone and git identity: every work tree of the clone
// shares it (shared.go), so a person is one session in the main checkout
// and in an agent's work tree alike, and the session that filed the work
// is the one that signs it off. A default an older td recorded for this
// work tree alone (.todos/local/default-sessions.json) is used when the
// clone has none, and becomes the clone's.
func (s *Store) defaultSession(author string) (*Session, error) {
	defaults, _, err := s.readDefaultsAt(s.SharedPath(defaultsName))
	if err != nil {
		return nil, err
	}
	id := defaults[author]
	legacy := false
	if id == "" && s.sharedInGit() {
		old, _, err := s.readDefaultsAt(s.legacyPath(defaultsName))
		if err != nil {
			return nil, err
		}
		id, legacy = old[author], true
	}
	if id == "" {
		return nil, nil
	}
	se, err := s.Session(id)
	if CodeOf(err) == CodeNotFound {
		return nil, nil
	}
	if err == nil && legacy {
		s.adoptLegacyDefault(author, id)
	}
	return se, err
}

// adoptLegacyDefault makes a work tree's own default, recorded by an
// older td, the clone's, unless the clone has one by now. Failing costs
// only the move: a warning.
func (s *Store) adoptLegacyDefault(author, id string) {
	unlock, err := s.lockShared()
	if err == nil {
		defer unlock()
		var defaults map[string]string
		if defaults, _, err = s.readDefaultsAt(s.SharedPath(defaultsName)); err == nil && defaults[author] == "" {
			err = s.writeDefault(author, id)
		}
	}
	if err != nil {
		s.warnf("session %s stays the default of this work tree only: %v", id, err)
	}
}

// defaultsName is the file naming each person's default session.
const defaultsName = "default-sessions.json"

// readDefaultsAt reads a defaults file: author to session ID; empty when
// the file does not exist.
func (s *Store) readDefaultsAt(p string) (map[string]string, bool, error) {
	m := map[string]string{}
	data, ok, err := s.readSharedFile(p)
	if err != nil || data == "" {
		return m, ok, err
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		return nil, ok, s.stateParseError(p, []byte(data), err, "which session is each person's default in this clone (td starts new ones)")
	}
	return m, ok, nil
}

// CurrentID returns the checkout's current session pointer, "" if unset.
func (s *Store) CurrentID() string {
	id, _ := s.readLocal("current")
	return id
}
