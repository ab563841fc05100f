package review

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
	"gopkg.in/yaml.v3"
)

// Rules td check applies; each Violation names the one it broke.
const (
	// RuleParse: every file td keeps parses (issues, ledgers, sessions,
	// config, security events).
	RuleParse = "parse"
	// RuleFileName: files are named for what they hold, and an issue's id
	// matches its file name.
	RuleFileName = "file_name"
	// RuleInProgress: at most one todo of an issue is in progress.
	RuleInProgress = "one_in_progress"
	// RuleLinkTarget: links point at issues that exist.
	RuleLinkTarget = "link_target"
	// RuleLinkCycle: links of the kinds that may not loop (child_of,
	// blocked_by, duplicate_of) form no cycle.
	RuleLinkCycle = "link_cycle"
	// RuleSecurityChain: the security events' hash chain verifies.
	RuleSecurityChain = "security_chain"
	// RuleAppendOnly: every ledger line and security event present at the
	// base is still there, unchanged and in order.
	RuleAppendOnly = "append_only"
	// RuleReviewPolicy: approvals and closures added since the base are ones
	// the review policy allows, with their exceptions audited.
	RuleReviewPolicy = "review_policy"
	// RuleCriterionDrop: a criterion dropped or deleted since the base was
	// dropped by an operator session (a criterion_dropped ledger entry).
	RuleCriterionDrop = "criterion_drop"
	// RuleSecurityLedger: each security event about an issue added since
	// the base has its copy in that issue's ledger.
	RuleSecurityLedger = "security_ledger"
	// RuleStatusTransition: an issue whose status changed since the base
	// has a ledger transition added in the range that put it there.
	RuleStatusTransition = "status_transition"
	// RuleWrittenOnce: a session's identity file present at the base is
	// unchanged, since the rules trust its role and author.
	RuleWrittenOnce = "written_once"
)

// baseRules are the rules that need a base revision.
var baseRules = []string{RuleAppendOnly, RuleWrittenOnce, RuleReviewPolicy, RuleCriterionDrop, RuleStatusTransition, RuleSecurityLedger, RuleClaims}

// Violation is one thing td check found wrong, at a file and line.
type Violation struct {
	// Path is relative to the work tree root, slash-separated.
	Path string `json:"path"`
	// Line is 1-based; 0 when the problem is the file as a whole. For a
	// ledger line missing since the base, it is the line at the base.
	Line    int    `json:"line"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String is the violation as path:line: message.
func (v Violation) String() string {
	if v.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", v.Path, v.Line, v.Message)
	}
	return fmt.Sprintf("%s: %s", v.Path, v.Message)
}

// CheckOptions configures Check.
type CheckOptions struct {
	// Base is the revision to compare with: the checks that need history
	// run against the merge base of Base and HEAD. Empty skips them.
	Base string
	// Full checks the work tree against the base, every file parsed.
	// Without it a check against a base judges the range of commits: HEAD
	// against the merge base, reading only the issues the range changed
	// (their files and ledgers, with every session, the config and the
	// security events) and the links those can have broken. A pull request
	// costs what it changed, and what it did not change was checked when
	// it landed.
	Full bool
}

// CheckReport is what td check found.
type CheckReport struct {
	// Base is the revision asked for; BaseCommit the merge base of it and
	// HEAD that the work tree was compared with. Both empty without a base.
	Base       string `json:"base"`
	BaseCommit string `json:"base_commit"`
	// HeadCommit is the commit checked against the base when the range of
	// commits was (td check --base); empty when the work tree was.
	HeadCommit string `json:"head_commit"`
	// Files counts the files checked; Issues the issue files among them.
	Files  int `json:"files"`
	Issues int `json:"issues"`
	// Skipped lists the rules that need a base and did not run.
	Skipped []string `json:"skipped"`
	// Violations are sorted by path, line and message.
	Violations []Violation `json:"violations"`
	// Notes say what a rule could not judge, without failing the check:
	// the claims rule with no claim references to read (NoClaimRefs).
	Notes []string `json:"notes"`
	// Warnings are what td check reports without failing: a state that
	// legitimate commands can produce and td's next write repairs (two
	// todos in progress after a merge made without td's merge driver).
	Warnings []Violation `json:"warnings"`
}

// OK reports whether nothing was found.
func (r *CheckReport) OK() bool { return len(r.Violations) == 0 }

// checker gathers violations over one work tree snapshot.
type checker struct {
	s      *repo.Store
	head   *repo.Snapshot
	base   *repo.Snapshot // nil without a base
	report *CheckReport

	issues  map[string]*repo.Issue // parsed issue files by ID
	ids     map[string]bool        // every issue file's ID, parsed or not
	ledgers map[string][]audit.Entry
	// texts caches ledgerTexts.
	texts    map[string][]string
	sessions map[string]*repo.Session
	// linkOnly holds, past slimAfter files, the issues that no rule but
	// the links rules reads again (unchanged since the base, or every
	// issue without one): their path and links, nothing of their text.
	linkOnly map[string]linkNode
	config   *repo.Config // the config whose operators count: the base's when there is one
	// merging is set when the staged changes conclude a merge: a ledger
	// line HEAD's history lacks came from the other side, beside HEAD's
	// lines rather than after them.
	merging bool
	// rg reads the commits of the range, for the rules that judge them.
	rg *reviewGit
	// target is the revision whose config judges (operators, flags): the
	// base as it is now, the target's rules, not the merge base's; ""
	// for the base snapshot's.
	target string
}

// warn records a warning: reported, never failing the check.
func (c *checker) warn(path string, line int, rule, format string, args ...any) {
	c.report.Warnings = append(c.report.Warnings, Violation{Path: path, Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) add(path string, line int, rule, format string, args ...any) {
	c.report.Violations = append(c.report.Violations, Violation{Path: path, Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// addErr records a file td could not read: a *ParseError keeps its line.
func (c *checker) addErr(path, rule string, err error) {
	var pe *repo.ParseError
	if errors.As(err, &pe) {
		c.add(pe.Path, pe.Line, rule, "%s", pe.Msg)
		return
	}
	c.add(path, 0, rule, "%v", err)
}

// Check checks the work tree's .todos against td's rules and, with a base,
// against its history, collecting every violation rather than stopping at
// the first: every file parses; ids match file names; at most one todo of
// an issue is in progress; links resolve and form no cycle; the security
// events' chain verifies. Against the base: ledgers and security events
// only grew; approvals and closures added obey the review policy given
// the ledger and commit metadata; criteria were dropped only by operators.
func Check(s *repo.Store, o CheckOptions) (*CheckReport, error) {
	c := &checker{s: s, report: &CheckReport{Violations: []Violation{}, Warnings: []Violation{}, Skipped: []string{}, Notes: []string{}},
		issues: map[string]*repo.Issue{}, linkOnly: map[string]linkNode{}, ids: map[string]bool{}, ledgers: map[string][]audit.Entry{}, sessions: map[string]*repo.Session{}}
	if o.Base != "" && !o.Full {
		return c.checkRange(o.Base)
	}
	var err error
	if o.Base == "" {
		if c.head, err = s.WorkTreeSnapshot(); err != nil {
			return nil, err
		}
		c.report.Skipped = append(c.report.Skipped, baseRules...)
		return c.run(true)
	}
	_, mb, err := c.mergeBase(o.Base)
	if err != nil {
		return nil, err
	}
	// The base's tree is listed while the work tree's directories are
	// read: at 100,000 issues each takes about 0.3 s, on a core of its own.
	var baseErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		c.base, baseErr = c.s.SnapshotAt(mb)
	}()
	c.head, err = s.WorkTreeSnapshot()
	<-listed
	if err != nil {
		return nil, err
	}
	if baseErr != nil {
		return nil, baseErr
	}
	c.base.Rev = o.Base
	return c.run(true)
}

// checkRange checks what HEAD's commits changed since the merge base of
// base and HEAD: the issues whose file or ledger differs between the two
// trees (found by object name, the unchanged directories unread), with
// every session, the config and the security events, and the links those
// issues can have broken. The work tree is not read: a range is commits.
func (c *checker) checkRange(base string) (*CheckReport, error) {
	g, mb, err := c.mergeBase(base)
	if err != nil {
		return nil, err
	}
	prefix, err := c.s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	_, head, changes, err := g.DiffTrees(mb, "HEAD", prefix)
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{}
	var deleted []string // issues whose file the range deleted or renamed
	security := false
	for _, ch := range changes {
		rel := strings.TrimPrefix(ch.Path, prefix+"/")
		p := repo.TodosDir + "/" + rel
		if id, ok := repo.IssueIDOf(p); ok {
			touched[id] = true
			if strings.HasSuffix(p, ".md") && ch.To.Mode == 0 {
				deleted = append(deleted, id)
			}
		}
		security = security || rel == repo.SecurityEvents
	}
	ids := sortedKeys(touched)
	if c.head, err = c.s.PartialSnapshotAt(head, ids); err != nil {
		return nil, err
	}
	if c.base, err = c.s.PartialSnapshotAt(mb, ids); err != nil {
		return nil, err
	}
	c.head.Rev, c.base.Rev = "HEAD", base
	c.report.HeadCommit = head
	if security {
		// A security event names its issue: read the issues of events added.
		added := c.addedSecurityIssues()
		c.head.Include(added...)
		c.base.Include(added...)
	}
	rep, err := c.run(false)
	if err != nil {
		return nil, err
	}
	changed := make(map[string]*repo.Issue, len(c.issues))
	maps.Copy(changed, c.issues)
	if err := c.checkRangeLinks(deleted); err != nil {
		return nil, err
	}
	if tip, err := g.Resolve(base); err == nil && tip != mb {
		if err := c.checkMergedCycles(base, tip, changed); err != nil {
			return nil, err
		}
	}
	sortViolations(rep.Violations)
	sortViolations(rep.Warnings)
	rep.Files, rep.Issues = c.head.CountFiles()
	return rep, nil
}

// checkRangeLinks checks the links a range can have broken, as checkLinks
// does over every issue: each link of the issues it changed must resolve,
// and a new cycle runs through a changed issue, so the issues reachable
// from them over the links that may not loop, read at HEAD as the walk
// finds them, hold every cycle the range can have made. An issue whose
// file the range deleted can leave links dangling anywhere: then every
// issue at HEAD that mentions it is read as well.
func (c *checker) checkRangeLinks(deleted []string) error {
	var referrers []*repo.Issue
	if len(deleted) > 0 {
		var err error
		if referrers, err = c.referrersAtHead(deleted); err != nil {
			return err
		}
	}
	c.checkRangeLinksFrom(referrers)
	return nil
}

// checkRangeLinksFrom checks the links of the changed issues (c.issues)
// and of extra, and every cycle among the issues reachable from them.
func (c *checker) checkRangeLinksFrom(extra []*repo.Issue) {
	queue := make([]*repo.Issue, 0, len(c.issues)+len(extra))
	for _, id := range sortedKeys(c.issues) {
		queue = append(queue, c.issues[id])
	}
	for _, is := range extra {
		if c.issues[is.ID] == nil {
			c.issues[is.ID] = is
			queue = append(queue, is)
		}
	}
	read := map[string]bool{}
	for len(queue) > 0 {
		is := queue[0]
		queue = queue[1:]
		for _, l := range is.Links {
			if _, known := c.ids[l.To]; !known {
				c.ids[l.To] = c.head.IssueExists(l.To)
			}
			if !c.ids[l.To] || !policy.Acyclic(l.Kind) || c.issues[l.To] != nil || read[l.To] {
				continue
			}
			read[l.To] = true
			if next := c.issueAtHead(l.To); next != nil {
				c.issues[l.To] = next
				queue = append(queue, next)
			}
		}
	}
	c.checkLinks()
}

// issueAtHead parses an issue the range did not change, nil when it does
// not parse (which was the concern of the range that changed it).
func (c *checker) issueAtHead(id string) *repo.Issue {
	c.head.Include(id)
	p := repo.TodosDir + "/" + repo.IssuesDir + "/" + id + ".md"
	data, err := c.head.Read(p)
	if err != nil {
		return nil
	}
	is, err := repo.ParseIssueOwned(p, id, data)
	if err != nil {
		return nil
	}
	return is
}

// referrersAtHead parses the issues at HEAD whose file mentions one of ids.
// It reads every issue file, which only a range deleting one needs.
func (c *checker) referrersAtHead(ids []string) ([]*repo.Issue, error) {
	all, err := c.s.SnapshotAt(c.report.HeadCommit)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range all.Paths() {
		if id, ok := repo.IssueIDOf(p); ok && strings.HasSuffix(p, ".md") && repo.ValidIssueID(id) {
			paths = append(paths, p)
		}
	}
	found := make([]*repo.Issue, len(paths))
	repo.ForEach(len(paths), repo.IOWorkers(), 64, func(i int) {
		data, err := all.Read(paths[i])
		if err != nil || !slices.ContainsFunc(ids, func(id string) bool { return bytes.Contains(data, []byte(id)) }) {
			return
		}
		id, _ := repo.IssueIDOf(paths[i])
		if is, err := repo.ParseIssueOwned(paths[i], id, data); err == nil {
			found[i] = is
		}
	})
	return slices.DeleteFunc(found, func(is *repo.Issue) bool { return is == nil }), nil
}

// run checks what the checker's snapshots hold; whole says they hold the
// whole repository, so the rules over all issues (links) mean something.
func (c *checker) run(whole bool) (*CheckReport, error) {
	c.parseAll()
	if whole {
		c.checkLinks()
	}
	c.checkSecurity()
	if c.base != nil {
		c.checkLedgersGrew()
		c.checkSessionsUnchanged()
		c.checkCriteriaDrops()
		if err := c.checkStatusTransitions(); err != nil {
			return nil, err
		}
		c.checkClaims()
		if err := c.checkReviews(); err != nil {
			return nil, err
		}
	}
	sortViolations(c.report.Violations)
	sortViolations(c.report.Warnings)
	return c.report, nil
}

// sortViolations orders violations by path, line and message.
func sortViolations(v []Violation) {
	sort.SliceStable(v, func(i, j int) bool {
		if v[i].Path != v[j].Path {
			return v[i].Path < v[j].Path
		}
		if v[i].Line != v[j].Line {
			return v[i].Line < v[j].Line
		}
		return v[i].Message < v[j].Message
	})
}

// mergeBase finds the merge base of base and HEAD, and records both in
// the report.
func (c *checker) mergeBase(base string) (*gitrepo.Repo, string, error) {
	g, err := c.s.GitRepo()
	if err != nil {
		return nil, "", err
	}
	if g == nil {
		return nil, "", repo.Errorf(repo.CodeRefused, "--base compares with git history, and %s is not in a git repository; run td check without --base", c.s.Root)
	}
	tip, err := g.Resolve(base)
	if err != nil {
		return nil, "", repo.RevisionError(base, err)
	}
	c.target = tip
	if _, err := g.Resolve("HEAD"); err != nil {
		return nil, "", &repo.Error{Code: repo.CodeNotFound, Err: err, Msg: "HEAD has no commits yet, so there is no history to check against " + base + "; run td check without --base"}
	}
	mb, err := g.MergeBase(base, "HEAD")
	if errors.Is(err, gitrepo.ErrNoMergeBase) {
		return nil, "", &repo.Error{Code: repo.CodeRefused, Err: err, Msg: fmt.Sprintf("%s and HEAD share no history, so nothing can be checked against it; name a revision this branch grew from", base)}
	}
	if err != nil {
		return nil, "", err
	}
	c.report.Base, c.report.BaseCommit = base, mb
	return g, mb, nil
}

// parseAll reads every file of the work tree snapshot with td's parsers.
func (c *checker) parseAll() {
	paths := c.head.Paths()
	c.report.Files = len(paths)
	type result struct {
		issue      *repo.Issue
		node       linkNode // the links of an issue slimmed away
		nodeID     string   // its id, as the issue states it
		slimmed    bool     // the issue or ledger was judged and let go
		entries    []audit.Entry
		session    *repo.Session
		config     *repo.Config
		violations []Violation
		warnings   []Violation
	}
	results := make([]result, len(paths))
	slim := len(paths) > slimAfter
	if slim && c.base != nil {
		repo.BoundHeapTo(len(paths), fullHeapLimit)
	}
	repo.ForEach(len(paths), repo.IOWorkers(), 64, func(i int) {
		sub := &checker{report: &CheckReport{}}
		r := &results[i]
		r.issue, r.entries, r.session, r.config = sub.parseFile(c.head, paths[i])
		r.violations, r.warnings = sub.report.Violations, sub.report.Warnings
		if slim && (r.issue != nil || r.entries != nil) {
			id, _ := repo.IssueIDOf(paths[i])
			if c.unchanged(id) {
				// Only the links rules look at it again: keep what they
				// need, copied, and let the file's bytes and parse go (a
				// string cut from the parse would keep its whole text).
				if r.issue != nil {
					r.node = linkNode{path: paths[i], links: ownLinks(r.issue.Links)}
					r.nodeID = strings.Clone(r.issue.ID)
				}
				r.issue, r.entries, r.slimmed = nil, nil, true
				c.head.Forget(paths[i])
			}
		}
	})
	for i, p := range paths {
		r := results[i]
		c.report.Violations = append(c.report.Violations, r.violations...)
		c.report.Warnings = append(c.report.Warnings, r.warnings...)
		if id, ok := repo.IssueIDOf(p); ok && repo.ValidIssueID(id) && strings.HasSuffix(p, ".md") {
			c.report.Issues++
			c.ids[id] = true
		}
		switch {
		// An id is in one of issues and linkOnly, the last file that
		// states it winning either way.
		case r.slimmed:
			if r.nodeID != "" {
				delete(c.issues, r.nodeID)
				c.linkOnly[r.nodeID] = r.node
			}
		case r.issue != nil:
			delete(c.linkOnly, r.issue.ID)
			c.issues[r.issue.ID] = r.issue
		case r.entries != nil:
			id, _ := repo.IssueIDOf(p)
			c.ledgers[id] = r.entries
		case r.session != nil:
			c.sessions[r.session.ID] = r.session
		case r.config != nil:
			c.config = r.config
		}
	}
	if c.base != nil {
		// Operators and flags as the target lists them now (or, without
		// one, the base): a branch cannot make itself an operator and
		// drop criteria in one go, and a branch that forked before the
		// target went strict, or removed an operator, is judged by what
		// the target says today.
		if cfg := c.targetConfig(); cfg != nil {
			c.config = cfg
		} else if data, err := c.base.Read(repo.TodosDir + "/" + repo.ConfigFile); err == nil {
			if cfg, err := repo.ParseConfig(repo.TodosDir+"/"+repo.ConfigFile, data); err == nil {
				c.config = cfg
			}
		}
	}
	if c.config == nil {
		c.config = c.s.Config
	}
}

// targetConfig reads the config at c.target, nil when there is no target
// or it has no config td can read.
func (c *checker) targetConfig() *repo.Config {
	if c.target == "" {
		return nil
	}
	g, err := c.s.GitRepo()
	if err != nil || g == nil {
		return nil
	}
	prefix, err := c.s.TodosInRepo(g)
	if err != nil {
		return nil
	}
	data, err := g.FileAt(c.target, prefix+"/"+repo.ConfigFile)
	if err != nil {
		return nil
	}
	cfg, err := repo.ParseConfig(repo.TodosDir+"/"+repo.ConfigFile, data)
	if err != nil {
		return nil
	}
	return cfg
}

// parseFile checks one file on its own and returns what it parsed to.
func (c *checker) parseFile(sn *repo.Snapshot, p string) (*repo.Issue, []audit.Entry, *repo.Session, *repo.Config) {
	data, err := sn.Read(p)
	if err != nil {
		c.addErr(p, RuleParse, err)
		return nil, nil, nil, nil
	}
	dir, name := "", p[len(repo.TodosDir)+1:]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, name = name[:i], name[i+1:]
	}
	switch dir {
	case repo.IssuesDir:
		id := strings.TrimSuffix(name, ".md")
		if !repo.ValidIssueID(id) {
			c.add(p, 0, RuleFileName, "%q is not an issue file name such as td-k3x9qa.md; move it out of %s/%s", name, repo.TodosDir, repo.IssuesDir)
			return nil, nil, nil, nil
		}
		return c.parseIssueFile(p, id, data), nil, nil, nil
	case repo.HistoryDir:
		if id := strings.TrimSuffix(name, ".jsonl"); !repo.ValidIssueID(id) {
			c.add(p, 0, RuleFileName, "%q is not a ledger file name such as td-k3x9qa.jsonl; move it out of %s/%s", name, repo.TodosDir, repo.HistoryDir)
			return nil, nil, nil, nil
		}
		entries, lerrs := audit.ParseLedger(data)
		for _, le := range lerrs {
			c.add(p, le.Line, RuleParse, "%s", le.Msg)
		}
		if entries == nil {
			entries = []audit.Entry{}
		}
		return nil, entries, nil, nil
	case repo.SessionsDir:
		id := strings.TrimSuffix(name, ".yaml")
		if !repo.ValidSessionID(id) {
			c.add(p, 0, RuleFileName, "%q is not a session file name such as ses_7hq2m4p1.yaml; move it out of %s/%s", name, repo.TodosDir, repo.SessionsDir)
			return nil, nil, nil, nil
		}
		se, err := parseSessionFile(p, id, data)
		if err != nil {
			c.addErr(p, RuleParse, err)
			return nil, nil, nil, nil
		}
		return nil, nil, se, nil
	}
	if name == repo.ConfigFile {
		cfg, err := repo.ParseConfig(p, data)
		if err != nil {
			c.addErr(p, RuleParse, err)
			return nil, nil, nil, nil
		}
		return nil, nil, nil, cfg
	}
	return nil, nil, nil, nil
}

// parseIssueFile parses an issue, reporting an id that differs from the
// file name under its own rule so that the file's other checks still run,
// and checks that at most one of its todos is in progress.
func (c *checker) parseIssueFile(p, id string, data []byte) *repo.Issue {
	is, err := repo.ParseIssueOwned(p, id, data)
	if err != nil {
		// An id that differs from the file name: say so under its own
		// rule, then read the file by its own id for the other checks.
		own := frontmatterID(data)
		if own == "" || own == id {
			c.addErr(p, RuleParse, err)
			return nil
		}
		if is, err = repo.ParseIssueOwned(p, own, data); err != nil {
			c.addErr(p, RuleParse, err)
			return nil
		}
		c.add(p, is.Doc.Front.Line("id"), RuleFileName, "id %q does not match the file name %s.md; rename the file or restore the id", own, id)
	}
	// Only a body with two in-progress markers can break the rule; most
	// have none, and the checklist parse is the costly part.
	if bytes.Count(is.Doc.Body, []byte("[/]")) >= 2 {
		offset := bytes.Count(data[:len(data)-len(is.Doc.Body)], []byte("\n"))
		var first *markdown.Item
		for _, it := range is.Todos() {
			if it.Status != domain.TodoInProgress {
				continue
			}
			if first == nil {
				first = &it
				continue
			}
			// Two branches that each started a todo, merged without
			// td's driver (a forge's merge button), leave two: a state
			// legitimate commands make, which must not turn the main
			// branch red. td's next change to the todos keeps the first.
			c.warn(p, offset+it.Line, RuleInProgress, "%q is in progress as well as %q (line %d), as a merge without td's merge driver leaves two branches' started todos; td's next change to the todos of %s keeps the first", it.Text, first.Text, offset+first.Line, is.ID)
		}
	}
	return is
}

// frontmatterID is the id an issue file's frontmatter states, "" when it
// cannot be read.
func frontmatterID(data []byte) string {
	doc, err := markdown.Parse(data)
	if err != nil {
		return ""
	}
	var f struct {
		ID string `yaml:"id"`
	}
	if doc.Front.Decode(&f) != nil {
		return ""
	}
	return f.ID
}

// parseSessionFile parses a session identity file, as Store.Session reads
// it.
func parseSessionFile(p, id string, data []byte) (*repo.Session, error) {
	var se repo.Session
	if err := yaml.Unmarshal(data, &se); err != nil {
		return nil, &repo.ParseError{Path: p, Line: repo.YAMLErrorLine(err), Msg: repo.YAMLErrorMsg(err)}
	}
	if se.ID != id {
		return nil, &repo.ParseError{Path: p, Line: 1, Msg: fmt.Sprintf("id %q does not match the file name", se.ID)}
	}
	return &se, nil
}

// checkLinks checks that every link names an existing issue and that the
// links policy.Acyclic names (child_of, blocked_by, duplicate_of) form no
// cycle.
func (c *checker) checkLinks() {
	edges := map[domain.LinkKind][]policy.Edge{}
	ids := sortedKeys(c.issues)
	for id := range c.linkOnly {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		n := c.linkNodeOf(id)
		for _, l := range n.links {
			if !c.ids[l.To] {
				c.add(n.path, c.linksLine(id, n.path), RuleLinkTarget, "%s %s: there is no issue %s; remove the link (td unlink %s %s %s) or restore the issue", l.Kind, l.To, l.To, id, l.Kind, l.To)
				continue
			}
			if policy.Acyclic(l.Kind) {
				edges[l.Kind] = append(edges[l.Kind], policy.Edge{From: id, Kind: l.Kind, To: l.To})
			}
		}
	}
	for _, kind := range domain.LinkKinds() {
		if !policy.Acyclic(kind) {
			continue
		}
		for _, cycle := range policy.Cycles(edges[kind]) {
			first := c.linkNodeOf(cycle[0])
			c.add(first.path, c.linksLine(cycle[0], first.path), RuleLinkCycle, "%s links form a cycle: %s; remove one of them with td unlink",
				kind, strings.Join(cycle, " "+string(kind)+" "))
		}
	}
}

// linkNode is what the links rules need of an issue: where it is and
// what it links to.
type linkNode struct {
	path  string
	links []domain.Link
}

// linkNodeOf is the path and links of the issue id, parsed or slimmed.
func (c *checker) linkNodeOf(id string) linkNode {
	if is := c.issues[id]; is != nil {
		return linkNode{path: is.Path, links: is.Links}
	}
	return c.linkOnly[id]
}

// ownLinks copies links into strings of their own, the kinds td knows
// shared with their constants.
func ownLinks(links []domain.Link) []domain.Link {
	if len(links) == 0 {
		return nil
	}
	kinds := domain.LinkKinds()
	out := make([]domain.Link, len(links))
	for i, l := range links {
		out[i] = domain.Link{Kind: domain.LinkKind(strings.Clone(string(l.Kind))), To: strings.Clone(l.To)}
		if j := slices.Index(kinds, l.Kind); j >= 0 {
			out[i].Kind = kinds[j]
		}
	}
	return out
}

// linksLine is the line of the links key in the issue id's file at path.
// An issue parseAll slimmed is parsed again for it.
func (c *checker) linksLine(id, path string) int {
	is := c.issues[id]
	if is == nil || is.Doc == nil {
		data, err := c.head.Read(path)
		if err != nil {
			return 0
		}
		if is, err = repo.ParseIssueOwned(path, id, data); err != nil || is.Doc == nil {
			return 0
		}
	}
	return is.Doc.Front.Line("links")
}

// slimAfter is how many files a check parses before it keeps, of the
// issues it will not judge again, only what the links rules need: at
// 100,000 issues the parsed files would take gigabytes.
var slimAfter = 2000

// fullHeapLimit bounds the heap of a check of every file against a base,
// which keeps a listing of each side's 200,000 files at 100,000 issues
// (about 90 MB live, with the unchanged issues slimmed to their links):
// 4.3 to 4.6 s and 177 MiB there; 180 MiB was no faster (paired 0.98), and
// the default 160 MiB took 5.3 s.
const fullHeapLimit = 170 << 20

// unchanged reports whether neither the issue file nor the ledger of id
// differs from the base, so that no rule but the links rules reads the
// issue again. Without a base, that is every issue.
func (c *checker) unchanged(id string) bool {
	if c.base == nil {
		return true
	}
	for _, p := range []string{repo.TodosDir + "/" + repo.IssuesDir + "/" + id + ".md", repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl"} {
		if !c.base.Same(c.head, p) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkSecurity verifies the security events' hash chain and, with a
// base, that every event the base holds is still there unaltered.
func (c *checker) checkSecurity() {
	p := repo.TodosDir + "/" + repo.SecurityEvents
	if !c.head.Has(p) {
		if c.base != nil && c.base.Has(p) {
			c.add(p, 0, RuleAppendOnly, "the file was deleted since %s; it is append-only, so restore it (git checkout %s -- %s)", c.base.Rev, c.base.Rev, p)
		}
		return
	}
	data, err := c.head.Read(p)
	if err != nil {
		return // reported by parseAll
	}
	var baseData []byte
	if c.base != nil && c.base.Has(p) {
		if baseData, err = c.base.Read(p); err != nil {
			c.addErr(p, RuleParse, fmt.Errorf("at %s: %w", c.base.Rev, err))
			baseData = nil
		}
		if baseData == nil {
			baseData = []byte{}
		}
	}
	for _, pr := range audit.VerifySecurityEvents(data, baseData) {
		rule := RuleSecurityChain
		msg := pr.Msg
		if pr.Line == 0 && strings.HasPrefix(msg, "base line ") {
			rule = RuleAppendOnly
			msg = strings.Replace(msg, "base line", "line", 1)
			msg = fmt.Sprintf("%s since %s; security events are append-only, so restore it from %s", msg, c.base.Rev, c.base.Rev)
		}
		c.add(p, pr.Line, rule, "%s", msg)
	}
	if c.base != nil {
		c.checkSecurityCopies(p, data, baseData) // no file at the base: every event is new
	}
}

// checkSecurityCopies cross-checks every security event about an issue
// added since the base with the copy td writes into that issue's ledger
// (same kind, session and reason). The chain alone proves only that the
// file was not edited after the last event: a branch can edit its own new
// events and hash the chain again, but not also make the ledger agree
// without a second, visible edit there.
func (c *checker) checkSecurityCopies(p string, data, baseData []byte) {
	inBase := map[string]bool{}
	for _, l := range audit.UniqueLines(baseData) {
		inBase[l] = true
	}
	// Added are the events whose line the base lacks, wherever a union
	// merge put them; a line the base has, repeated, is not added.
	for _, le := range audit.LinedSecurityEvents(data) {
		if inBase[le.Text] {
			continue
		}
		ev := le.Event
		if ev.IssueID == "" || !ledgerCopied(ev.Kind) {
			continue
		}
		copies := c.ledgers[ev.IssueID]
		if slices.ContainsFunc(copies, func(e audit.Entry) bool {
			return e.Type == audit.TypeSecurity && e.Action == ev.Kind && e.Session == ev.SessionID && e.Reason == ev.Reason
		}) {
			continue
		}
		c.add(p, le.Line, RuleSecurityLedger, "%s event for %s by %s (reason %q) has no matching %s entry in %s/%s/%s.jsonl; the two are written together, so one was edited: restore both from td's own write",
			ev.Kind, ev.IssueID, ev.SessionID, ev.Reason, ev.Kind, repo.TodosDir, repo.HistoryDir, ev.IssueID)
	}
}

// ledgerCopied reports whether td writes a security event of kind into the
// issue's ledger as well.
func ledgerCopied(kind string) bool {
	switch kind {
	case audit.KindCreatorApproval, audit.KindSelfClose, audit.KindOpenCriteriaOverride, audit.KindProvenanceConflict:
		return true
	}
	return false
}

// checkLedgersGrew checks every ledger the base holds: each of its lines
// must still be in the work tree's file, unchanged and in the same order,
// with lines added anywhere after the first (a union merge of two
// branches interleaves their additions after the common lines).
func (c *checker) checkLedgersGrew() {
	for _, p := range c.base.Paths() {
		if !strings.HasPrefix(p, repo.TodosDir+"/"+repo.HistoryDir+"/") || c.base.Same(c.head, p) {
			continue
		}
		before, err := c.base.Read(p)
		if err != nil {
			continue // a base file td cannot read cannot be compared
		}
		if !c.head.Has(p) {
			c.add(p, 0, RuleAppendOnly, "the ledger was deleted since %s; ledgers are append-only, so restore it (git checkout %s -- %s)", c.base.Rev, c.base.Rev, p)
			continue
		}
		after, err := c.head.Read(p)
		if err != nil {
			continue // reported by parseAll
		}
		for _, m := range missingLines(before, after) {
			c.add(p, m.line, RuleAppendOnly, "%s; ledgers are append-only, so restore it from %s (git show %s:%s)", m.describe(c.base.Rev), c.base.Rev, c.base.Rev, p)
		}
	}
}

// checkSessionsUnchanged checks that every session identity file the
// base holds is still there, byte for byte: a session is written once, and
// the role and author in it decide what the session may do.
func (c *checker) checkSessionsUnchanged() {
	for _, p := range c.base.Paths() {
		if !strings.HasPrefix(p, repo.TodosDir+"/"+repo.SessionsDir+"/") || c.base.Same(c.head, p) {
			continue
		}
		verb := "changed"
		if !c.head.Has(p) {
			verb = "deleted"
		}
		c.add(p, 0, RuleWrittenOnce, "the session file was %s since %s; a session's identity is written once, so restore it (git checkout %s -- %s)", verb, c.base.Rev, c.base.Rev, p)
	}
}

// missingLine is a line of a log's base version that the later version
// does not hold in place.
type missingLine struct {
	line    int    // at the base
	what    string // "commented by ses_x at 2026-…", or the raw line
	changed int    // the later line that looks like an edit of it, or 0
	moved   int    // the later line holding it out of order, or 0
}

func (m missingLine) describe(base string) string {
	s := fmt.Sprintf("line %d at %s (%s)", m.line, base, m.what)
	switch {
	case m.changed > 0:
		return fmt.Sprintf("%s was changed on line %d", s, m.changed)
	case m.moved > 0:
		return fmt.Sprintf("%s was moved to line %d, out of order", s, m.moved)
	}
	return s + " was deleted"
}

// missingLines reports the base's lines that after does not hold as a
// subsequence (in order, unchanged), wherever additions were interleaved:
// each was deleted, changed or moved. A later line standing where a
// missing one stood (between the matches of its neighbours) and recording
// the same event reads as an edit of it.
//
// A line the base holds twice (the same entry arrived twice) is one entry:
// only its first copy must still be there.
func missingLines(before, after []byte) []missingLine {
	base, cur := uniqueLogLines(before), logLines(after)
	at := matchInOrder(base, cur)
	matched := make([]bool, len(cur))
	for _, k := range at {
		if k >= 0 {
			matched[k] = true
		}
	}
	var out []missingLine
	for i, b := range base {
		if at[i] >= 0 {
			continue
		}
		lo, hi := -1, len(cur)
		for x := i - 1; x >= 0; x-- {
			if at[x] >= 0 {
				lo = at[x]
				break
			}
		}
		for x := i + 1; x < len(base); x++ {
			if at[x] >= 0 {
				hi = at[x]
				break
			}
		}
		m := missingLine{line: b.n, what: entryWords(b.text)}
		for k := lo + 1; k < hi && m.changed == 0; k++ {
			if !matched[k] && sameEntry(cur[k].text, b.text) {
				m.changed, matched[k] = cur[k].n, true
			}
		}
		for k := 0; k < len(cur) && m.changed == 0 && m.moved == 0; k++ {
			if !matched[k] && cur[k].text == b.text {
				m.moved = cur[k].n
			}
		}
		if m.moved > 0 && orderFree(b.text) {
			continue // there, and where it stands decides nothing
		}
		out = append(out, m)
	}
	return out
}

// orderFree reports whether a ledger line records an event no reader
// orders against others: a binding, a link, an edit of fields other than
// minor. Two histories that each merged the other (a branch that merged
// main back, landed, and merged main again) can leave such lines in
// another order than the base's, and git's union merge keeps that order;
// the line is still there, so append-only holds. Decisions, starts,
// criteria, comments, a minor flag and security entries are ordered by
// the readers that judge them (the decision after another, the security
// entry after a decision), so a move of one of those is still a
// violation.
func orderFree(line string) bool {
	entries, _ := audit.ParseLedger([]byte(line))
	if len(entries) != 1 || entries[0].Type == audit.TypeSecurity {
		return false
	}
	e := entries[0]
	switch e.Action {
	case audit.ActionBound, audit.ActionUnbound, audit.ActionLinked, audit.ActionUnlinked:
		return true
	case audit.ActionEdited:
		_, minor := e.Details["minor"]
		return !minor
	}
	return false
}

// maxMatchCells bounds the table matchInOrder builds to report the fewest
// lines missing; past it, the first-fit matching reports them.
const maxMatchCells = 4 << 20

// matchInOrder pairs each base line with a later line of equal text, in
// order, and returns the later index of each (-1 for none). Each base line
// first takes the first equal line after the previous match: when that
// pairs every line, the base is a subsequence and that is the answer.
// Otherwise a longest common subsequence decides, so that one line moved
// to the end is reported, not the lines it jumped over.
func matchInOrder(base, cur []logLine) []int {
	at := make([]int, len(base))
	complete, j := true, 0
	for i, b := range base {
		k := j
		for k < len(cur) && cur[k].text != b.text {
			k++
		}
		if k == len(cur) {
			at[i], complete = -1, false
			continue
		}
		at[i], j = k, k+1
	}
	n, m := len(base), len(cur)
	if complete || (n+1)*(m+1) > maxMatchCells {
		return at
	}
	// lcs[i*(m+1)+j] is the length of a longest common subsequence of
	// base[i:] and cur[j:].
	lcs := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			v := max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
			if base[i].text == cur[j].text {
				v = max(v, lcs[(i+1)*(m+1)+j+1]+1)
			}
			lcs[i*(m+1)+j] = v
		}
	}
	for i, j := 0, 0; i < n; {
		switch {
		case j < m && base[i].text == cur[j].text && lcs[i*(m+1)+j] == lcs[(i+1)*(m+1)+j+1]+1:
			at[i] = j
			i, j = i+1, j+1
		case j < m && lcs[i*(m+1)+j+1] >= lcs[(i+1)*(m+1)+j]:
			j++
		default:
			at[i] = -1
			i++
		}
	}
	return at
}

// entryWords describes a ledger line for a message: its action, session
// and time, or its first bytes when it does not parse.
func entryWords(line string) string {
	entries, _ := audit.ParseLedger([]byte(line))
	if len(entries) == 1 {
		e := entries[0]
		return fmt.Sprintf("%s by %s at %s", e.Action, orNone(e.Session), e.TS.Format(time.RFC3339))
	}
	if len(line) > 40 {
		line = line[:40] + "…"
	}
	return fmt.Sprintf("%q", line)
}

// sameEntry reports whether two ledger lines record the same event (time,
// session and action), so that one reads as an edit of the other.
func sameEntry(a, b string) bool {
	ea, _ := audit.ParseLedger([]byte(a))
	eb, _ := audit.ParseLedger([]byte(b))
	return len(ea) == 1 && len(eb) == 1 && ea[0].TS.Equal(eb[0].TS) && ea[0].Session == eb[0].Session && ea[0].Action == eb[0].Action
}

// addedEntries returns the ledger entries of issue id added since the
// base, with their index in the work tree's ledger (as ParseLedger reads
// it, each entry once) and their line. An entry is added when its line is
// not in the base's ledger: a line the base holds that arrives again
// through a union merge (a branch squash-merged and then merged with its
// target again) is the same entry, not a new one, and so is the second
// copy of a line added twice.
func (c *checker) addedEntries(id string) []addedEntry {
	p := repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl"
	if c.base.Same(c.head, p) || !c.head.Has(p) {
		return nil
	}
	after, err := c.head.Read(p)
	if err != nil {
		return nil
	}
	var before []byte
	if c.base.Has(p) {
		if before, err = c.base.Read(p); err != nil {
			return nil
		}
	}
	inBase := map[string]bool{}
	for _, l := range audit.UniqueLines(before) {
		inBase[l] = true
	}
	var out []addedEntry
	idx := 0
	for _, l := range audit.ReadLedgerLines(after) {
		if l.Repeat || l.Err != nil {
			continue
		}
		if !inBase[l.Text] {
			out = append(out, addedEntry{Entry: l.Entry, issue: id, index: idx, line: l.N, text: l.Text})
		}
		idx++
	}
	return out
}

// ledgerTexts returns the lines of issue id's ledger in the work tree (or
// at HEAD), one for each entry c.ledgers holds, in the same order: the
// readable lines, a repeated line once.
func (c *checker) ledgerTexts(id string) []string {
	if t, ok := c.texts[id]; ok {
		return t
	}
	var out []string
	if data, err := c.head.Read(repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl"); err == nil {
		for _, l := range audit.ReadLedgerLines(data) {
			if !l.Repeat && l.Err == nil {
				out = append(out, l.Text)
			}
		}
	}
	if c.texts == nil {
		c.texts = map[string][]string{}
	}
	c.texts[id] = out
	return out
}

// addedEntry is a ledger entry added since the base.
type addedEntry struct {
	audit.Entry
	issue string // the issue whose ledger holds it
	index int    // among the readable entries of the work tree's ledger
	line  int    // in the work tree's file
	text  string // the line as written
}

// roleOf is the role a session had for the rules: an operator session
// counts only while its author is listed in the operators the config
// (the base's, when there is one) names.
func (c *checker) roleOf(id string) domain.Role { return repo.RoleUnder(c.config, c.sessions[id]) }

// baseIssue is the issue as the base has it, nil when the base's file
// cannot be read or parsed (parseAll reports the head's; an unreadable
// base file is no rule's to judge).
func (c *checker) baseIssue(id, p string) *repo.Issue {
	data, err := c.base.Read(p)
	if err != nil {
		return nil
	}
	old, err := repo.ParseIssueOwned(p, id, data)
	if err != nil {
		return nil
	}
	return old
}

// checkCriteriaDrops finds criteria dropped ([-]) or deleted since the
// base and requires a criterion_dropped ledger entry for each, added in
// the range by a session the policy lets drop a criterion: an operator.
func (c *checker) checkCriteriaDrops() {
	for _, id := range sortedKeys(c.issues) {
		is := c.issues[id]
		p := is.Path
		if c.base.Same(c.head, p) || !c.base.Has(p) {
			continue
		}
		old := c.baseIssue(id, p)
		if old == nil {
			continue
		}
		var drops []addedEntry
		for _, e := range c.addedEntries(id) {
			if e.Action == audit.ActionCriterionDropped {
				drops = append(drops, e)
			}
		}
		offset := bytes.Count(is.Doc.Bytes()[:len(is.Doc.Bytes())-len(is.Doc.Body)], []byte("\n"))
		now := is.Todos()
		for _, ev := range describeItems(old.Todos(), now) {
			if !ev.IsCriterion() || (ev.Suffix() != ItemDropped && ev.Suffix() != ItemDeleted) {
				continue
			}
			if ok, why := c.droppedByOperator(drops, ev); !ok {
				line := 0
				if ev.Suffix() == ItemDropped {
					line = offset + itemLine(now, ev)
				}
				verb := "dropped"
				if ev.Suffix() == ItemDeleted {
					verb = "deleted"
				}
				c.add(p, line, RuleCriterionDrop, "criterion %q was %s since %s %s; only an operator may drop a criterion: restore it, and have an operator drop it with td todo drop --issue %s", ev.Text, verb, c.base.Rev, why, id)
			}
		}
	}
}

// droppedByOperator looks for the ledger entry that accounts for a
// dropped criterion, and says what is wrong when there is none.
func (c *checker) droppedByOperator(drops []addedEntry, ev IssueEvent) (bool, string) {
	why := "with no criterion_dropped entry in the ledger"
	for _, e := range drops {
		if t, _ := e.Details["text"].(string); t != ev.Text {
			continue
		}
		if err := policy.TodoChange(c.roleOf(e.Session), domain.KindCriterion, domain.TodoPending, domain.TodoAbandoned); err != nil {
			why = fmt.Sprintf("by %s, which is not an operator session", orNone(e.Session))
			continue
		}
		return true, ""
	}
	return false, why
}

// itemLine is the body line of the criterion an event names, 0 if gone.
func itemLine(items []markdown.Item, ev IssueEvent) int {
	for _, it := range items {
		if it.Kind == domain.KindCriterion && it.Text == ev.Text {
			return it.Line
		}
	}
	return 0
}
