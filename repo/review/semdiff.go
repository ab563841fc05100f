package review

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// Kinds of IssueEvent: what changed between two versions of an issue file.
// Checklist kinds come in two families, "criterion_…" for acceptance
// criteria and "todo_…" for steps, with the same suffixes.
const (
	EventOpened      = "opened"        // the file appeared
	EventDeleted     = "deleted"       // the file disappeared
	EventClosed      = "closed"        // status became closed
	EventReopened    = "reopened"      // status left closed
	EventStatus      = "status"        // any other status change
	EventTitle       = "title"         // the issue was re-scoped by its title
	EventType        = "type"          // bug, feature, task…
	EventPriority    = "priority"      // P0..P4
	EventAssignee    = "assignee"      // who the issue is assigned to
	EventImplementer = "implementer"   // the session implementing it
	EventCreatedBy   = "created_by"    // the creator field, which the policy reads
	EventMinor       = "minor"         // the minor flag
	EventResolution  = "resolution"    // resolution changed while closed
	EventLabelAdded  = "label_added"   // a label appeared
	EventLabelGone   = "label_removed" // a label went away
	EventLinkAdded   = "link_added"    // a typed link appeared
	EventLinkGone    = "link_removed"  // a typed link went away
	EventDescription = "description"   // the free description was edited

	// Suffixes of the checklist kinds.
	ItemAdded     = "added"     // a new item
	ItemCompleted = "completed" // marked [x]
	ItemDropped   = "dropped"   // marked [-]
	ItemBlocked   = "blocked"   // marked [!]
	ItemUnblocked = "unblocked" // [!] back to pending or in progress
	ItemStarted   = "started"   // pending to in progress
	ItemReopened  = "reopened"  // completed or dropped back to pending or in progress
	ItemStatus    = "status"    // any other marker change (in progress back to pending)
	ItemDeleted   = "deleted"   // the item's line is gone (a text edit is a deletion and an addition)
)

// Prefixes of the checklist kinds: the family an item belongs to.
const (
	CriterionPrefix = "criterion_"
	TodoPrefix      = "todo_"
)

// IssueEvent is one meaningful change between two versions of an issue
// file, such as a status change or a criterion completed: the unit td diff
// and td log summarise. Field names are stable in JSON.
type IssueEvent struct {
	// Kind is one of the Event constants, or a checklist kind:
	// CriterionPrefix or TodoPrefix followed by an Item suffix.
	Kind string `json:"kind"`
	// From and To are the old and new values of a field change, or the
	// old and new status of a checklist item.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Text is the item's text, the label, the link target or the title.
	Text string `json:"text,omitempty"`
	// Link is the kind of a link added or removed.
	Link string `json:"link,omitempty"`
	// Phase is the phase of a step.
	Phase string `json:"phase,omitempty"`
}

// IsCriterion reports whether the event concerns an acceptance criterion.
func (e IssueEvent) IsCriterion() bool { return strings.HasPrefix(e.Kind, CriterionPrefix) }

// IsItem reports whether the event concerns a checklist item.
func (e IssueEvent) IsItem() bool {
	return e.IsCriterion() || strings.HasPrefix(e.Kind, TodoPrefix)
}

// Suffix is the checklist kind without its family ("completed" for
// "criterion_completed"); for other events it is the kind.
func (e IssueEvent) Suffix() string {
	if s, ok := strings.CutPrefix(e.Kind, CriterionPrefix); ok {
		return s
	}
	if s, ok := strings.CutPrefix(e.Kind, TodoPrefix); ok {
		return s
	}
	return e.Kind
}

// String is the event as one line: `status open -> in_progress`,
// `criterion completed: "X"`.
func (e IssueEvent) String() string {
	if e.IsItem() {
		noun := "todo"
		if e.IsCriterion() {
			noun = "criterion"
		}
		s := fmt.Sprintf("%s %s: %q", noun, e.Suffix(), e.Text)
		switch e.Suffix() {
		case ItemStatus:
			s = fmt.Sprintf("%s %q: %s -> %s", noun, e.Text, e.From, e.To)
		case ItemAdded:
			if e.To != "" && e.To != string(domain.TodoPending) {
				s += " (" + e.To + ")"
			}
		}
		if e.Phase != "" {
			s += " [" + e.Phase + "]"
		}
		return s
	}
	switch e.Kind {
	case EventOpened:
		return fmt.Sprintf("opened: %q", e.Text)
	case EventDeleted:
		return "deleted"
	case EventClosed:
		if e.To != "" {
			return "closed (" + e.To + ")"
		}
		return "closed"
	case EventReopened:
		return "reopened: closed -> " + e.To
	case EventTitle:
		return fmt.Sprintf("title %q -> %q", e.From, e.To)
	case EventMinor:
		if e.To == "true" {
			return "marked minor"
		}
		return "no longer minor"
	case EventLabelAdded:
		return "label added: " + e.Text
	case EventLabelGone:
		return "label removed: " + e.Text
	case EventLinkAdded:
		return "link added: " + e.Link + " " + e.Text
	case EventLinkGone:
		return "link removed: " + e.Link + " " + e.Text
	case EventDescription:
		return "description edited"
	}
	return fmt.Sprintf("%s %s -> %s", e.Kind, orNone(e.From), orNone(e.To))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// DescribeIssueChange lists what changed between two versions of an issue
// file, in a stable order: the issue's fields, then its links and labels,
// then its criteria and steps in document order. A nil before means the
// file was created, a nil after that it was deleted. A version td cannot
// read is an error saying where.
func DescribeIssueChange(before, after []byte) ([]IssueEvent, error) {
	var a, b *repo.Issue
	var err error
	if before != nil {
		if a, err = parseIssueBytes(before); err != nil {
			return nil, fmt.Errorf("the earlier version, %w", err)
		}
	}
	if after != nil {
		if b, err = parseIssueBytes(after); err != nil {
			return nil, fmt.Errorf("the later version, %w", err)
		}
	}
	return describeIssues(a, b), nil
}

// parseIssueBytes parses an issue file whose name is not known, taking the
// ID from its own frontmatter. Errors say "line N: reason".
func parseIssueBytes(data []byte) (*repo.Issue, error) {
	doc, err := markdown.Parse(data)
	if err != nil {
		return nil, err
	}
	var f struct {
		ID string `yaml:"id"`
	}
	if err := doc.Front.Decode(&f); err != nil {
		return nil, err
	}
	is, err := repo.ParseIssue("", f.ID, data)
	var pe *repo.ParseError
	if errors.As(err, &pe) {
		return nil, &markdown.Error{Line: max(pe.Line, 1), Msg: pe.Msg}
	}
	return is, err
}

// describeIssues compares two parsed versions of one issue; either may be
// nil (created, deleted).
func describeIssues(a, b *repo.Issue) []IssueEvent {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		out := []IssueEvent{{Kind: EventOpened, Text: b.Title}}
		if b.Status != domain.StatusOpen {
			out = append(out, statusEvent(domain.StatusOpen, b))
		}
		for _, l := range b.Links {
			out = append(out, IssueEvent{Kind: EventLinkAdded, Link: string(l.Kind), Text: l.To})
		}
		return append(out, describeItems(nil, b.Todos())...)
	case b == nil:
		return []IssueEvent{{Kind: EventDeleted, Text: a.Title}}
	}
	var out []IssueEvent
	field := func(kind, from, to string) {
		if from != to {
			out = append(out, IssueEvent{Kind: kind, From: from, To: to})
		}
	}
	if a.Status != b.Status {
		out = append(out, statusEvent(a.Status, b))
	} else if a.Status == domain.StatusClosed {
		field(EventResolution, string(a.Resolution), string(b.Resolution))
	}
	field(EventTitle, a.Title, b.Title)
	field(EventType, string(a.Type), string(b.Type))
	field(EventPriority, string(a.Priority), string(b.Priority))
	field(EventAssignee, a.Assignee, b.Assignee)
	field(EventImplementer, a.Implementer, b.Implementer)
	field(EventCreatedBy, a.CreatedBy, b.CreatedBy)
	if a.Minor != b.Minor {
		out = append(out, IssueEvent{Kind: EventMinor, From: fmt.Sprint(a.Minor), To: fmt.Sprint(b.Minor)})
	}
	if a.Description() != b.Description() {
		out = append(out, IssueEvent{Kind: EventDescription})
	}
	for _, l := range b.Links {
		if !slices.Contains(a.Links, l) {
			out = append(out, IssueEvent{Kind: EventLinkAdded, Link: string(l.Kind), Text: l.To})
		}
	}
	for _, l := range a.Links {
		if !slices.Contains(b.Links, l) {
			out = append(out, IssueEvent{Kind: EventLinkGone, Link: string(l.Kind), Text: l.To})
		}
	}
	for _, l := range b.Labels {
		if !slices.Contains(a.Labels, l) {
			out = append(out, IssueEvent{Kind: EventLabelAdded, Text: l})
		}
	}
	for _, l := range a.Labels {
		if !slices.Contains(b.Labels, l) {
			out = append(out, IssueEvent{Kind: EventLabelGone, Text: l})
		}
	}
	return append(out, describeItems(a.Todos(), b.Todos())...)
}

// statusEvent describes the move from status `from` to b's status.
func statusEvent(from domain.Status, b *repo.Issue) IssueEvent {
	switch {
	case b.Status == domain.StatusClosed:
		return IssueEvent{Kind: EventClosed, From: string(from), To: string(b.Resolution)}
	case from == domain.StatusClosed:
		return IssueEvent{Kind: EventReopened, From: string(from), To: string(b.Status)}
	}
	return IssueEvent{Kind: EventStatus, From: string(from), To: string(b.Status)}
}

// itemKey identifies a checklist item across versions: its kind, phase and
// text, and which occurrence of that triple it is (a file may repeat one).
type itemKey struct {
	kind        domain.TodoKind
	phase, text string
	nth         int
}

func keyItems(items []markdown.Item) []itemKey {
	seen := map[itemKey]int{}
	keys := make([]itemKey, len(items))
	for i, it := range items {
		k := itemKey{kind: it.Kind, phase: it.Phase, text: it.Text}
		keys[i] = k
		keys[i].nth = seen[k]
		seen[k]++
	}
	return keys
}

// describeItems compares two checklists item by item: criteria first,
// then steps, each in the order of the later version, deletions after.
func describeItems(before, after []markdown.Item) []IssueEvent {
	bk, ak := keyItems(before), keyItems(after)
	old := make(map[itemKey]markdown.Item, len(before))
	for i, it := range before {
		old[bk[i]] = it
	}
	present := make(map[itemKey]bool, len(after))
	var out []IssueEvent
	for _, kind := range []domain.TodoKind{domain.KindCriterion, domain.KindStep} {
		for i, it := range after {
			if it.Kind != kind {
				continue
			}
			present[ak[i]] = true
			prev, ok := old[ak[i]]
			switch {
			case !ok:
				out = append(out, itemEvent(it, ItemAdded, "", it.Status))
			case prev.Status != it.Status:
				out = append(out, itemEvent(it, itemTransition(prev.Status, it.Status), prev.Status, it.Status))
			}
		}
		for i, it := range before {
			if it.Kind == kind && !present[bk[i]] {
				out = append(out, itemEvent(it, ItemDeleted, it.Status, ""))
			}
		}
	}
	return out
}

func itemEvent(it markdown.Item, suffix string, from, to domain.TodoStatus) IssueEvent {
	prefix := TodoPrefix
	if it.Kind == domain.KindCriterion {
		prefix = CriterionPrefix
	}
	return IssueEvent{Kind: prefix + suffix, Text: it.Text, Phase: it.Phase, From: string(from), To: string(to)}
}

// itemTransition names a marker change.
func itemTransition(from, to domain.TodoStatus) string {
	switch {
	case to == domain.TodoCompleted:
		return ItemCompleted
	case to == domain.TodoAbandoned:
		return ItemDropped
	case to == domain.TodoBlocked:
		return ItemBlocked
	case from == domain.TodoBlocked:
		return ItemUnblocked
	case from == domain.TodoCompleted || from == domain.TodoAbandoned:
		return ItemReopened
	case from == domain.TodoPending && to == domain.TodoInProgress:
		return ItemStarted
	}
	return ItemStatus
}

// DiffRange is the pair of snapshots td diff compares.
type DiffRange struct {
	// BaseRev is the base revision as asked for, or the default branch.
	BaseRev string `json:"base_rev"`
	// Base is the commit compared: the merge base of BaseRev and HEAD
	// when MergeBase is set, else BaseRev's commit.
	Base      string `json:"base"`
	MergeBase bool   `json:"merge_base"`
	// HeadRev is the head revision as asked for; "" means the work tree.
	HeadRev string `json:"head_rev"`
	// Head is HeadRev's commit; "" for the work tree.
	Head string `json:"head"`
}

// ResolveDiffRange decides what td diff [BASE [HEAD]] compares. With no
// HEAD the later side is the work tree, uncommitted changes included, and
// the earlier side is where this branch left BASE: their merge base, so
// that only this branch's changes show, as in a pull request (git diff
// BASE...). BASE defaults to the default branch (origin/HEAD, main,
// master). With both given, the two revisions are compared as they are.
func ResolveDiffRange(s *repo.Store, base, head string) (*DiffRange, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "%s is not in a git repository, so there are no revisions to compare", s.Root)
	}
	if base == "" {
		if base, err = g.DefaultBranch(); err != nil {
			if errors.Is(err, gitrepo.ErrNoDefaultBranch) {
				return nil, &repo.Error{Code: repo.CodeNotFound, Err: err,
					Msg: "there is no origin/HEAD, main or master branch to compare with; name the base revision: td diff BASE"}
			}
			return nil, err
		}
	}
	r := &DiffRange{BaseRev: base, HeadRev: head}
	if r.Base, err = g.Resolve(base); err != nil {
		if _, herr := g.Resolve("HEAD"); herr != nil {
			return nil, &repo.Error{Code: repo.CodeNotFound, Err: err,
				Msg: fmt.Sprintf("this repository has no commits yet, so there is no %s to compare with; commit first (git add .todos && git commit), then td diff %s", base, base)}
		}
		return nil, repo.RevisionError(base, err)
	}
	if head != "" {
		if r.Head, err = g.Resolve(head); err != nil {
			return nil, repo.RevisionError(head, err)
		}
		return r, nil
	}
	if _, err := g.Resolve("HEAD"); err != nil {
		return nil, &repo.Error{Code: repo.CodeNotFound, Err: err,
			Msg: "HEAD has no commits yet, so it has no history in common with " + base + "; commit first, or compare two revisions: td diff BASE HEAD"}
	}
	mb, err := g.MergeBase(base, "HEAD")
	if errors.Is(err, gitrepo.ErrNoMergeBase) {
		return nil, &repo.Error{Code: repo.CodeRefused, Err: err,
			Msg: fmt.Sprintf("%s and HEAD share no history; compare the two revisions as they are: td diff %s HEAD", base, base)}
	}
	if err != nil {
		return nil, err
	}
	r.Base, r.MergeBase = mb, true
	return r, nil
}

// IssueDiff is what changed for one issue between two snapshots: its file,
// the ledger entries and the security events added.
type IssueDiff struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Events are the changes to the issue file, in DescribeIssueChange's
	// order.
	Events []IssueEvent `json:"events"`
	// Ledger holds the ledger entries the later side has and the earlier
	// one has not, in file order.
	Ledger []audit.Entry `json:"ledger"`
	// Security holds the security events added that name this issue.
	Security []audit.SecurityEvent `json:"security_events"`
}

// TodosDiff is the semantic difference of .todos between two snapshots.
type TodosDiff struct {
	Range *DiffRange `json:"range"`
	// Issues are the issues with any change, by ID.
	Issues []IssueDiff `json:"issues"`
	// Security holds the security events added that name no issue (flag
	// changes, for example).
	Security []audit.SecurityEvent `json:"security_events"`
	// Problems are files one side holds that td could not read; the rest
	// of the diff stands without them.
	Problems []error `json:"-"`
}

// Diff compares .todos at the two ends of r.
func Diff(s *repo.Store, r *DiffRange) (*TodosDiff, error) {
	base, err := s.SnapshotAt(r.Base)
	if err != nil {
		return nil, err
	}
	base.Rev = r.BaseRev
	var head *repo.Snapshot
	if r.Head == "" {
		head, err = s.WorkTreeSnapshot()
	} else {
		head, err = s.SnapshotAt(r.Head)
		if head != nil {
			head.Rev = r.HeadRev
		}
	}
	if err != nil {
		return nil, err
	}
	d := diffSnapshots(base, head)
	d.Range = r
	return d, nil
}

// diffSnapshots compares two snapshots file by file: issue files through
// DescribeIssueChange's reading, ledgers and security events by the lines
// added.
func diffSnapshots(base, head *repo.Snapshot) *TodosDiff {
	d := &TodosDiff{Issues: []IssueDiff{}, Security: []audit.SecurityEvent{}}
	head.PrefetchHashes(head.Paths())
	paths := unionPaths(base.Paths(), head.Paths())
	var changed []string
	for _, p := range paths {
		if !base.Same(head, p) {
			changed = append(changed, p)
		}
	}
	head.Prefetch(changed)
	base.Prefetch(changed)
	byID := map[string]*IssueDiff{}
	issue := func(id string) *IssueDiff {
		if byID[id] == nil {
			byID[id] = &IssueDiff{ID: id, Events: []IssueEvent{}, Ledger: []audit.Entry{}, Security: []audit.SecurityEvent{}}
		}
		return byID[id]
	}
	read := func(sn *repo.Snapshot, p string) ([]byte, bool) {
		if !sn.Has(p) {
			return nil, true
		}
		data, err := sn.Read(p)
		if err != nil {
			d.Problems = append(d.Problems, fmt.Errorf("%s: %w", sn.Label(), err))
			return nil, false
		}
		return data, true
	}
	for _, p := range changed {
		before, okB := read(base, p)
		after, okA := read(head, p)
		if !okB || !okA {
			continue
		}
		id, isIssuePath := repo.IssueIDOf(p)
		switch {
		case p == repo.TodosDir+"/"+repo.SecurityEvents:
			events, _ := audit.ParseSecurityEvents(addedLines(before, after))
			for _, ev := range events {
				if ev.IssueID == "" {
					d.Security = append(d.Security, ev)
				} else {
					is := issue(ev.IssueID)
					is.Security = append(is.Security, ev)
				}
			}
		case !isIssuePath || !repo.ValidIssueID(id):
		case strings.HasSuffix(p, ".jsonl"):
			entries, _ := audit.ParseLedger(addedLines(before, after))
			is := issue(id)
			is.Ledger = append(is.Ledger, entries...)
		default:
			a, errA := parseSnapshotIssue(p, id, before)
			b, errB := parseSnapshotIssue(p, id, after)
			if errA != nil || errB != nil {
				d.Problems = append(d.Problems, cmpErr(errA, base), cmpErr(errB, head))
				d.Problems = slices.DeleteFunc(d.Problems, func(e error) bool { return e == nil })
				continue
			}
			issue(id).Events = append(issue(id).Events, describeIssues(a, b)...)
		}
	}
	for id, is := range byID {
		is.Title = snapshotTitle(head, id)
		if is.Title == "" {
			is.Title = snapshotTitle(base, id)
		}
		if len(is.Events)+len(is.Ledger)+len(is.Security) > 0 {
			d.Issues = append(d.Issues, *is)
		}
	}
	slices.SortFunc(d.Issues, func(a, b IssueDiff) int { return strings.Compare(a.ID, b.ID) })
	return d
}

func cmpErr(err error, sn *repo.Snapshot) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", sn.Label(), err)
}

// parseSnapshotIssue parses an issue file's bytes; nil data (no file) is a
// nil issue.
func parseSnapshotIssue(p, id string, data []byte) (*repo.Issue, error) {
	if data == nil {
		return nil, nil
	}
	return repo.ParseIssue(p, id, data)
}

// snapshotTitle is the title of the issue in the snapshot, "" when it has
// no readable file there.
func snapshotTitle(sn *repo.Snapshot, id string) string {
	p := repo.TodosDir + "/" + repo.IssuesDir + "/" + id + ".md"
	if !sn.Has(p) {
		return ""
	}
	data, err := sn.Read(p)
	if err != nil {
		return ""
	}
	is, err := repo.ParseIssue(p, id, data)
	if err != nil {
		return ""
	}
	return is.Title
}

// unionPaths merges two sorted path lists.
func unionPaths(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// addedLines returns the lines of an append-only log that after holds
// and before does not, each once, in after's order: a line of before is
// not added wherever a union merge put it, nor when it arrives again (a
// branch squash-merged and then merged with its target), and a line after
// holds twice is one line. Blank lines are dropped.
func addedLines(before, after []byte) []byte {
	had := map[string]bool{}
	for _, l := range audit.UniqueLines(before) {
		had[l] = true
	}
	var out []byte
	for _, l := range audit.UniqueLines(after) {
		if had[l] {
			continue
		}
		out = append(out, l...)
		out = append(out, '\n')
	}
	return out
}

// logLine is one non-blank line of an append-only log, trimmed, with its
// 1-based line number.
type logLine struct {
	n    int
	text string
}

// uniqueLogLines is logLines with each line's later copies left out.
func uniqueLogLines(data []byte) []logLine {
	lines := logLines(data)
	seen := make(map[string]bool, len(lines))
	return slices.DeleteFunc(lines, func(l logLine) bool {
		if seen[l.text] {
			return true
		}
		seen[l.text] = true
		return false
	})
}

func logLines(data []byte) []logLine {
	var out []logLine
	for n, l := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(l); t != "" {
			out = append(out, logLine{n + 1, t})
		}
	}
	return out
}
