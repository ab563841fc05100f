package links

import (
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// Typed links between issues (child_of, duplicate_of, blocked_by,
// relates_to) are stored once, in the frontmatter of their source issue;
// the inverses a target sees (parent_of, duplicated_by, blocks) are
// computed from the other issues' links. Links never gate a transition.

// LinkResult says what td link or td unlink did.
type LinkResult struct {
	// Issue is the issue whose frontmatter holds (or held) the link, as
	// written.
	Issue *repo.Issue
	// Link is the link added or removed, as stored in Issue.
	Link domain.Link
}

// edge is the stored link l of the issue from, as the policy sees it.
func edge(from string, l domain.Link) policy.Edge {
	return policy.Edge{From: from, Kind: l.Kind, To: l.To}
}

func edgesOf(is *repo.Issue) []policy.Edge {
	out := make([]policy.Edge, len(is.Links))
	for i, l := range is.Links {
		out[i] = edge(is.ID, l)
	}
	return out
}

// storedEdge reads ID KIND OTHER as the link it stores: an unknown kind is
// invalid input that names the kinds.
func storedEdge(from, kind, to string) (policy.Edge, error) {
	e, err := policy.StoredEdge(from, kind, to)
	if err != nil {
		return e, repo.Errorf(repo.CodeInvalid, "%v", err)
	}
	return e, nil
}

// refuseSubagent refuses a subagent session the link commands, naming the
// command its root agent would run.
func refuseSubagent(se *repo.Session, command string) error {
	if err := policy.MayMutate(se.Agent); err != nil {
		return repo.Errorf(repo.CodeRefused, "subagent sessions cannot change todos or issues; ask the root agent %s to run td %s", se.Agent.Root(), command)
	}
	return nil
}

// Link adds the link "from kind to" (an inverse kind such as blocks is
// stored on the other issue) and records "linked" in the ledger of the
// issue that stores it. Both issues must exist; a link twice, a link to
// itself, a second parent or original, and a cycle of child_of or
// blocked_by are refused.
func Link(s *repo.Store, se *repo.Session, from, kind, to string) (*LinkResult, error) {
	if err := refuseSubagent(se, strings.Join([]string{"link", from, kind, to}, " ")); err != nil {
		return nil, err
	}
	e, err := storedEdge(from, kind, to)
	if err != nil {
		return nil, err
	}
	if e.From, err = s.ResolveID(e.From); err != nil {
		return nil, err
	}
	if e.To, err = s.ResolveID(e.To); err != nil {
		return nil, err
	}
	res := &LinkResult{Link: domain.Link{Kind: e.Kind, To: e.To}}
	err = s.Update(func(tx *repo.Tx) error {
		holder, err := s.ReadIssueFile(e.From)
		if err != nil {
			return err
		}
		res.Issue = holder
		if err := CheckLink(s, holder, e); err != nil {
			return err
		}
		if err := holder.SetLinks(append(slices.Clip(holder.Links), res.Link)); err != nil {
			return err
		}
		return s.WriteIssue(tx, se, holder, audit.ActionLinked, LinkDetails(res.Link), "")
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkLink gathers the links the policy needs to judge e, whose source is
// holder (read under the lock): the links of both ends and, for a kind that
// may not loop, every link of that kind reachable from e.To.
func CheckLink(s *repo.Store, holder *repo.Issue, e policy.Edge) error {
	existing := edgesOf(holder)
	if e.To != holder.ID {
		other, err := s.ReadIssueFile(e.To)
		if err != nil {
			return err
		}
		existing = append(existing, edgesOf(other)...)
		if policy.Acyclic(e.Kind) {
			reach, err := reachableEdges(s, e.Kind, other, holder)
			if err != nil {
				return err
			}
			existing = append(existing, reach...)
		}
	}
	return policy.CheckLink(existing, e)
}

// maxLinkWalk is how many issue files reachableEdges reads one by one
// before it reads them all from the index instead.
const maxLinkWalk = 64

// reachableEdges returns the stored links of kind reachable from start,
// following them file by file: a cycle through the new link must pass
// there, and the chains of parents, originals and blockers are short, so
// this reads a few files rather than stat every issue. holder is used as
// read, not read again. Past maxLinkWalk files it takes every link of kind
// from the index. Files td cannot read have no known links.
func reachableEdges(s *repo.Store, kind domain.LinkKind, start, holder *repo.Issue) ([]policy.Edge, error) {
	var out []policy.Edge
	seen := map[string]bool{start.ID: true}
	queue := []*repo.Issue{start}
	for len(queue) > 0 {
		is := queue[0]
		queue = queue[1:]
		for _, l := range is.Links {
			if l.Kind != kind {
				continue
			}
			out = append(out, edge(is.ID, l))
			if seen[l.To] {
				continue
			}
			seen[l.To] = true
			if len(seen) > maxLinkWalk {
				return allEdges(s, kind)
			}
			if l.To == holder.ID {
				queue = append(queue, holder)
				continue
			}
			if next, err := s.ReadIssueFile(l.To); err == nil {
				queue = append(queue, next)
			}
		}
	}
	return out, nil
}

// allEdges returns every stored link of kind, from the index.
func allEdges(s *repo.Store, kind domain.LinkKind) ([]policy.Edge, error) {
	all, _, err := s.LoadAll()
	if err != nil {
		return nil, err
	}
	var out []policy.Edge
	for _, is := range all {
		for _, l := range is.Links {
			if l.Kind == kind {
				out = append(out, edge(is.ID, l))
			}
		}
	}
	return out, nil
}

func LinkDetails(l domain.Link) map[string]any {
	return map[string]any{"kind": string(l.Kind), "to": l.To}
}

// resolveLinkEnd resolves an end of a link to remove. An ID that names no
// issue file is still accepted in full, so that a link to a deleted issue
// can be removed.
func resolveLinkEnd(s *repo.Store, ref string) (string, error) {
	id, err := s.ResolveID(ref)
	if err == nil || repo.CodeOf(err) != repo.CodeNotFound {
		return id, err
	}
	if r, nerr := repo.NormalizeRef(ref); nerr == nil && repo.ValidIssueID(r) {
		return r, nil
	}
	return "", err
}

// Unlink removes the link "from kind to" from whichever issue stores it
// (relates_to may be stored on either end) and records "unlinked" in that
// issue's ledger. Removing a link that is not there is refused with the
// links that are.
func Unlink(s *repo.Store, se *repo.Session, from, kind, to string) (*LinkResult, error) {
	if err := refuseSubagent(se, strings.Join([]string{"unlink", from, kind, to}, " ")); err != nil {
		return nil, err
	}
	e, err := storedEdge(from, kind, to)
	if err != nil {
		return nil, err
	}
	if e.From, err = resolveLinkEnd(s, e.From); err != nil {
		return nil, err
	}
	if e.To, err = resolveLinkEnd(s, e.To); err != nil {
		return nil, err
	}
	res := &LinkResult{}
	err = s.Update(func(tx *repo.Tx) error {
		holder, err := s.ReadIssueFile(e.From)
		if err != nil {
			return err
		}
		stored, ok := policy.FindLink(edgesOf(holder), e)
		if !ok && policy.Symmetric(e.Kind) && e.To != e.From {
			// relates_to typed from the end that does not store it.
			if other, err := s.ReadIssueFile(e.To); err == nil {
				if stored, ok = policy.FindLink(edgesOf(other), e); ok {
					holder = other
				}
			} else if repo.CodeOf(err) != repo.CodeNotFound {
				return err
			}
		}
		if !ok {
			return noSuchLink(s, holder, e)
		}
		res.Issue, res.Link = holder, domain.Link{Kind: stored.Kind, To: stored.To}
		kept := make([]domain.Link, 0, len(holder.Links))
		for _, l := range holder.Links {
			if l != res.Link {
				kept = append(kept, l)
			}
		}
		if err := holder.SetLinks(kept); err != nil {
			return err
		}
		return s.WriteIssue(tx, se, holder, audit.ActionUnlinked, LinkDetails(res.Link), "")
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// noSuchLink refuses an unlink, listing what td unlink could remove from
// the issue: its own links and the relates_to links others store.
func noSuchLink(s *repo.Store, holder *repo.Issue, e policy.Edge) error {
	links := edgesOf(holder)
	all, _, err := s.LoadAll()
	if err != nil {
		return err
	}
	for _, is := range all {
		if is.ID == holder.ID {
			continue
		}
		for _, l := range is.Links {
			if l.To == holder.ID && policy.Symmetric(l.Kind) {
				links = append(links, edge(is.ID, l))
			}
		}
	}
	return policy.NoSuchLink(e, links)
}

// LinkedIssue is one link of an issue as td links shows it.
type LinkedIssue struct {
	// Kind is the link as the issue sees it: a stored kind for its own
	// links, an inverse (parent_of, duplicated_by, blocks, relates_to) for
	// links stored on the other issue.
	Kind domain.LinkKind
	// ID is the other issue.
	ID string
	// Stored is true when the link is in this issue's frontmatter.
	Stored bool
	// Other is the other issue; nil when no readable file has that ID.
	Other *repo.Issue
}

// inverseOrder ranks the computed links: children first, then
// duplicates, the issues this one blocks, and related ones.
func inverseOrder(kind domain.LinkKind) int {
	return slices.Index([]domain.LinkKind{domain.ParentOf, domain.DuplicatedBy, domain.Blocks, domain.RelatesTo}, kind)
}

// Links returns the issue ref and every link it has: its own, in file
// order, then those other issues store about it, by kind and ID. The
// files td could not read come back beside them: their links are unknown.
func Links(s *repo.Store, ref string) (*repo.Issue, []LinkedIssue, []error, error) {
	is, err := s.Issue(ref)
	if err != nil {
		return nil, nil, nil, err
	}
	all, perrs, err := s.LoadAll()
	if err != nil {
		return nil, nil, nil, err
	}
	byID := make(map[string]*repo.Issue, len(all))
	for _, x := range all {
		byID[x.ID] = x
	}
	var out []LinkedIssue
	for _, l := range is.Links {
		out = append(out, LinkedIssue{Kind: l.Kind, ID: l.To, Stored: true, Other: byID[l.To]})
	}
	var computed []LinkedIssue
	for _, x := range all {
		if x.ID == is.ID {
			continue
		}
		for _, l := range x.Links {
			if l.To == is.ID {
				computed = append(computed, LinkedIssue{Kind: l.Kind.Inverse(), ID: x.ID, Other: x})
			}
		}
	}
	slices.SortStableFunc(computed, func(a, b LinkedIssue) int {
		if c := inverseOrder(a.Kind) - inverseOrder(b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return is, append(out, computed...), perrs, nil
}

// Ready lists the open issues matching f whose blocked_by links all point
// at closed issues: the work that can be picked up now. Issues in progress,
// blocked or in review are not candidates. A blocker td cannot read, or
// that no longer exists, counts as open; a missing one is reported beside
// the unreadable files, with the unlink that removes it.
func Ready(s *repo.Store, f repo.Filter) ([]*repo.Issue, []error, error) {
	f.Statuses, f.All = []string{string(domain.StatusOpen)}, false
	if err := f.Validate(); err != nil {
		return nil, nil, err
	}
	f = s.ResolveAssignee(f)
	all, perrs, err := s.LoadAll()
	if err != nil {
		return nil, nil, err
	}
	statusOf := statusLookup(all)
	unreadable := map[string]bool{}
	for _, pe := range perrs {
		var p *repo.ParseError
		if errors.As(pe, &p) {
			unreadable[strings.TrimSuffix(path.Base(p.Path), ".md")] = true
		}
	}
	var out []*repo.Issue
	for _, is := range all {
		if !f.Match(is) {
			continue
		}
		ready := true
		for _, l := range is.Links {
			if l.Kind != domain.BlockedBy {
				continue
			}
			st, known := statusOf(l.To)
			if !known && !unreadable[l.To] {
				perrs = append(perrs, repo.Errorf(repo.CodeNotFound, "%s is blocked_by %s, which does not exist; td unlink %s blocked_by %s removes the link", is.ID, l.To, is.ID, l.To))
			}
			if st != domain.StatusClosed {
				ready = false
			}
		}
		if ready {
			out = append(out, is)
		}
	}
	repo.SortIssues(out)
	return out, perrs, nil
}

// statusLookup returns a function that finds an issue's status in all.
// The store lists issues by file name, which for every ID td makes is
// the order of IDs, and then a binary search needs no map: building one
// of 100,000 IDs was a twentieth of td ready.
func statusLookup(all []*repo.Issue) func(id string) (domain.Status, bool) {
	byID := func(is *repo.Issue, id string) int { return strings.Compare(is.ID, id) }
	if repo.InIDOrder(all) {
		return func(id string) (domain.Status, bool) {
			i, ok := slices.BinarySearchFunc(all, id, byID)
			if !ok {
				return "", false
			}
			return all[i].Status, true
		}
	}
	status := make(map[string]domain.Status, len(all))
	for _, is := range all {
		status[is.ID] = is.Status
	}
	return func(id string) (domain.Status, bool) {
		st, ok := status[id]
		return st, ok
	}
}

// OpenChildren lists the issues that are child_of id and not closed, for
// the warning td close gives. To keep a close within its time budget it
// does not stat every issue file: it looks in the index cache as td last
// wrote it (rebuilding it only when missing or corrupt) and reads each
// child it finds there again. A child made by a hand edit or a pull is
// seen once any td listing has refreshed the cache.
func OpenChildren(s *repo.Store, id string) ([]*repo.Issue, error) {
	candidates, err := s.ChildCandidates(id)
	if err != nil {
		return nil, err
	}
	var out []*repo.Issue
	for _, c := range candidates {
		is, err := s.ReadIssueFile(c)
		if err != nil {
			continue // gone or unreadable since: td list reports it
		}
		if is.Status != domain.StatusClosed && slices.Contains(is.Links, domain.Link{Kind: domain.ChildOf, To: id}) {
			out = append(out, is)
		}
	}
	repo.SortIssues(out)
	return out, nil
}

// Children lists every issue that is child_of id, closed ones included,
// sorted as td list sorts: what td show tells of an epic. Like
// OpenChildren it looks in the index cache as td last wrote it and reads
// each child it finds there again.
func Children(s *repo.Store, id string) ([]*repo.Issue, error) {
	candidates, err := s.ChildCandidates(id)
	if err != nil {
		return nil, err
	}
	var out []*repo.Issue
	for _, c := range candidates {
		is, err := s.ReadIssueFile(c)
		if err != nil {
			continue // gone or unreadable since: td list reports it
		}
		if slices.Contains(is.Links, domain.Link{Kind: domain.ChildOf, To: id}) {
			out = append(out, is)
		}
	}
	repo.SortIssues(out)
	return out, nil
}

// ChildCount is how many issues are child_of one issue, and how many of
// them are closed: what td list and td board show of an epic.
type ChildCount struct {
	Closed, Total int
}

// ChildCounts counts the children of every issue in all, by parent ID,
// from issues already loaded (a listing has them all): one pass, where
// Children reads the files of one issue's children.
func ChildCounts(all []*repo.Issue) map[string]ChildCount {
	out := map[string]ChildCount{}
	for _, is := range all {
		for _, l := range is.Links {
			if l.Kind != domain.ChildOf {
				continue
			}
			c := out[l.To]
			c.Total++
			if is.Status == domain.StatusClosed {
				c.Closed++
			}
			out[l.To] = c
		}
	}
	return out
}

// Descendants is the set of issues below id by child_of links, at any
// depth, from issues already loaded: an epic's work, for td board --epic.
// id itself is not in it.
func Descendants(all []*repo.Issue, id string) map[string]bool {
	kids := map[string][]string{}
	for _, is := range all {
		for _, l := range is.Links {
			if l.Kind == domain.ChildOf {
				kids[l.To] = append(kids[l.To], is.ID)
			}
		}
	}
	out := map[string]bool{}
	next := []string{id}
	for len(next) > 0 {
		p := next[len(next)-1]
		next = next[:len(next)-1]
		for _, k := range kids[p] {
			if !out[k] && k != id {
				out[k] = true
				next = append(next, k)
			}
		}
	}
	return out
}
