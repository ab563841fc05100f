// Package doctor checks what td needs of a checkout beyond the committed
// files, which td check covers: that git runs td's merge driver for issue
// files, that .gitattributes routes them to it, that td's git hooks (when
// installed) are current, that the local caches are readable, that no
// merge under .todos is left unfinished, and that sessions that went quiet
// do not pile up local state, and that no claim's lease has ended unseen.
// Each finding is one Problem; Fix repairs what td can. An ended claim is
// reported, never repaired: taking it over is td reclaim's, audited.
package doctor

import (
	"fmt"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/search"
	"github.com/tdproject/td/repo/sessions"
)

// Checks, in the order td doctor runs them.
const (
	CheckDriver        = "merge_driver"
	CheckGitattributes = "gitattributes"
	CheckHooks         = "hooks"
	CheckCaches        = "caches"
	CheckMerge         = "unfinished_merge"
	CheckSessions      = "idle_sessions"
	CheckClaims        = "expired_claims"
)

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
}

// Report is what td doctor found.
type Report struct {
	Problems []Problem `json:"problems"`
	// Checks are the checks that ran, in order.
	Checks []string `json:"checks"`
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
		rep.Checks = append(rep.Checks, CheckClaims)
		set, err := claims.Load(s)
		if err != nil {
			rep.add(Problem{Check: CheckClaims, Path: claims.Prefix, Message: err.Error()})
		} else {
			now := s.Now()
			for _, c := range set.All() {
				if !c.Expired(now) {
					continue
				}
				rep.add(Problem{Check: CheckClaims, Path: claims.RefName(c.Issue),
					Message: fmt.Sprintf("the claim of %s (session %s) %s on %s ended at %s: nobody renews it, and td start refuses the issue until td reclaim %s takes it over (audited) or its holder runs td unstart %s",
						c.Actor.Name(), c.Session, set.Where(c), c.Issue, c.Expires.UTC().Format(time.RFC3339), c.Issue, c.Issue)})
			}
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
		}
	}
	return rep, nil
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
