package teamsim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// issueInfo is an issue as td list --json gives it.
type issueInfo struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Status      string   `json:"status"`
	Type        string   `json:"type"`
	Priority    string   `json:"priority"`
	Implementer string   `json:"implementer"`
	Assignee    string   `json:"assignee"`
	Resolution  string   `json:"resolution"`
	CreatedBy   string   `json:"created_by"`
	Labels      []string `json:"labels"`
	Links       []struct {
		Kind string `json:"kind"`
		To   string `json:"to"`
	} `json:"links"`
}

func (is issueInfo) field(k string) (string, bool) {
	switch k {
	case "title":
		return is.Title, true
	case "priority":
		return is.Priority, true
	case "type":
		return is.Type, true
	case "status":
		return is.Status, true
	case "assignee":
		return is.Assignee, true
	}
	return "", false
}

// todoInfo is a todo as td show --json gives it.
type todoInfo struct {
	Kind   string `json:"kind"`
	Status string `json:"status"`
	Text   string `json:"text"`
	Phase  string `json:"phase"`
}

// listIssues asks td for every issue at a place.
func (w *world) listIssues(p *place) []issueInfo {
	r := w.td(p, "list", "--all", "--json")
	var list []issueInfo
	if err := json.Unmarshal([]byte(r.out), &list); err != nil {
		return nil
	}
	return list
}

// todos asks td for an issue's checklist.
func (w *world) todos(p *place, id string) []todoInfo {
	r := w.td(p, "show", id, "--json")
	var show struct {
		Todos struct {
			Items []todoInfo `json:"items"`
		} `json:"todos"`
	}
	if json.Unmarshal([]byte(r.out), &show) != nil {
		return nil
	}
	return show.Todos.Items
}

// choice is one thing the simulation may do next, with its weight.
type choice struct {
	weight float64
	do     func()
}

func (w *world) pick(cs []choice) {
	total := 0.0
	for _, c := range cs {
		total += c.weight
	}
	x := w.rng.Float64() * total
	for _, c := range cs {
		if x -= c.weight; x < 0 {
			c.do()
			return
		}
	}
}

// randomStep does one thing: someone acts at their place, a branch is
// pushed, a pull request lands, main is merged back, claims are synced,
// time passes, or a read is checked against what the model knows.
func (w *world) randomStep() {
	var cs []choice
	agents := 0
	for _, p := range w.places {
		p := p
		if p.retired || p.leadOf != nil {
			continue
		}
		switch {
		case p.agent:
			agents++
			lead := 0.8
			if w.statusAt(p.dir, p.issue) == "in_review" {
				lead = 4 // the lead comes to review the agent's work where it is
			}
			cs = append(cs, choice{5, func() { w.act(p) }}, choice{lead, func() { w.act(w.leadIn(p)) }})
		default:
			cs = append(cs, choice{6, func() { w.act(p) }})
		}
		for _, br := range p.parked {
			if br.pr != nil {
				pr := br.pr
				cs = append(cs, choice{2, func() { w.land(pr) }})
			}
		}
		if br := p.br; br != nil && !br.done {
			if br.unpushed || w.staged(p) {
				cs = append(cs, choice{2.5, func() { w.push(br) }})
			}
			if br.pr != nil {
				cs = append(cs, choice{3, func() { w.land(br.pr) }})
			}
			cs = append(cs, choice{0.4, func() { w.mergeBack(br, "to stay current") }})
		}
	}
	if agents < 2 {
		cs = append(cs, choice{1.5, w.newAgent})
	}
	cs = append(cs,
		choice{0.8, func() { w.sync(w.places[0]) }},
		choice{0.8, func() { w.sync(w.places[1]) }},
		choice{0.25, func() {
			d := time.Duration(60+w.rng.Intn(120)) * time.Minute
			w.now = w.now.Add(d)
			w.note("%s pass", d)
		}},
		choice{0.5, func() { w.readyCheck(w.places[0]) }},
	)
	w.pick(cs)
}

// statusAt reads an issue's status in a work tree, as the model reads it.
func (w *world) statusAt(dir, id string) string {
	data, err := os.ReadFile(filepath.Join(dir, ".todos", "issues", id+".md"))
	if err != nil {
		return ""
	}
	return parseIssue(string(data)).fields["status"]
}

// staged reports whether td left changes staged at a place.
func (w *world) staged(p *place) bool {
	_, err := w.gitQuiet(p.dir, "diff", "--cached", "--quiet")
	return err != nil
}

// act is a short burst of td commands at a place, then perhaps a commit.
func (w *world) act(p *place) {
	if p.retired {
		return
	}
	if !p.agent && p.leadOf == nil && p.br != nil && !p.br.done && p.br.pr != nil && !p.br.unpushed &&
		len(p.parked) < 2 && w.rng.Intn(100) < 8 && !w.staged(p) {
		// The pull request waits for review: its author starts something
		// else meanwhile, on a new branch from main.
		w.note("%s leaves %s waiting for review and starts another branch", p.name, p.br.name)
		p.parked = append(p.parked, p.br)
		p.br = nil
	}
	if p.br == nil || p.br.done {
		if p.agent || p.leadOf != nil {
			return
		}
		w.startBranch(p)
	}
	if p.agent && !p.viewed {
		w.agentProbe(p, "in its worktree")
		if p.retired {
			return
		}
	}
	for i := 0; i < 1+w.rng.Intn(3); i++ {
		issues := w.listIssues(p)
		var args []string
		for try := 0; try < 6 && args == nil; try++ {
			if p.agent {
				args = w.agentCommand(p, issues)
			} else {
				args = w.personCommand(p, issues)
			}
		}
		if len(args) > 0 {
			w.perform(p, args)
		}
	}
	if w.rng.Intn(10) < 6 {
		w.commit(p, "td work")
	}
}

// startBranch starts a new line of work from main at a person's place.
func (w *world) startBranch(p *place) {
	if p.br != nil && !p.br.done {
		return
	}
	if w.staged(p) {
		w.commit(p, "td work")
	}
	w.branches++
	name := fmt.Sprintf("%s-%d", p.name, w.branches)
	w.git(p.dir, p.who, "fetch", "-q", "origin")
	w.git(p.dir, p.who, "checkout", "-q", "-B", name, "origin/main")
	p.br = &branch{name: name, place: p, touched: map[string]bool{}}
	p.startedHere = map[string]bool{}
	// A binding is the session's, not the branch's: it holds on the new
	// branch too (and files nothing under an issue the branch lacks).
}

// leadIn is the lead acting in an agent's worktree, as herself: she
// reviews, approves and adds criteria there.
func (w *world) leadIn(agent *place) *place {
	if agent.lead == nil {
		agent.lead = &place{name: "alice@" + agent.name, dir: agent.dir, who: w.alice, clone: w.aclone, leadOf: agent, startedHere: map[string]bool{}}
	}
	agent.lead.br = agent.br
	agent.lead.retired = agent.retired
	return agent.lead
}

var exportRE = regexp.MustCompile(`export TD_SESSION=(ses_[0-9a-z]+)`)

// newAgent is the lead sending an agent to an issue on main: td send in
// her checkout, then a worktree of her clone on a branch of the agent's.
func (w *world) newAgent() {
	alice := w.places[0]
	if alice.br == nil || alice.br.done {
		w.startBranch(alice)
	}
	env := w.env(w.alice, "", "")
	onMain, err := treeAt(w.remote, "main", env)
	if err != nil {
		w.fatalf("%v", err)
	}
	var candidates []string
	for _, is := range w.listIssues(alice) {
		if is.Status != "open" || is.Type == "epic" || onMain[".todos/issues/"+is.ID+".md"] == "" {
			continue
		}
		if d := parseIssue(onMain[".todos/issues/"+is.ID+".md"]); d.fields["status"] != "open" {
			continue
		}
		busy := false
		for _, p := range w.places {
			if p.agent && !p.retired && p.issue == is.ID {
				busy = true
			}
		}
		if !busy {
			candidates = append(candidates, is.ID)
		}
	}
	if len(candidates) == 0 {
		return
	}
	id := candidates[w.rng.Intn(len(candidates))]
	r := w.perform(alice, []string{"send", id, "-q", "-m", "Work on it"})
	m := exportRE.FindStringSubmatch(r.out)
	if m == nil {
		return
	}
	w.agents++
	name := fmt.Sprintf("agent%d", w.agents)
	dir := filepath.Join(w.root, "wt-"+name)
	w.git(alice.dir, w.alice, "fetch", "-q", "origin")
	brName := fmt.Sprintf("%s-%d", name, 1)
	w.git(alice.dir, w.alice, "worktree", "add", "-q", "-b", brName, dir, "origin/main")
	p := &place{name: name, dir: dir, who: w.alice, clone: w.aclone, agent: true, session: m[1], issue: id, startedHere: map[string]bool{}}
	p.br = &branch{name: brName, place: p, touched: map[string]bool{}}
	w.places = append(w.places, p)
	w.note("%s works on %s as %s in %s", name, id, m[1], dir)
}

// agentProbe checks that the agent's session works where the agent works
// (invariant 6). When it does not, the simulation does what a person would
// to go on: copy the session's file from the lead's checkout, where td
// send wrote it, and bind the session again in the worktree.
func (w *world) agentProbe(p *place, when string) {
	p.viewed = true
	r := w.td(p, "todo", "view", "--json")
	if r.ok() {
		return
	}
	w.violate("6", "an agent's session cannot act "+when+": "+firstViolation(r.text()), fmt.Sprintf("%s (%s, bound to %s): %s", p.name, p.session, p.issue, r.text()))
	rel := filepath.Join(".todos", "sessions", p.session+".yaml")
	if data, err := os.ReadFile(filepath.Join(w.aclone.dir, rel)); err == nil {
		if _, err := os.Stat(filepath.Join(p.dir, rel)); err != nil {
			if err := os.WriteFile(filepath.Join(p.dir, rel), data, 0o644); err != nil {
				w.fatalf("%v", err)
			}
			w.git(p.dir, p.who, "add", "--", rel)
			w.git(p.dir, p.who, "commit", "-q", "--no-verify", "-m", "Bring the agent's session into its worktree")
			w.note("the session file %s is copied into %s and committed there, past the hooks", rel, p.name)
		}
	}
	if w.td(p, "todo", "view", "--json").ok() {
		return
	}
	if !w.perform(p, []string{"session", "bind", p.issue}).ok() {
		w.note("%s cannot work: its session is unusable here", p.name)
		w.retireAgent(p)
	}
}

// retireAgent ends an agent: its worktree goes once its work is pushed.
func (w *world) retireAgent(p *place) {
	if p.br != nil && p.br.pr != nil {
		return
	}
	if p.br != nil && (p.br.unpushed || w.staged(p)) {
		w.push(p.br)
		return
	}
	p.retired = true
	w.git(w.aclone.dir, w.alice, "worktree", "remove", "--force", p.dir)
	w.note("%s is done; its worktree is removed", p.name)
}

// perform runs a td command that may write, checks that a refusal
// changed nothing, records what an accepted command wrote, and applies
// the checks particular to its verb.
func (w *world) perform(p *place, args []string) result {
	verb := verbOf(args)
	var listed map[string]bool
	if verb == "approve" {
		listed = w.reviewable(p)
	}
	before := w.snapshot(p.dir)
	r := w.td(p, args...)
	if verb == "approve" && !r.ok() && strings.Contains(r.text(), "--reason") {
		args = append(args, "--reason", w.newText("reviewed"))
		r = w.td(p, args...)
	}
	after := w.snapshot(p.dir)
	if !r.ok() {
		w.stats.refused++
		w.stats.refusalsByVerb[verb]++
		if ch := before.changed(after); len(ch) > 0 && !onlyProvenance(before, after) {
			w.violate("refusal", "a refused td "+verb+" changed files", strings.Join(ch, ", ")+": "+firstLines(r.text(), 2))
		}
	} else {
		w.stats.acceptedByVerb[verb]++
		if p.br != nil {
			for _, l := range before.newLedgerLines(after) {
				l.step = w.step
				p.br.written = append(p.br.written, l)
			}
		}
	}
	w.afterCommand(p, verb, args, r, listed)
	return r
}

// onlyProvenance reports whether a refused command wrote nothing but a
// provenance_conflict security event (and its ledger copy), which the
// review policy records when the frontmatter and the history disagree,
// whatever it then decides.
func onlyProvenance(before, after tree) bool {
	lines := before.newLedgerLines(after)
	if len(lines) == 0 {
		return false
	}
	for _, l := range lines {
		if !strings.Contains(l.line, "provenance_conflict") {
			return false
		}
	}
	for _, p := range before.changed(after) {
		if p != "(the index)" && !strings.HasSuffix(p, ".jsonl") {
			return false
		}
	}
	return true
}

// verbOf names a command for the statistics: its verb, and the todo verb.
func verbOf(args []string) string {
	if len(args) > 1 && (args[0] == "todo" || args[0] == "session") {
		return args[0] + " " + args[1]
	}
	return args[0]
}

// reviewable lists what td reviewable says the place's session may
// approve as the simulation asks: with --reason when td wants one, never
// with --override-open-criteria (an issue that needs it is one td approve
// refuses without it, as td reviewable says).
func (w *world) reviewable(p *place) map[string]bool {
	r := w.td(p, "reviewable", "--json")
	var list []struct {
		ID            string `json:"id"`
		NeedsOverride bool   `json:"needs_override"`
	}
	_ = json.Unmarshal([]byte(r.out), &list)
	m := map[string]bool{}
	for _, is := range list {
		m[is.ID] = !is.NeedsOverride
	}
	return m
}

// afterCommand applies the checks of invariants 2, 5 and 8 that follow a
// particular verb.
func (w *world) afterCommand(p *place, verb string, args []string, r result, listed map[string]bool) {
	switch verb {
	case "approve":
		id := args[1]
		if p.agent && r.ok() {
			w.stats.agentApprovals++
		} else if p.agent {
			w.stats.agentApprovalsRefused++
		}
		if listed[id] != r.ok() {
			w.violate("2", fmt.Sprintf("td reviewable and td approve disagree (listed %v, approved %v)", listed[id], r.ok()),
				fmt.Sprintf("%s at %s: %s", id, p.name, firstLines(r.text(), 2)))
		}
		if r.ok() && !p.agent && !p.who.operator {
			if role := w.role(p); role == "agent" {
				w.violate("2", "td approve accepts a person td calls an agent", fmt.Sprintf("%s approved %s with effective role %s", p.who.name, id, role))
			}
		}
	case "start":
		if r.ok() {
			p.startedHere[args[1]] = true
		} else if strings.Contains(r.text(), "claim") {
			w.claimBlocksStart(p, args[1], r)
		}
	case "create":
		w.checkCreate(p, r)
	case "session bind":
		if r.ok() && !p.agent {
			p.explicitBind = args[2]
		}
	case "session unbind":
		if r.ok() {
			p.explicitBind = ""
		}
	}
	if r.ok() && p.br != nil && len(args) > 1 && strings.HasPrefix(args[1], "td-") {
		p.br.touched[args[1]] = true
	}
}

// role asks td which role the place's session acts with.
func (w *world) role(p *place) string {
	r := w.td(p, "whoami", "--json")
	var who struct {
		Session struct {
			EffectiveRole string `json:"effective_role"`
		} `json:"session"`
	}
	_ = json.Unmarshal([]byte(r.out), &who)
	return who.Session.EffectiveRole
}

var createdRE = regexp.MustCompile(`\b(td-[0-9a-z]{6})\b`)

// checkCreate checks auto-parenting (invariant 8): an agent's issue is
// filed under its bound issue, a person's only under one she bound
// explicitly; and td create is never stopped by a binding.
func (w *world) checkCreate(p *place, r result) {
	if !r.ok() {
		w.violate("8", "td create refused: "+firstViolation(r.text()), p.name+": "+r.text())
		return
	}
	m := createdRE.FindStringSubmatch(r.out)
	if m == nil {
		return
	}
	id := m[1]
	links := ""
	boundHere := false // the explicitly bound issue is on this branch
	for _, is := range w.listIssues(p) {
		if is.ID == id {
			for _, l := range is.Links {
				if l.Kind == "child_of" {
					links = l.To
				}
			}
		}
		boundHere = boundHere || (p.explicitBind != "" && is.ID == p.explicitBind)
	}
	switch {
	case p.agent && links != p.issue:
		w.violate("8", "an agent's td create is not filed under its bound issue", fmt.Sprintf("%s created %s (child_of %q), bound to %s", p.name, id, links, p.issue))
	case !p.agent && p.explicitBind == "" && links != "":
		w.violate("8", "a person's td create is filed child_of an issue she started, not bound", fmt.Sprintf("%s created %s child_of %s", p.name, id, links))
	case !p.agent && p.explicitBind != "" && boundHere && links != p.explicitBind && links == "":
		w.violate("8", "td create after td session bind is not filed under the bound issue", fmt.Sprintf("%s created %s, bound to %s", p.name, id, p.explicitBind))
	}
}

// claimBlocksStart looks at a start refused for a claim: a claim that
// predates the issue's last close, reopen or unstart is stray, and an
// operator's td unstart must release it; an ended lease is reclaimed with
// a reason, and the reclaimer can then start (invariant 5).
func (w *world) claimBlocksStart(p *place, id string, r result) {
	cl, ok := claimsAt(p.clone.dir, w.env(w.alice, "", ""))[id]
	if !ok {
		return
	}
	last := w.lastTransition(p, id)
	if cl.claimed.Before(last) {
		w.violateOnce("stale-claim:"+id+cl.session, "5", "a claim older than the issue's last close, reopen or unstart blocks td start",
			fmt.Sprintf("%s: claim by %s (%s) from %s; last transition %s: %s", id, cl.session, cl.actor, cl.claimed.Format(time.RFC3339), last.Format(time.RFC3339), firstLines(r.text(), 2)))
		if p.who.operator && !p.agent {
			if u := w.perform(p, []string{"unstart", id}); !u.ok() {
				w.violate("5", "td unstart by an operator does not release a stray claim: "+firstViolation(u.text()), id+": "+u.text())
			}
		}
		return
	}
	if !cl.expires.Before(w.now) {
		return
	}
	if w.rng.Intn(4) == 0 {
		if u := w.perform(p, []string{"reclaim", id}); u.ok() {
			w.violate("5", "td reclaim without --reason is accepted", id)
			return
		}
	}
	if !w.perform(p, []string{"reclaim", id, "--reason", w.newText("the lease ended")}).ok() {
		return
	}
	if s := w.perform(p, []string{"start", id}); !s.ok() && strings.Contains(s.text(), "claim") {
		w.violate("5", "after td reclaim, td start is still refused: "+firstViolation(s.text()), id+": "+s.text())
	}
}

// lastTransition is the time of the issue's last close, approval, reopen
// or unstart in the place's ledger.
func (w *world) lastTransition(p *place, id string) time.Time {
	var last time.Time
	data := w.snapshot(p.dir).files[".todos/history/"+id+".jsonl"]
	for _, l := range splitLines(data) {
		var e struct {
			TS     string `json:"ts"`
			Action string `json:"action"`
		}
		if json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		switch e.Action {
		case "closed", "approved", "reopened", "unstarted":
			if t, err := time.Parse(time.RFC3339, e.TS); err == nil && t.After(last) {
				last = t
			}
		}
	}
	return last
}

// sync exchanges claims with the remote; then no claim taken before its
// issue closed on main may be left here or there (invariant 5).
func (w *world) sync(p *place) {
	if p.br == nil {
		return
	}
	r := w.perform(p, []string{"sync"})
	if !r.ok() {
		return
	}
	env := w.env(w.alice, "", "")
	for where, claims := range map[string]map[string]claim{p.name: claimsAt(p.clone.dir, env), "the remote": claimsAt(w.remote, env)} {
		for id, cl := range claims {
			if closed := w.closedAt[id]; !closed.IsZero() && cl.claimed.Before(closed) {
				w.violateOnce("sync:"+where+id, "5", "a claim on an issue closed on main survives td sync", fmt.Sprintf("%s in %s: claim by %s from %s, closed on main by %s", id, where, cl.session, cl.claimed.Format(time.RFC3339), closed.Format(time.RFC3339)))
			}
		}
	}
	if p.clone == w.aclone && w.rng.Intn(3) == 0 {
		w.doctorCheck(p)
	}
}

// doctorCheck asks td doctor about claims the model knows are stray or
// expired (invariant 5).
func (w *world) doctorCheck(p *place) {
	claims := claimsAt(p.clone.dir, w.env(w.alice, "", ""))
	var bad []string
	for id, cl := range claims {
		if closed := w.closedAt[id]; cl.expires.Before(w.now) || !closed.IsZero() && cl.claimed.Before(closed) {
			bad = append(bad, id)
		}
	}
	if len(bad) == 0 {
		return
	}
	r := w.td(p, "doctor", "--json")
	if !strings.Contains(r.out, "claim") || strings.Contains(r.out, `"problems": []`) {
		w.violateOnce("doctor:"+strings.Join(bad, ","), "5", "td doctor is silent about stray or expired claims", strings.Join(bad, ", "))
	}
}

// readyCheck checks td ready (invariant 8): no epic, and no issue another
// actor holds a live claim on.
func (w *world) readyCheck(p *place) {
	if p.br == nil {
		return
	}
	r := w.td(p, "ready", "--json")
	var list []issueInfo
	if json.Unmarshal([]byte(r.out), &list) != nil {
		return
	}
	claims := claimsAt(p.clone.dir, w.env(w.alice, "", ""))
	for _, is := range list {
		if is.Type == "epic" {
			w.violateOnce("ready-epic:"+is.ID, "8", "td ready lists an epic", is.ID)
		}
		// A claim the work ended after (a close, an approval, a reopen, an
		// unstart in this work tree's ledger) is stale: it holds nothing.
		if cl, ok := claims[is.ID]; ok && cl.expires.After(w.now) && (cl.actor != p.who.ident() || cl.agent != "") && !w.lastTransition(p, is.ID).After(cl.claimed) {
			w.violateOnce("ready-claim:"+is.ID+cl.session, "8", "td ready lists an issue another actor holds a claim on", fmt.Sprintf("%s claimed by %s (%s)", is.ID, cl.actor, cl.agent))
		}
	}
}

// createIssue files an issue at a place and returns its ID.
func (w *world) createIssue(p *place) string {
	args := []string{"create", w.newText("Issue")}
	types := []string{"task", "task", "bug", "feature", "chore", "epic"}
	if t := types[w.rng.Intn(len(types))]; t != "task" {
		args = append(args, "--type", t)
	}
	if w.rng.Intn(2) == 0 {
		args = append(args, "-p", fmt.Sprintf("P%d", w.rng.Intn(5)))
	}
	if w.rng.Intn(2) == 0 {
		args = append(args, "-l", w.label())
	}
	if w.rng.Intn(2) == 0 {
		args = append(args, "-d", w.newText("Description"))
	}
	r := w.perform(p, args)
	if m := createdRE.FindStringSubmatch(r.out); m != nil {
		return m[1]
	}
	return ""
}

func (w *world) label() string {
	labels := []string{"ui", "backend", "auth", "perf", "docs"}
	return labels[w.rng.Intn(len(labels))]
}

// pickIssue picks an issue whose status is one of statuses (any when none
// is given), or "" when there is none. The first issues are the team's
// hot ones and are picked more often, so that branches overlap.
func (w *world) pickIssue(issues []issueInfo, statuses ...string) string {
	var ids []string
	for _, is := range issues {
		if len(statuses) == 0 || contains(statuses, is.Status) {
			ids = append(ids, is.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	if w.rng.Intn(2) == 0 && len(ids) > 4 {
		ids = ids[:4]
	}
	return ids[w.rng.Intn(len(ids))]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (w *world) issue(issues []issueInfo, id string) issueInfo {
	for _, is := range issues {
		if is.ID == id {
			return is
		}
	}
	return issueInfo{}
}

// pickTodo picks a todo of an issue by kind and status, or "".
func (w *world) pickTodo(items []todoInfo, kind string, statuses ...string) string {
	var texts []string
	for _, t := range items {
		if (kind == "" || t.Kind == kind) && (len(statuses) == 0 || contains(statuses, t.Status)) {
			texts = append(texts, t.Text)
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return texts[w.rng.Intn(len(texts))]
}

// personCommand picks a command a person might run, with its arguments,
// or nil to pick again.
func (w *world) personCommand(p *place, issues []issueInfo) []string {
	var out []string
	lead := p.leadOf != nil
	any := func(st ...string) string {
		if lead {
			if is := w.issue(issues, p.leadOf.issue); is.ID != "" && (len(st) == 0 || contains(st, is.Status)) {
				return is.ID
			}
			return ""
		}
		return w.pickIssue(issues, st...)
	}
	todoCmd := func(verb, kind string, statuses []string, extra ...string) func() {
		return func() {
			id := any()
			if id == "" {
				return
			}
			text := w.pickTodo(w.todos(p, id), kind, statuses...)
			if text == "" {
				return
			}
			out = append([]string{"todo", verb, "--issue", id}, extra...)
			if kind != "" && w.rng.Intn(2) == 0 {
				out = append(out, "--kind", kind)
			}
			out = append(out, text)
		}
	}
	set := func(args ...string) func() {
		return func() { out = args }
	}
	withIssue := func(build func(id string) []string, st ...string) func() {
		return func() {
			if id := any(st...); id != "" {
				out = build(id)
			}
		}
	}
	cs := []choice{
		{5, withIssue(func(id string) []string { return []string{"comment", id, w.newText("comment")} })},
		{4, withIssue(func(id string) []string {
			return []string{"todo", "add", "--issue", id, "--kind", "criterion", w.newText("criterion")}
		}, "open", "in_progress", "blocked")},
		{3, withIssue(func(id string) []string {
			return []string{"todo", "add", "--issue", id, "--kind", "step", w.newText("step")}
		}, "open", "in_progress")},
		{1.5, withIssue(func(id string) []string {
			return []string{"todo", "set", "--issue", id, w.newText("step"), w.newText("step")}
		}, "open", "in_progress")},
		{4, todoCmd("done", "criterion", []string{"pending", "in_progress"})},
		{2, todoCmd("done", "step", []string{"pending", "in_progress"})},
		{1, todoCmd("start", "step", []string{"pending"})},
		{0.7, todoCmd("drop", "", []string{"pending"})},
		{0.8, todoCmd("reopen", "", []string{"completed"})},
		{0.6, todoCmd("block", "step", []string{"pending"}, "--reason", "waiting on the design")},
		{0.6, todoCmd("unblock", "step", []string{"blocked"})},
		{1.5, func() {
			id := any()
			if id == "" {
				return
			}
			if text := w.pickTodo(w.todos(p, id), "", "pending", "in_progress"); text != "" {
				out = []string{"todo", "note", "--issue", id, text, w.newText("note")}
			}
		}},
		{4, withIssue(func(id string) []string { return []string{"approve", id} }, "in_review")},
		{2, withIssue(func(id string) []string { return []string{"review", id} }, "in_progress")},
		{1.5, withIssue(func(id string) []string { return []string{"reject", id, "--reason", w.newText("missing")} }, "in_review")},
	}
	if !lead {
		cs = append(cs,
			choice{5, func() { w.createIssue(p); out = []string{} }},
			choice{2.5, withIssue(func(id string) []string { return []string{"edit", id, "--title", w.newText("Renamed")} })},
			choice{2.5, withIssue(func(id string) []string { return []string{"edit", id, "-p", fmt.Sprintf("P%d", w.rng.Intn(5))} })},
			choice{2.5, withIssue(func(id string) []string {
				if w.rng.Intn(3) == 0 {
					return []string{"edit", id, "--remove-label", w.label()}
				}
				return []string{"edit", id, "--add-label", w.label()}
			})},
			choice{3, withIssue(func(id string) []string { return []string{"edit", id, "--append", w.newText("Paragraph")} })},
			choice{3, func() { out = w.linkArgs(issues) }},
			choice{1.2, func() { out = w.unlinkArgs(issues) }},
			choice{4, withIssue(func(id string) []string { return []string{"start", id} }, "open")},
			choice{1, withIssue(func(id string) []string { return []string{"unstart", id} }, "in_progress")},
			choice{1.5, withIssue(func(id string) []string {
				return []string{"close", id, "--resolution", "wontfix", "--reason", w.newText("not now"), "--yes"}
			}, "open", "in_progress", "blocked", "in_review")},
			choice{1.2, withIssue(func(id string) []string { return []string{"close", id, "--yes"} }, "open", "in_progress", "in_review")},
			choice{0.8, func() {
				a, b := w.pickIssue(issues, "open", "in_progress", "blocked"), w.pickIssue(issues)
				if a != "" && b != "" && a != b {
					out = []string{"close", a, "--duplicate-of", b, "--yes"}
				}
			}},
			choice{1.5, withIssue(func(id string) []string { return []string{"reopen", id, "--reason", w.newText("back")} }, "closed")},
			choice{0.5, withIssue(func(id string) []string { return []string{"block", id, "--reason", "waiting"} }, "open", "in_progress")},
			choice{0.5, withIssue(func(id string) []string { return []string{"unblock", id} }, "blocked")},
			choice{0.5, set("heartbeat")},
		)
		if p.who == w.alice {
			cs = append(cs,
				choice{0.6, withIssue(func(id string) []string { return []string{"session", "bind", id} }, "open", "in_progress")},
				choice{0.3, set("session", "unbind")},
			)
		}
	}
	w.pick(cs)
	return out
}

// linkArgs picks a link between two issues.
func (w *world) linkArgs(issues []issueInfo) []string {
	a, b := w.pickIssue(issues), w.pickIssue(issues)
	if len(issues) >= 3 && w.rng.Intn(2) == 0 {
		// Among the three most urgent issues, which every branch sees
		// first, two branches link the same pairs, in both directions.
		a, b = issues[w.rng.Intn(3)].ID, issues[w.rng.Intn(3)].ID
		if a != b {
			return []string{"link", a, []string{"blocked_by", "child_of"}[w.rng.Intn(2)], b}
		}
	}
	if a == "" || b == "" || a == b {
		return nil
	}
	kinds := []string{"blocked_by", "blocked_by", "relates_to", "child_of", "duplicate_of"}
	return []string{"link", a, kinds[w.rng.Intn(len(kinds))], b}
}

// unlinkArgs picks a link some issue stores.
func (w *world) unlinkArgs(issues []issueInfo) []string {
	var links [][]string
	for _, is := range issues {
		for _, l := range is.Links {
			links = append(links, []string{"unlink", is.ID, l.Kind, l.To})
		}
	}
	if len(links) == 0 {
		return nil
	}
	return links[w.rng.Intn(len(links))]
}

// agentCommand picks a command the agent runs on its bound issue.
func (w *world) agentCommand(p *place, issues []issueInfo) []string {
	is := w.issue(issues, p.issue)
	if is.ID == "" {
		return []string{"todo", "view"}
	}
	var out []string
	items := w.todos(p, is.ID)
	steps := 0
	for _, t := range items {
		if t.Kind == "step" {
			steps++
		}
	}
	todo := func(verb, kind string, statuses []string, extra ...string) func() {
		return func() {
			if text := w.pickTodo(items, kind, statuses...); text != "" {
				out = append([]string{"todo", verb}, extra...)
				out = append(out, text)
			}
		}
	}
	startW := 0.3
	if is.Status == "open" {
		startW = 10
	}
	reviewW := 0.0
	if is.Status == "in_progress" {
		reviewW = 3
	}
	setW := 0.5
	if steps == 0 {
		setW = 4
	}
	cs := []choice{
		{startW, func() { out = []string{"start", is.ID} }},
		{setW, func() { out = []string{"todo", "set", w.newText("step"), w.newText("step")} }},
		{2, func() { out = []string{"todo", "add", "--kind", "step", w.newText("step")} }},
		{1, func() { out = []string{"todo", "add", "--kind", "criterion", w.newText("criterion")} }},
		{6, todo("done", "", []string{"pending", "in_progress"})},
		{1, todo("start", "step", []string{"pending"})},
		{0.5, todo("block", "step", []string{"pending"}, "--reason", "needs a decision")},
		{0.5, todo("unblock", "step", []string{"blocked"})},
		{1, func() {
			if text := w.pickTodo(items, "", "pending", "in_progress"); text != "" {
				out = []string{"todo", "note", text, w.newText("note")}
			}
		}},
		{0.4, todo("drop", "step", []string{"pending"})},
		{2, func() { out = []string{"comment", is.ID, w.newText("comment")} }},
		{reviewW, func() { out = []string{"review", is.ID} }},
		{1, func() { w.createIssue(p); out = []string{} }},
		{0.6, func() { out = []string{"edit", is.ID, "--append", w.newText("Paragraph")} }},
		{1, func() { out = []string{"heartbeat"} }},
		// An agent reviews another's work: a lead agent signs off what a
		// worker did on an issue it filed (the creator exception), or an
		// agent with no part in it approves by the table (td help policy).
		{1.5, func() {
			if other := w.pickIssue(issues, "in_review"); other != "" && other != is.ID {
				out = []string{"approve", other}
			}
		}},
		{0.5, func() {
			if other := w.pickIssue(issues); other != "" && other != is.ID {
				out = []string{"link", is.ID, "relates_to", other}
			}
		}},
	}
	w.pick(cs)
	return out
}
