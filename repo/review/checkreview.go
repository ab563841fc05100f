package review

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
	"github.com/tdproject/td/repo/issues"
)

// checkReviews re-decides every approval and closure added to a ledger
// since the base, as td approve and td close decided it: the review policy
// given the frontmatter, the ledger as it was just before the entry, and
// the commits that touched the issue before the one that brought the entry
// in. A decision the policy refuses is a violation, and so is an exception
// the policy allows only when audited that was not audited.
func (c *checker) checkReviews() error {
	// The base's config decides, never the environment of the machine
	// running the check, nor the policy an entry says it was decided under.
	rules, err := issues.RulesOf(c.config)
	if err != nil {
		return err
	}
	rg := c.git()
	for _, id := range sortedKeys(c.ledgers) {
		is := c.issues[id]
		if is == nil {
			continue // an unreadable issue file is reported by parseAll
		}
		for _, e := range c.addedEntries(id) {
			if e.Action != audit.ActionApproved && e.Action != audit.ActionClosed {
				continue
			}
			if err := c.checkReview(rg, is, e, rules); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkReview re-decides one approval or closure.
func (c *checker) checkReview(rg *reviewGit, is *repo.Issue, e addedEntry, rules policy.Rules) error {
	p := repo.TodosDir + "/" + repo.HistoryDir + "/" + is.ID + ".jsonl"
	entries := c.ledgers[is.ID]
	what := fmt.Sprintf("%s by %s at %s", e.Action, orNone(e.Session), e.TS.Format(time.RFC3339))
	se := c.sessions[e.Session]
	if se == nil {
		c.add(p, e.line, RuleReviewPolicy, "%s names a session with no identity file in %s/%s, so nobody can tell who decided; approvals are recorded by td approve and td close", what, repo.TodosDir, repo.SessionsDir)
		return nil
	}
	ig, err := rg.factsBefore(is.ID, e)
	if err != nil {
		return err
	}
	prior, later, err := rg.priorEntries(entries, e, c.addedEntries(is.ID))
	if err != nil {
		return err
	}
	// The decision td made, with the facts td had: the issue as it stood
	// then, the ledger up to the entry, the commits before it.
	in := issues.ReviewInput{Issue: issueBefore(is, later), Session: se, Role: c.roleOf(se.ID),
		Ledger: repo.DeriveLedgerFacts(prior), Git: ig, ActorSessions: c.sessionsOf(se.Actor()),
		Criteria: criteriaAt(is, prior, later)}
	if r, _ := e.Details["resolution"].(string); e.Action == audit.ActionClosed {
		in.Resolution = domain.Resolution(r)
	}
	var d policy.Decision
	var audited string // the reason of the exception's security entry
	if e.Action == audit.ActionApproved {
		if err := c.lateOperator(rg, is, e, se, &in); err != nil {
			return err
		}
		d = issues.DecideReview(rules, e.Action, in, e.Reason, "")
		audited = securityEntryReason(entries[e.index+1:], e.Session, audit.KindCreatorApproval)
	} else {
		selfClose := securityEntryReason(entries[e.index+1:], e.Session, audit.KindSelfClose)
		d = issues.DecideReview(rules, e.Action, in, e.Reason, selfClose)
		audited = securityEntryReason(entries[e.index+1:], e.Session, audit.KindCreatorApproval)
		if d.SelfCloseException {
			audited = selfClose
		}
	}
	// td approve and td close ask the criteria gate first: a close as
	// done over open criteria is that, whoever closed.
	if c.checkOpenCriteria(p, is, e, entries, prior, later, what) {
		return nil
	}
	if !d.Allowed {
		c.add(p, e.line, RuleReviewPolicy, "%s, which the %s review policy refuses: %s", what, rules.Mode, d.Refusal)
		return nil
	}
	if err := c.checkSignOffAuthor(rg, p, is, e, se, what); err != nil {
		return err
	}
	kind := ""
	switch {
	case d.CreatorException:
		kind = audit.KindCreatorApproval
	case d.SelfCloseException:
		kind = audit.KindSelfClose
	case e.Action == audit.ActionClosed && closesAsDone(e) && se.IsAgent():
		// td close audits every close as done by an agent.
		kind = audit.KindAgentClose
		audited = securityEntryReason(entries[e.index+1:], e.Session, kind)
	}
	if kind == "" {
		return nil
	}
	allowedAs := "is allowed only as a " + kind
	if kind == audit.KindAgentClose {
		allowedAs = "is an agent's close as done, which is always audited"
	}
	switch {
	case audited == "":
		c.add(p, e.line, RuleReviewPolicy, "%s %s, and the ledger has no %s security entry by %s after it; td approve and td close record one, so redo it with td", what, allowedAs, kind, e.Session)
	case !c.securityEventOf(is.ID, e.Session, kind):
		c.add(p, e.line, RuleReviewPolicy, "%s %s, and %s/%s has no %s event for %s by %s; td approve and td close record one, so redo it with td", what, allowedAs, repo.TodosDir, repo.SecurityEvents, kind, is.ID, e.Session)
	}
	return nil
}

// checkSignOffAuthor flags a sign-off (an approval, a close as done)
// brought by a commit whose author is not the signing session's person:
// td stages or commits a decision as whoever made it, and a rebase or
// cherry-pick keeps the author, so an approval that arrives under someone
// else's name was typed in for them. (Who can set their git identity to
// the session's can pass this; a signed sign-off is what they cannot
// make, td help signing.) A decision not committed yet is not judged.
func (c *checker) checkSignOffAuthor(rg *reviewGit, p string, is *repo.Issue, e addedEntry, se *repo.Session, what string) error {
	if e.Action == audit.ActionClosed && !closesAsDone(e) {
		return nil
	}
	arrived, err := rg.entryArrival(is.ID, e)
	if err != nil || arrived == "" {
		return err
	}
	cm, err := rg.g.CommitAt(arrived)
	if err != nil {
		return err
	}
	if author := cm.Author.String(); !domain.SameIdentity(author, se.Author) {
		c.add(p, e.line, RuleReviewPolicy, "%s arrived in commit %s by %s, but %s is %s's session; a sign-off is committed by whoever made it, so redo it with td as that person", what, arrived[:min(7, len(arrived))], author, e.Session, se.Author)
	}
	return nil
}

// closesAsDone reports whether the close entry e closed as done: its
// resolution detail says done, or nothing.
func closesAsDone(e addedEntry) bool {
	r, _ := e.Details["resolution"].(string)
	return r == "" || r == string(domain.ResolutionDone)
}

// checkOpenCriteria flags a close as done, the last one in the ledger,
// over acceptance criteria the committed file still has open, unless an
// operator overrode it with an audited reason; it reports whether it
// flagged such a close, which td close refuses before the review policy
// is asked. The criteria are judged as they were when the decision was
// made (openCriteriaAt): prior is the ledger td had then, later what came
// after it or beside it on a branch a merge brought in.
func (c *checker) checkOpenCriteria(p string, is *repo.Issue, e addedEntry, entries, prior, later []audit.Entry, what string) bool {
	if is.Status != domain.StatusClosed || is.Resolution != domain.ResolutionDone {
		return false
	}
	if e.Action == audit.ActionClosed {
		if r, _ := e.Details["resolution"].(string); r != "" && r != string(domain.ResolutionDone) {
			return false
		}
	}
	for _, later := range entries[e.index+1:] {
		if later.Action == audit.ActionApproved || later.Action == audit.ActionClosed || later.Action == audit.ActionReopened {
			return false // a later decision is the one the file shows
		}
	}
	open := openCriteriaAt(is, prior, later)
	if len(open) == 0 {
		return false
	}
	override := securityEntryReason(entries[e.index+1:], e.Session, audit.KindOpenCriteriaOverride)
	d := policy.CloseWithOpenCriteria(c.roleOf(e.Session), is.ID, e.Action, open, override)
	switch {
	case !d.Allowed:
		c.add(p, e.line, RuleReviewPolicy, "%s, as done with %d acceptance %s open (%s): only an operator may close over open criteria, with td close --override-open-criteria \"why\" (audited)",
			what, len(open), domain.Plural(len(open), "criterion", "criteria"), domain.QuoteList(open))
		return true
	case d.Override && !c.securityEventOf(is.ID, e.Session, audit.KindOpenCriteriaOverride):
		c.add(p, e.line, RuleReviewPolicy, "%s, over open acceptance criteria, and %s/%s has no %s event for %s by %s; td close records one, so redo it with td",
			what, repo.TodosDir, repo.SecurityEvents, audit.KindOpenCriteriaOverride, is.ID, e.Session)
	}
	return false
}

// openCriteriaAt lists the acceptance criteria of is that were open when
// a decision was made, prior being the ledger before it and after what
// came after it or beside it on a merged branch: the committed file's
// open criteria, with what came after undone. A criterion added after the
// decision was not there to be met; one reopened after it was met then;
// one completed after it was open then. A criterion the decision left
// alone keeps the file's state.
func openCriteriaAt(is *repo.Issue, prior, after []audit.Entry) []string {
	moved := map[string]string{} // the first action after the decision, by text
	for _, x := range after {
		t, _ := x.Details["text"].(string)
		switch x.Action {
		case audit.ActionCriterionAdded, audit.ActionCriterionCompleted, audit.ActionCriterionReopened, audit.ActionCriterionDropped:
			if _, ok := moved[t]; !ok {
				moved[t] = x.Action
			}
		}
	}
	openNow := map[string]bool{}
	for _, t := range markdown.OpenCriteria(is.Todos()) {
		openNow[t] = true
	}
	var open []string
	for _, it := range is.Todos() {
		if it.Kind != domain.KindCriterion {
			continue
		}
		first, changed := moved[it.Text]
		if !changed {
			if openNow[it.Text] {
				open = append(open, it.Text)
			}
			continue
		}
		switch lastCriterionAction(prior, it.Text) {
		case audit.ActionCriterionAdded, audit.ActionCriterionReopened:
			open = append(open, it.Text)
			continue
		case audit.ActionCriterionCompleted, audit.ActionCriterionDropped:
			continue
		}
		if first == audit.ActionCriterionCompleted {
			open = append(open, it.Text) // completed after: open before
		}
	}
	return open
}

// lastCriterionAction is the action of the last entry among entries that
// added, completed, reopened or dropped the criterion text; "" for none.
func lastCriterionAction(entries []audit.Entry, text string) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if t, _ := entries[i].Details["text"].(string); t == text {
			switch entries[i].Action {
			case audit.ActionCriterionAdded, audit.ActionCriterionCompleted, audit.ActionCriterionReopened, audit.ActionCriterionDropped:
				return entries[i].Action
			}
		}
	}
	return ""
}

// criteriaAt counts the acceptance criteria of is that were not dropped
// when the decision whose ledger came before prior and after which later
// came was made: the committed file's, with what the later entries did to
// them undone. A criterion added later was not there; one dropped later
// was there; one reopened later was there unless the last entry before
// the decision dropped it.
func criteriaAt(is *repo.Issue, prior, later []audit.Entry) int {
	live := map[string]bool{}
	for _, it := range is.Todos() {
		if it.Kind == domain.KindCriterion {
			live[it.Text] = it.Status != domain.TodoAbandoned
		}
	}
	droppedBefore := func(text string) bool {
		return lastCriterionAction(prior, text) == audit.ActionCriterionDropped
	}
	for i := len(later) - 1; i >= 0; i-- {
		e := later[i]
		text, _ := e.Details["text"].(string)
		switch e.Action {
		case audit.ActionCriterionAdded:
			delete(live, text)
		case audit.ActionCriterionDropped:
			live[text] = true
		case audit.ActionCriterionReopened:
			live[text] = !droppedBefore(text)
		}
	}
	n := 0
	for _, ok := range live {
		if ok {
			n++
		}
	}
	return n
}

// sessionIdentity is the git identity of a committed session, false for a
// session with no identity file.
func (c *checker) sessionIdentity(id string) (string, bool) {
	se := c.sessions[id]
	if se == nil {
		return "", false
	}
	return se.Author, true
}

// sessionsOf lists the committed sessions that act for actor.
func (c *checker) sessionsOf(a domain.Actor) []string {
	var ids []string
	for id, se := range c.sessions {
		if se.Actor().Same(a) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// securityEntryReason returns the reason of the first security entry of
// kind by session among the entries that follow a decision, up to the
// next decision; "" when there is none.
func securityEntryReason(after []audit.Entry, session, kind string) string {
	for _, e := range after {
		if e.Action == audit.ActionApproved || e.Action == audit.ActionClosed || e.Action == audit.ActionReopened {
			break
		}
		if e.Type == audit.TypeSecurity && e.Action == kind && e.Session == session && e.Reason != "" {
			return e.Reason
		}
	}
	return ""
}

// securityEventOf reports whether security_events.jsonl holds an event of
// kind for the issue by the session.
func (c *checker) securityEventOf(issue, session, kind string) bool {
	data, err := c.head.Read(repo.TodosDir + "/" + repo.SecurityEvents)
	if err != nil {
		return false
	}
	events, _ := audit.ParseSecurityEvents(data)
	return slices.ContainsFunc(events, func(ev audit.SecurityEvent) bool {
		return ev.IssueID == issue && ev.SessionID == session && ev.Kind == kind
	})
}

// reviewGit reads, for td check, what the commits said about an issue
// before a given ledger line arrived: the same facts the gitfacts cache
// holds, but cut at that commit, since the cache also counts the commit
// carrying the decision (whose Td-Session trailer names the reviewer).
type reviewGit struct {
	c       *checker
	g       *gitrepo.Repo
	prefix  string
	opened  bool
	baseAnc map[string]bool
	headAnc map[string]bool
	anc     map[string]map[string]bool
	hist    map[string][]gitrepo.PathChange
}

// git returns the checker's reviewGit, made on first use.
func (c *checker) git() *reviewGit {
	if c.rg == nil {
		c.rg = &reviewGit{c: c}
	}
	return c.rg
}

func (rg *reviewGit) open() error {
	if rg.opened {
		return nil
	}
	rg.opened = true
	g, err := rg.c.s.GitRepo()
	if err != nil || g == nil {
		return err
	}
	if rg.prefix, err = rg.c.s.TodosInRepo(g); err != nil {
		return err
	}
	if rg.baseAnc, err = g.Ancestors(rg.c.report.BaseCommit); err != nil {
		return err
	}
	if rg.headAnc, err = g.Ancestors("HEAD"); err != nil {
		return err
	}
	rg.g, rg.anc, rg.hist = g, map[string]map[string]bool{}, map[string][]gitrepo.PathChange{}
	return nil
}

func (rg *reviewGit) history(path string) ([]gitrepo.PathChange, error) {
	if h, ok := rg.hist[path]; ok {
		return h, nil
	}
	h, err := rg.g.PathHistory(path, 0)
	if err != nil {
		return nil, err
	}
	rg.hist[path] = h
	return h, nil
}

// factsBefore returns the commit facts of issue id from the commits that
// precede the one bringing the ledger line e in; when no commit did (the
// line is uncommitted), from every commit reachable from HEAD. nil when
// no commit touched the issue.
func (rg *reviewGit) factsBefore(id string, e addedEntry) (*repo.IssueGit, error) {
	if err := rg.open(); err != nil || rg.g == nil {
		return nil, err
	}
	ledgerPath := rg.prefix + "/" + repo.HistoryDir + "/" + id + ".jsonl"
	issuePath := rg.prefix + "/" + repo.IssuesDir + "/" + id + ".md"
	lh, err := rg.history(ledgerPath)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", ledgerPath, err)
	}
	ih, err := rg.history(issuePath)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", issuePath, err)
	}
	before := rg.headAnc
	arrived, err := rg.arrival(ledgerPath, lh, e)
	if c := arrived; err != nil {
		return nil, err
	} else if c != "" {
		if before = rg.anc[c]; before == nil {
			if before, err = rg.g.Ancestors(c); err != nil {
				return nil, err
			}
			delete(before, c)
			rg.anc[c] = before
		}
	}
	var ig *repo.IssueGit
	add := func(ch gitrepo.PathChange, issueFile bool) {
		c := ch.Commit
		if c.Hash == arrived && arrived != "" {
			// The commit that brought the decision is no fact of it, but
			// the commits squashed into it are: a block of its body that
			// names the issue says who started it or was bound to it
			// before. (Who else was involved is left to the commits
			// that stayed commits.)
			for _, r := range repo.CommitRecords(c) {
				if !r.Last && r.Concerns(id) {
					if ig == nil {
						ig = &repo.IssueGit{}
					}
					ig.NoteWork(r.ByAuthor(c.Author.String(), rg.c.sessionIdentity))
				}
			}
			return
		}
		if !before[c.Hash] {
			return
		}
		if ig == nil {
			ig = &repo.IssueGit{}
		}
		sessions := c.Trailer("Td-Session")
		if issueFile && ch.Added && (ig.AddedBy == "" || c.Committer.When.Before(ig.AddedAt)) {
			ig.AddedBy, ig.AddedAt, ig.AddedSession = c.Author.String(), c.Committer.When.UTC(), ""
			if len(sessions) > 0 {
				ig.AddedSession = sessions[0]
			}
		}
		// Every trailer block counts, a squash's too: squashing the
		// branch does not make a started issue unstarted.
		for _, r := range repo.CommitRecords(c) {
			if r.Concerns(id) {
				ig.Note(r.ByAuthor(c.Author.String(), rg.c.sessionIdentity))
			}
		}
	}
	// Oldest first, so the first add is the one that counts.
	for i := len(ih) - 1; i >= 0; i-- {
		add(ih[i], true)
	}
	for i := len(lh) - 1; i >= 0; i-- {
		add(lh[i], false)
	}
	return ig, nil
}

// priorEntries returns the ledger entries td had when it recorded the
// decision e, and the ones it did not have yet. A committed e is judged by
// the ledger of the commit that brought it (rg.arrival), up to e: that is
// the file td read and appended e to. An entry from a branch that ran
// beside it, which git's union merge puts above or below it, is not among
// the facts: td could not see it, so it cannot make a legitimate decision
// wrong (a start on main and a close as wontfix on a branch that forked
// before it are both what td allowed where they were made). An e not
// committed yet comes after everything in the work tree's ledger above it.
// later holds every entry that is not prior and not e, by time: the issue's
// frontmatter is set back past them (issueBefore).
func (rg *reviewGit) priorEntries(entries []audit.Entry, e addedEntry, added []addedEntry) (prior, later []audit.Entry, err error) {
	prior = entries[:e.index:e.index]
	var below []audit.Entry
	for _, x := range added {
		if x.index > e.index {
			below = append(below, x.Entry)
		}
	}
	ledgerPath := rg.prefix + "/" + repo.HistoryDir + "/" + e.issue + ".jsonl"
	ce, err := rg.entryArrival(e.issue, e)
	if err != nil || ce == "" {
		return prior, below, err // uncommitted, e is the newest there is
	}
	data, err := rg.g.FileAt(ce, ledgerPath)
	if err != nil {
		return nil, nil, err
	}
	then := map[string]bool{}
	for _, l := range audit.ReadLedgerLines(data) {
		if l.Text == e.text {
			break
		}
		then[l.Text] = true
	}
	texts := rg.c.ledgerTexts(e.issue)
	prior, later = nil, nil
	for i, x := range entries {
		switch {
		case i == e.index:
		case i < len(texts) && then[texts[i]]:
			prior = append(prior, x)
		default:
			later = append(later, x)
		}
	}
	ordered := make([]audit.Entry, len(later))
	for i, j := range audit.TimeOrder(later) {
		ordered[i] = later[j]
	}
	return prior, ordered, nil
}

// issueBefore is the issue as it stood before the entries later changed
// it: the frontmatter fields the review policy reads (implementer, minor)
// that a later entry records changing (details field: {from, to}), set
// back to where they were. An unstarted issue closed, reopened and then
// started was closed with nobody implementing it, as td decided it.
func issueBefore(is *repo.Issue, later []audit.Entry) *repo.Issue {
	at := *is
	changed := false
	for i := len(later) - 1; i >= 0; i-- {
		for _, field := range []string{"implementer", "minor"} {
			m, ok := later[i].Details[field].(map[string]any)
			if !ok {
				continue
			}
			from, ok := m["from"]
			if !ok {
				continue
			}
			switch field {
			case "implementer":
				if v, ok := from.(string); ok {
					at.Implementer, changed = v, true
				}
			case "minor":
				if v, ok := from.(bool); ok {
					at.Minor, changed = v, true
				}
			}
		}
	}
	if !changed {
		return is
	}
	return &at
}

// entryArrival is arrival for an entry of issue id's ledger: the commit
// since the base that brought it, "" outside git or when it is not
// committed yet.
func (rg *reviewGit) entryArrival(id string, e addedEntry) (string, error) {
	if err := rg.open(); err != nil || rg.g == nil {
		return "", err
	}
	ledgerPath := rg.prefix + "/" + repo.HistoryDir + "/" + id + ".jsonl"
	lh, err := rg.history(ledgerPath)
	if err != nil {
		return "", fmt.Errorf("read the history of %s: %w", ledgerPath, err)
	}
	return rg.arrival(ledgerPath, lh, e)
}

// arrival finds the oldest commit since the base whose ledger holds the
// line e; "" when none does, as for a line not committed yet. A line that
// arrives twice is one entry (addedEntries gives its first copy), so the
// commit that first held it once brought it.
func (rg *reviewGit) arrival(path string, changes []gitrepo.PathChange, e addedEntry) (string, error) {
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i].Commit
		if rg.baseAnc[c.Hash] || !rg.headAnc[c.Hash] || changes[i].Deleted {
			continue
		}
		data, err := rg.g.FileAt(c.Hash, path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		for _, l := range logLines(data) {
			if l.text == e.text {
				return c.Hash, nil
			}
		}
	}
	return "", nil
}

// lateOperator tells the facts of an approval by a person's session (an
// operator's or a member's) whether it first appeared in the range after
// an agent of the same git identity started the issue there (policy.Facts.LateAfter), and which
// session of the person's the base already had. An agent that shares its
// person's identity can start a session of that person's and approve its
// own work with it; a person signs off from the session they already had,
// made before the work, or another operator does. Which came first is told
// by the commits that brought the session's identity file and the
// "started" line, never by the dates written in them; when the start is
// not committed yet, it is not late. td approve reads the same facts
// (issues.Judge), so it refuses what this would flag.
func (c *checker) lateOperator(rg *reviewGit, is *repo.Issue, e addedEntry, se *repo.Session, in *issues.ReviewInput) error {
	if se.IsAgent() || !c.roleOf(se.ID).Person() {
		return nil
	}
	sp := repo.TodosDir + "/" + repo.SessionsDir + "/" + se.ID + ".yaml"
	if c.base.Has(sp) {
		return nil
	}
	for _, x := range c.addedEntries(is.ID) {
		if x.index >= e.index || x.Action != audit.ActionStarted {
			continue
		}
		agent := c.sessions[x.Session]
		if agent == nil || !agent.IsAgent() || !domain.SameIdentity(agent.Author, se.Author) {
			continue
		}
		started, err := rg.entryArrival(is.ID, x)
		if err != nil || started == "" {
			return err
		}
		appeared, err := rg.firstAdded(rg.prefix + "/" + repo.SessionsDir + "/" + se.ID + ".yaml")
		if err != nil {
			return err
		}
		if appeared == started {
			// One commit brought both: only its trailer blocks, a
			// squash's, can tell their order.
			c, err := rg.g.CommitAt(started)
			if err != nil || !repo.StartedBefore(c, is.ID, x.Session, se.ID) {
				return err
			}
			appeared = ""
		}
		if appeared != "" {
			anc, err := rg.ancestorsOf(appeared)
			if err != nil || !anc[started] {
				return err
			}
		}
		in.LateAfter = x.Session
		in.LateEarlier = c.earlierSession(se)
		return nil
	}
	return nil
}

// earlierSession is the oldest other session of se's actor that the base
// has: one the person had before the work.
func (c *checker) earlierSession(se *repo.Session) string {
	var list []*repo.Session
	for _, id := range c.sessionsOf(se.Actor()) {
		if other := c.sessions[id]; id != se.ID && c.base.Has(repo.TodosDir+"/"+repo.SessionsDir+"/"+id+".yaml") {
			list = append(list, other)
		}
	}
	slices.SortFunc(list, func(a, b *repo.Session) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(list) == 0 {
		return ""
	}
	return list[0].ID
}

// firstAdded returns the oldest commit since the base that added path,
// "" when none did (the file is not committed yet).
func (rg *reviewGit) firstAdded(path string) (string, error) {
	h, err := rg.history(path)
	if err != nil {
		return "", fmt.Errorf("read the history of %s: %w", path, err)
	}
	for i := len(h) - 1; i >= 0; i-- {
		c := h[i].Commit
		if h[i].Added && !rg.baseAnc[c.Hash] && rg.headAnc[c.Hash] {
			return c.Hash, nil
		}
	}
	return "", nil
}

// ancestorsOf returns the strict ancestors of commit, cached.
func (rg *reviewGit) ancestorsOf(commit string) (map[string]bool, error) {
	if anc := rg.anc[commit]; anc != nil {
		return anc, nil
	}
	anc, err := rg.g.Ancestors(commit)
	if err != nil {
		return nil, err
	}
	delete(anc, commit)
	rg.anc[commit] = anc
	return anc, nil
}
