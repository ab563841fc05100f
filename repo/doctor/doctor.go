// Package doctor checks what td needs of a checkout beyond the committed
// files, which td check covers: that git runs td's merge driver for issue
// files, that .gitattributes routes them to it, that td's git hooks (when
// installed) are current, that the local caches are readable, that no
// merge under .todos is left unfinished, and that sessions that went quiet
// do not pile up local state, that no claim is stray (its issue's work
// ended, the issue is nowhere, or its holder's own work tree has it open
// or closed), that no claim's lease has ended unseen, and that each agent
// harness with td's hooks has them all and will run them (read by the
// harness's adapter, passed in by the command). Each finding is
// one Problem; Fix repairs what td can, and releases stray claims. A
// claim whose lease ended on work still in progress is reported, never
// released: taking it over is td reclaim's, audited.
package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/gitrepo"
	"github.com/tdproject/td/repo/search"
	"github.com/tdproject/td/repo/sessions"
)

// Checks, in the order td doctor runs them.
const (
	CheckDriver        = "merge_driver"
	CheckGitattributes = "gitattributes"
	CheckHooks         = "hooks"
	CheckCaches        = "caches"
	CheckIssueFiles    = "issue_files"
	CheckMerge         = "unfinished_merge"
	CheckSessions      = "idle_sessions"
	CheckStrayClaims   = "stray_claims"
	CheckClaims        = "expired_claims"
	// CheckHarnessHooks: each agent harness whose config holds td's hooks
	// holds all this td installs. CheckHarnessTrust: each such harness
	// will run them (the harness's own records of what its user
	// trusted).
	CheckHarnessHooks = "harness_hooks"
	CheckHarnessTrust = "harness_trust"
)

// Harness is what td doctor learns of one agent harness's hooks in the
// work tree: the harness's adapter reads it (repo/harness), the command
// that runs td doctor passes it in.
type Harness struct {
	// Name names the harness (codex); Config is td's hooks file for it.
	Name   string `json:"harness"`
	Config string `json:"config"`
	// Missing are the events this td installs that the config lacks;
	// Install writes them (td hooks install --<name>).
	Missing []string     `json:"missing,omitempty"`
	Install func() error `json:"-"`
	// Form is the plugin API td's plugin is written in, for a harness
	// whose hooks are a plugin.
	Form string `json:"form,omitempty"`
	// Runs is "yes", "no" or "unknown"; Notes say why, each with the step
	// the user must take.
	Runs  string   `json:"runs"`
	Notes []string `json:"notes,omitempty"`
}

// DefaultIdle is how long a session may go without activity before td
// doctor calls its local state stale.
const DefaultIdle = 30 * 24 * time.Hour

// Problem is one finding.
type Problem struct {
	// Check is the check that found it (CheckDriver, ...).
	Check string `json:"check"`
	// Path is the file or setting concerned, when there is one.
	Path string `json:"path,omitempty"`
	// Message says what is wrong and what repairs it.
	Message string `json:"message"`
	// Fixable is true when td doctor --fix can repair it.
	Fixable bool `json:"fixable"`
	// Fixed is true when --fix repaired it.
	Fixed bool `json:"fixed"`

	fix func() error
	// fixed, when not empty, replaces Message once fix has run: what the
	// repair did, where that says more than the finding.
	fixed string
	// repair names the repair fix makes when it is not the check's one
	// repair: findings with the same repair have it run once.
	repair string
}

// Options configures Run.
type Options struct {
	// Fix repairs what td can.
	Fix bool
	// Idle is how long a session may be quiet before its local state is
	// stale; DefaultIdle when zero.
	Idle time.Duration
	// Harnesses reads each agent harness whose config holds td's hooks in
	// the work tree; nil skips the harness checks.
	Harnesses func() ([]Harness, error)
}

// Report is what td doctor found.
type Report struct {
	Problems []Problem `json:"problems"`
	// Checks are the checks that ran, in order.
	Checks []string `json:"checks"`
	// Harnesses are the agent harnesses whose config holds td's hooks.
	Harnesses []Harness `json:"harnesses"`
}

// Remaining counts the problems not fixed.
func (r *Report) Remaining() int {
	n := 0
	for _, p := range r.Problems {
		if !p.Fixed {
			n++
		}
	}
	return n
}

// Run runs every check and, with o.Fix, repairs what it can.
func Run(s *repo.Store, o Options) (*Report, error) {
	if o.Idle == 0 {
		o.Idle = DefaultIdle
	}
	rep := &Report{Problems: []Problem{}}
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g != nil {
		rep.Checks = append(rep.Checks, CheckDriver, CheckGitattributes, CheckHooks)
		if !repo.MergeDriverRegistered(g) {
			msg := "this clone's git config does not register td's merge driver, so git merges issue files line by line and conflicts more often; td doctor --fix (or td init) registers it"
			if v := g.ConfigValue("merge", "td", "driver"); v != "" {
				msg = fmt.Sprintf("merge.td.driver is %q, not %q; td doctor --fix sets it", v, repo.MergeDriverCommand)
			} else if g.ConfigValue("merge", "td", "name") != "" {
				msg = "this clone's git config has a [merge \"td\"] section without a driver command, so git stops every merge of an issue file; td doctor --fix completes it"
			}
			rep.add(Problem{Check: CheckDriver, Path: "merge.td.driver", Message: msg, fix: func() error { return repo.RegisterMergeDriver(g) }})
		}
		missing, err := repo.MissingGitattributes(g.Root())
		if err != nil {
			rep.add(Problem{Check: CheckGitattributes, Path: ".gitattributes", Message: err.Error()})
		}
		for _, l := range missing {
			rep.add(Problem{Check: CheckGitattributes, Path: ".gitattributes", Message: fmt.Sprintf("lacks the line %q; td doctor --fix adds it (commit it so every clone has it)", l),
				fix: func() error { _, err := repo.EnsureGitattributes(g.Root()); return err }})
		}
		if err := checkHooks(s, rep); err != nil {
			return nil, err
		}
	}
	rep.Checks = append(rep.Checks, CheckCaches)
	for _, c := range s.CheckCaches() {
		rep.add(Problem{Check: CheckCaches, Path: c.Path, Message: c.Msg + "; td rebuilds it when it needs it, td doctor --fix does now", fix: s.RebuildCaches})
	}
	if c := search.CheckCache(s); c != nil {
		rep.add(Problem{Check: CheckCaches, Path: c.Path, Message: c.Msg + "; the next td search rebuilds it, td doctor --fix removes it now", fix: func() error { return search.RemoveCache(s) }, repair: "remove the search cache"})
	}
	// An issue file td cannot read is what td check reports as invalid;
	// every other command skips it with a warning, so a person could
	// miss it for weeks. td never rewrites it: it is fixed by hand.
	rep.Checks = append(rep.Checks, CheckIssueFiles)
	// Each file is parsed on its own, past the index cache, which the
	// caches check reports and only --fix rebuilds.
	if ids, err := s.IssueIDs(); err == nil {
		for _, id := range ids {
			var pe *repo.ParseError
			if _, err := s.ReadIssueFile(id); errors.As(err, &pe) && !pe.Conflict {
				rep.add(Problem{Check: CheckIssueFiles, Message: err.Error() + "; td cannot read it and will not rewrite it: fix it by hand (td check names the same)"})
			}
		}
	}
	if g != nil {
		rep.Checks = append(rep.Checks, CheckMerge)
		todos, err := s.TodosInRepo(g)
		if err != nil {
			return nil, err
		}
		un, err := g.Unmerged(todos)
		if err != nil {
			rep.add(Problem{Check: CheckMerge, Message: err.Error()})
		}
		for _, u := range un {
			rep.add(Problem{Check: CheckMerge, Path: u.Path, Message: "a merge left it conflicted; td resolve merges it with td's rules"})
		}
	}
	rep.Checks = append(rep.Checks, CheckSessions)
	idle, err := sessions.IdleActivity(s, o.Idle)
	if err != nil {
		return nil, err
	}
	for _, a := range idle {
		rep.add(Problem{Check: CheckSessions, Path: a.ID,
			Message: fmt.Sprintf("idle since %s; td session prune --idle %s (or td doctor --fix) removes its local state", a.LastActive.Format(time.RFC3339), idleWords(o.Idle)),
			fix:     func() error { return s.RemoveRuntime(a.ID) }})
	}
	if g != nil {
		if err := checkClaims(s, g, rep); err != nil {
			return nil, err
		}
	}
	if o.Harnesses != nil {
		if err := checkHarnesses(rep, o.Harnesses); err != nil {
			return nil, err
		}
	}
	if o.Fix {
		// One repair may settle several findings (every missing line of
		// .gitattributes, every corrupt cache): it runs once.
		done := map[string]error{}
		for i := range rep.Problems {
			p := &rep.Problems[i]
			if p.fix == nil {
				continue
			}
			key := p.Check
			if p.repair != "" {
				key = p.repair
			}
			if p.Check == CheckSessions {
				key += " " + p.Path
			}
			err, ran := done[key]
			if !ran {
				err = p.fix()
				done[key] = err
			}
			if err != nil {
				p.Message += fmt.Sprintf(" (the repair failed: %v)", err)
				continue
			}
			p.Fixed = true
			if p.fixed != "" {
				p.Message = p.fixed
			}
		}
	}
	return rep, nil
}

// checkClaims reports stray claims, which --fix releases, and claims
// whose lease ended on work still going, which it leaves to td reclaim.
func checkClaims(s *repo.Store, g *gitrepo.Repo, rep *Report) error {
	rep.Checks = append(rep.Checks, CheckStrayClaims, CheckClaims)
	set, err := claims.Load(s)
	if err != nil {
		rep.add(Problem{Check: CheckClaims, Path: claims.Prefix, Message: err.Error()})
		return nil
	}
	if set.Len() == 0 {
		return nil
	}
	todos, err := s.TodosInRepo(g)
	if err != nil {
		return err
	}
	now := s.Now()
	for _, issue := range set.Issues() {
		c := set.Raw(issue)
		if f := set.Refused(issue); c == nil && f != nil {
			until := f.Expires.UTC().Format(time.RFC3339)
			rep.add(Problem{Check: CheckStrayClaims, Path: claims.RefName(issue),
				Message: fmt.Sprintf("the claim of %s (session %s) on %s holds its lease until %s, beyond the %s claims.ttl gives: no td gives such a lease, so td reads it as nobody's; td doctor --fix releases it", f.Actor.Name(), f.Session, issue, until, TTLWords(s.Config.ClaimTTL())),
				fixed:   fmt.Sprintf("released the claim of %s on %s, whose lease ran until %s", f.Actor.Name(), issue, until),
				fix:     drop(s, issue, nil), repair: "release " + issue})
			continue
		}
		if c == nil {
			rep.add(Problem{Check: CheckStrayClaims, Path: claims.RefName(issue),
				Message: fmt.Sprintf("the claim on %s names a record td cannot read, so it is nobody's; td doctor --fix releases it", issue),
				fixed:   fmt.Sprintf("released the claim on %s, whose record td could not read", issue),
				fix:     drop(s, issue, nil), repair: "release " + issue})
			continue
		}
		holder := fmt.Sprintf("%s (session %s) %s", c.Actor.Name(), c.Session, set.Where(c))
		if why := strayWhy(s, g, set, todos, c); why != "" {
			rep.add(Problem{Check: CheckStrayClaims, Path: claims.RefName(c.Issue),
				Message: fmt.Sprintf("the claim of %s on %s is stray: %s; td doctor --fix releases it", holder, c.Issue, why),
				fixed:   fmt.Sprintf("released the claim of %s on %s: %s", holder, c.Issue, why),
				fix:     drop(s, c.Issue, c), repair: "release " + c.Issue})
			continue
		}
		if c.Expired(now) {
			rep.add(Problem{Check: CheckClaims, Path: claims.RefName(c.Issue),
				Message: fmt.Sprintf("the claim of %s on %s ended at %s: nobody renews it, and td start refuses the issue until td reclaim %s takes it over (audited) or its holder runs td unstart %s",
					holder, c.Issue, c.Expires.UTC().Format(time.RFC3339), c.Issue, c.Issue)})
		}
	}
	return nil
}

// TTLWords is a lease as the config spells one: 2h, 45m, 1h30m.
func TTLWords(d time.Duration) string {
	w := d.String()
	if strings.HasSuffix(w, "m0s") {
		w = strings.TrimSuffix(w, "0s")
	}
	if strings.HasSuffix(w, "h0m") {
		w = strings.TrimSuffix(w, "0m")
	}
	return w
}

// strayWhy says why claim c covers no work, "" when it may: the issue's
// ledger here ended the work after it was taken; the issue is in no issue
// file of this work tree or of any branch of this clone; or the work tree
// holding the claim, on this machine, is gone, or has the issue closed, or open and
// not assigned to the claim's session (td send assigns the issue to the
// agent it claims it for, which starts it next).
func strayWhy(s *repo.Store, g *gitrepo.Repo, set *claims.Set, todos string, c *domain.Claim) string {
	if end, ok := set.Ended(c); ok {
		return claims.EndWords(c.Issue, end) + ", after it was taken (td sync releases it on the remote too)"
	}
	if !issueAnywhere(s, g, todos, c.Issue) {
		return c.Issue + " is in no issue file of this work tree or of any branch of this clone"
	}
	if c.Host != set.HereHost {
		return ""
	}
	if _, err := os.Lstat(c.Worktree); errors.Is(err, fs.ErrNotExist) {
		return "the work tree " + c.Worktree + " that holds it is gone from this machine"
	}
	p := filepath.Join(c.Worktree, repo.TodosDir, repo.IssuesDir, c.Issue+".md")
	data, err := os.ReadFile(p)
	if err != nil {
		return "" // unreadable, or on another branch there: the lease tells
	}
	is, err := repo.ParseIssueOwned(p, c.Issue, data)
	if err != nil {
		return ""
	}
	if is.Status == domain.StatusOpen && is.Assignee == "session:"+c.Session {
		return "" // bound to it, as td send leaves an agent: its start is next
	}
	switch is.Status {
	case domain.StatusOpen, domain.StatusClosed:
		where := "the work tree " + c.Worktree + " that holds it"
		if c.Worktree == s.Root {
			where = "this work tree, which holds it"
		}
		return fmt.Sprintf("%s is %s in %s, so no work there needs it", c.Issue, is.Status, where)
	}
	return ""
}

// issueAnywhere reports whether the issue has a file in this work tree or
// at the tip of any local or remote-tracking branch.
func issueAnywhere(s *repo.Store, g *gitrepo.Repo, todos, issue string) bool {
	if _, err := os.Lstat(s.IssuePath(issue)); err == nil {
		return true
	}
	p := repo.IssuesDir + "/" + issue + ".md"
	if todos != "." && todos != "" {
		p = todos + "/" + p
	}
	for _, prefix := range []string{"refs/heads/", "refs/remotes/"} {
		refs, err := g.Refs(prefix)
		if err != nil {
			return true // unsure: not stray
		}
		for _, r := range refs {
			if _, err := g.FileAt(r.Hash, p); err == nil {
				return true
			}
		}
	}
	return false
}

// drop is the repair of a stray claim: release it if it is still the one
// found (claims.Drop).
func drop(s *repo.Store, issue string, c *domain.Claim) func() error {
	return func() error {
		_, err := claims.Drop(s, issue, c)
		return err
	}
}

// checkHarnesses reports a harness whose config lacks events this td
// installs (--fix installs them) and one that will not run td's hooks
// (the step to take is the user's, in the harness).
func checkHarnesses(rep *Report, read func() ([]Harness, error)) error {
	rep.Checks = append(rep.Checks, CheckHarnessHooks, CheckHarnessTrust)
	hs, err := read()
	if err != nil {
		return err
	}
	rep.Harnesses = hs
	for _, h := range hs {
		if len(h.Missing) > 0 {
			what := "the events " + strings.Join(h.Missing, ", ")
			if len(h.Missing) == 1 {
				what = "the event " + h.Missing[0]
			}
			if h.Missing[0] == "plugin" {
				what = "the plugin as this td writes it"
			}
			rep.add(Problem{Check: CheckHarnessHooks, Path: h.Config,
				Message: fmt.Sprintf("td's hooks for %s lack %s; td doctor --fix (or td hooks install --%s) adds them", h.Name, what, h.Name),
				fix:     h.Install, repair: "install " + h.Name})
		}
		if h.Runs == "no" {
			for _, n := range h.Notes {
				rep.add(Problem{Check: CheckHarnessTrust, Path: h.Config, Message: n})
			}
		}
	}
	return nil
}

func (r *Report) add(p Problem) {
	p.Fixable = p.fix != nil
	r.Problems = append(r.Problems, p)
}

// checkHooks reports td's git hooks out of date or missing when some of
// them are installed. Hooks are optional (td hooks install): none at all
// is not a problem, and a hook that is not td's is the user's.
func checkHooks(s *repo.Store, rep *Report) error {
	plan, err := sessions.HookPlan(s)
	if err != nil {
		return err
	}
	installed := false
	for _, h := range plan {
		if h.Action == sessions.HookCurrent || h.Action == sessions.HookUpdated {
			installed = true
		}
	}
	if !installed {
		return nil
	}
	fix := func() error { _, err := sessions.InstallHooks(s, sessions.HookOptions{}); return err }
	for _, h := range plan {
		switch h.Action {
		case sessions.HookInstalled:
			rep.add(Problem{Check: CheckHooks, Path: h.Path, Message: fmt.Sprintf("td's %s hook is missing while td's other hooks are installed; td doctor --fix (or td hooks install) writes it", h.Name), fix: fix})
		case sessions.HookUpdated:
			rep.add(Problem{Check: CheckHooks, Path: h.Path, Message: fmt.Sprintf("td's %s hook is out of date or not executable; td doctor --fix (or td hooks install) rewrites it", h.Name), fix: fix})
		}
	}
	return nil
}

// idleWords writes a duration as td session prune --idle takes it, in
// whole days when it is some ("720h"), else as Go writes it.
func idleWords(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return d.String()
}
