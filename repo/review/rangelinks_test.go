package review

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// TestRangeLinksAsFullCheck holds the links check of a range to the check
// over every issue, on random link graphs where a few issues changed: the
// range reports only what the full check reports, and everything that
// involves a changed issue (a link of it that does not resolve, a cycle
// through it). A deleted issue's referrers count as involved.
func TestRangeLinksAsFullCheck(t *testing.T) {
	kinds := domain.LinkKinds()
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 2 + rng.IntN(8)
		ids := make([]string, n+1) // the last one has no file: a link to it dangles
		for i := range ids {
			ids[i] = fmt.Sprintf("td-%06d", i)
		}
		files := map[string]string{}
		links := map[string][]string{}
		for i := range n {
			var ls []string
			for range rng.IntN(3) {
				ls = append(ls, fmt.Sprintf("{kind: %s, to: %s}", kinds[rng.IntN(len(kinds))], ids[rng.IntN(n+1)]))
			}
			links[ids[i]] = ls
			files[repo.IssuesDir+"/"+ids[i]+".md"] = fmt.Sprintf("---\nid: %s\ntitle: Issue %d\nstatus: open\nlinks: [%s]\n---\n", ids[i], i, strings.Join(ls, ", "))
		}
		var changed, deleted []string
		for i := range n {
			if rng.IntN(3) == 0 {
				changed = append(changed, ids[i])
			}
		}
		if rng.IntN(4) == 0 {
			// An issue file the range deleted: it is gone at HEAD.
			gone := ids[rng.IntN(n)]
			delete(files, repo.IssuesDir+"/"+gone+".md")
			deleted = append(deleted, gone)
			changed = slices.DeleteFunc(changed, func(id string) bool { return id == gone })
		}
		head := repo.MemSnapshot("HEAD", files)

		full := newTestChecker(head)
		full.parseAll()
		full.checkLinks()

		rc := newTestChecker(head)
		for _, id := range changed {
			rc.issues[id] = rc.issueAtHead(id)
		}
		var refs []*repo.Issue
		for _, id := range ids[:n] {
			if slices.ContainsFunc(links[id], func(l string) bool {
				return slices.ContainsFunc(deleted, func(d string) bool { return strings.Contains(l, d) })
			}) && !slices.Contains(deleted, id) {
				refs = append(refs, rc.issueAtHead(id))
			}
		}
		rc.checkRangeLinksFrom(refs)

		fullSet := map[string]bool{}
		for _, v := range full.report.Violations {
			fullSet[v.String()] = true
		}
		involved := func(v Violation) bool {
			for _, id := range changed {
				if strings.Contains(v.Message, id) || strings.Contains(v.Path, id) {
					return true
				}
			}
			for _, is := range refs {
				if v.Rule == RuleLinkTarget && strings.Contains(v.Path, is.ID) {
					return true
				}
			}
			return false
		}
		rangeSet := map[string]bool{}
		for _, v := range rc.report.Violations {
			rangeSet[v.String()] = true
			if !fullSet[v.String()] {
				t.Errorf("seed %d: the range reports %q, the full check does not", seed, v)
			}
		}
		for _, v := range full.report.Violations {
			if involved(v) && !rangeSet[v.String()] {
				t.Errorf("seed %d (changed %v, deleted %v): the range misses %q", seed, changed, deleted, v)
			}
		}
	}
}

func newTestChecker(head *repo.Snapshot) *checker {
	return &checker{head: head, report: &CheckReport{},
		issues: map[string]*repo.Issue{}, ids: map[string]bool{}, ledgers: map[string][]audit.Entry{}, sessions: map[string]*repo.Session{},
		config: &repo.Config{}}
}
