package review

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// checkMergedCycles judges the links the merge of the range into its
// target would have, when the target moved on since the merge base: two
// pull requests can each add one half of a cycle, each pass alone and
// merge cleanly, and leave the target with a cycle nobody's check saw.
// The merged graph is the target tip's issues, with the links of the ones
// the range changed merged as td merges them (mergedLinks: both sides'
// additions, both sides' removals); a cycle in it runs through a changed
// issue, so the walk from those, reading the others at the target tip as
// it finds them, holds every such cycle. A cycle HEAD's links close alone
// is checkLinks' to report; one that needs the target's links too is
// reported here, in the pull request that completes it, naming both
// halves. changed holds the issues the range changed, at HEAD.
func (c *checker) checkMergedCycles(target, tip string, changed map[string]*repo.Issue) error {
	// A cycle through a changed issue leaves it by one of its own links:
	// without any, the target's tree need not be read.
	if !slices.ContainsFunc(slices.Collect(maps.Values(changed)), func(is *repo.Issue) bool {
		return slices.ContainsFunc(is.Links, func(l domain.Link) bool { return policy.Acyclic(l.Kind) })
	}) {
		return nil
	}
	at, err := c.s.IssueFilesAt(tip)
	if err != nil {
		return err
	}
	// Each issue's links once, as the merge would have them.
	nodes := map[string][]domain.Link{}
	var queue []string
	for _, id := range sortedKeys(changed) {
		is := changed[id]
		var base, theirs []domain.Link
		if old := c.baseIssue(id, is.Path); old != nil {
			base = old.Links
		}
		if t := issueAt(at, id); t != nil {
			theirs = t.Links
		} else {
			theirs = base // gone at the target: the range's version stands
		}
		nodes[id] = mergedLinks(base, is.Links, theirs)
		queue = append(queue, id)
	}
	edges := map[domain.LinkKind][]policy.Edge{}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, l := range nodes[id] {
			if !policy.Acyclic(l.Kind) {
				continue
			}
			edges[l.Kind] = append(edges[l.Kind], policy.Edge{From: id, Kind: l.Kind, To: l.To})
			if _, seen := nodes[l.To]; seen {
				continue
			}
			nodes[l.To] = nil
			if t := issueAt(at, l.To); t != nil {
				nodes[l.To] = t.Links
			}
			queue = append(queue, l.To)
		}
	}
	for _, kind := range domain.LinkKinds() {
		if !policy.Acyclic(kind) {
			continue
		}
		for _, cycle := range policy.Cycles(edges[kind]) {
			c.reportMergedCycle(target, kind, cycle, changed)
		}
	}
	return nil
}

// mergedLinks merges an issue's links as sets, the way td's merge driver
// does: a link either side added is there, and one either side removed
// is not.
func mergedLinks(base, ours, theirs []domain.Link) []domain.Link {
	var out []domain.Link
	keep := func(l domain.Link) bool {
		inBase := slices.Contains(base, l)
		inOurs, inTheirs := slices.Contains(ours, l), slices.Contains(theirs, l)
		if inBase {
			return inOurs && inTheirs
		}
		return inOurs || inTheirs
	}
	for _, l := range slices.Concat(ours, theirs) {
		if keep(l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// reportMergedCycle reports a cycle of the merged graph that needs a link
// of the target's: each link is named with the side it comes from (the
// range's when HEAD has it), and the range's links are the ones its
// author can remove.
func (c *checker) reportMergedCycle(target string, kind domain.LinkKind, cycle []string, changed map[string]*repo.Issue) {
	var ours, theirs, unlink []string
	first := ""
	for i := 0; i+1 < len(cycle); i++ {
		from, to := cycle[i], cycle[i+1]
		link := fmt.Sprintf("%s %s %s", from, kind, to)
		head := changed[from]
		if head == nil {
			head = c.issueOrHead(from)
		}
		if head == nil || !slices.Contains(head.Links, domain.Link{Kind: kind, To: to}) {
			theirs = append(theirs, link)
			continue
		}
		ours = append(ours, link)
		if changed[from] != nil {
			unlink = append(unlink, "td unlink "+link)
			if first == "" {
				first = from
			}
		}
	}
	if len(theirs) == 0 || first == "" {
		return // HEAD closes the cycle alone (checkLinks reports it), or the target does
	}
	is := changed[first]
	c.add(is.Path, c.linksLine(first, is.Path), RuleLinkCycle, "%s links form a cycle once this branch merges into %s: %s; this branch links %s, and %s has linked %s since the merge base; each half passes alone, so remove one of this branch's links (%s), or merge %s in and remove one of the cycle's links",
		kind, target, cyclePath(cycle, kind), strings.Join(ours, ", "), target, strings.Join(theirs, ", "), strings.Join(unlink, " or "), target)
}

// cyclePath writes a cycle as td-a blocked_by td-b blocked_by td-a.
func cyclePath(cycle []string, kind domain.LinkKind) string {
	return strings.Join(cycle, " "+string(kind)+" ")
}

// issueOrHead is the issue id at HEAD: as the checks read it already, or
// parsed now.
func (c *checker) issueOrHead(id string) *repo.Issue {
	if is := c.issues[id]; is != nil {
		return is
	}
	if !c.head.IssueExists(id) {
		return nil
	}
	return c.issueAtHead(id)
}

// issueAt parses issue id in the snapshot, nil when it has no readable
// file there.
func issueAt(sn *repo.Snapshot, id string) *repo.Issue {
	if !repo.ValidIssueID(id) || !sn.IssueExists(id) {
		return nil
	}
	sn.Include(id)
	p := repo.TodosDir + "/" + repo.IssuesDir + "/" + id + ".md"
	data, err := sn.Read(p)
	if err != nil {
		return nil
	}
	is, err := repo.ParseIssueOwned(p, id, data)
	if err != nil {
		return nil
	}
	return is
}
