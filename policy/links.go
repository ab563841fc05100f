package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// Symmetric reports whether a link of kind means the same read from
// either end (relates_to): it is stored once and found from both sides.
func Symmetric(kind domain.LinkKind) bool { return kind == domain.RelatesTo }

// Acyclic reports whether links of kind may never form a cycle: an issue
// cannot be its own ancestor, wait on itself through a chain, or be a
// duplicate of its own duplicate (then none of them is the original).
func Acyclic(kind domain.LinkKind) bool {
	return kind == domain.ChildOf || kind == domain.BlockedBy || kind == domain.DuplicateOf
}

// single reports whether an issue may hold at most one link of kind: one
// parent, one original it duplicates.
func single(kind domain.LinkKind) bool { return kind == domain.ChildOf || kind == domain.DuplicateOf }

// Edge is one stored link: the frontmatter of From holds {kind: Kind, to: To}.
type Edge struct {
	From string
	Kind domain.LinkKind
	To   string
}

func (e Edge) String() string { return e.From + " " + string(e.Kind) + " " + e.To }

// KindError is a link kind td does not know: bad input rather than a
// refusal.
type KindError struct {
	Kind string
}

func (e *KindError) Error() string {
	return fmt.Sprintf("link kind %q must be one of %s (or an inverse: %s, %s, %s)",
		e.Kind, domain.JoinWords(domain.LinkKinds()), domain.ParentOf, domain.DuplicatedBy, domain.Blocks)
}

// StoredEdge turns what a user typed (ID KIND OTHER) into the link as it
// is stored. A stored kind stays as typed; an inverse kind swaps the ends,
// so that "a blocks b" is stored as b blocked_by a, in b's frontmatter.
// Kinds are matched case-insensitively.
func StoredEdge(from, kind, to string) (Edge, error) {
	k := domain.LinkKind(strings.ToLower(strings.TrimSpace(kind)))
	if k.Stored() {
		return Edge{From: from, Kind: k, To: to}, nil
	}
	if k.Computed() {
		return Edge{From: to, Kind: k.Inverse(), To: from}, nil
	}
	return Edge{}, &KindError{Kind: kind}
}

// SameLink reports whether a and b are one link: identical, or relates_to
// between the same two issues in either direction.
func SameLink(a, b Edge) bool {
	if a == b {
		return true
	}
	return a.Kind == b.Kind && Symmetric(a.Kind) && a.From == b.To && a.To == b.From
}

// FindLink returns the stored link among existing that is the same link
// as e (for relates_to, possibly stored on the other issue).
func FindLink(existing []Edge, e Edge) (Edge, bool) {
	for _, x := range existing {
		if SameLink(x, e) {
			return x, true
		}
	}
	return Edge{}, false
}

// CheckLink decides whether the link e may be added. existing must hold
// the links stored on e.From and on e.To, and, for an acyclic kind, every
// stored link of that kind. The rules: no link from an issue to itself, no
// link twice (relates_to counts in both directions), one parent and one
// original per issue, and no cycle of child_of, blocked_by or
// duplicate_of.
func CheckLink(existing []Edge, e Edge) error {
	if !e.Kind.Stored() {
		return &KindError{Kind: string(e.Kind)}
	}
	if e.From == e.To {
		return refuse(fmt.Sprintf("%s cannot be linked to itself; name another issue", e.From))
	}
	if x, ok := FindLink(existing, e); ok {
		if x == e {
			return refuse(fmt.Sprintf("already linked: %s; td links %s shows every link", x, e.From))
		}
		return refuse(fmt.Sprintf("already linked: %s (%s goes both ways); td links %s shows every link", x, x.Kind, e.From))
	}
	if single(e.Kind) {
		for _, x := range existing {
			if x.From == e.From && x.Kind == e.Kind {
				what := "one parent"
				if e.Kind == domain.DuplicateOf {
					what = "one original"
				}
				return refuse(fmt.Sprintf("%s is already %s %s and an issue has %s; td unlink %s first", e.From, e.Kind, x.To, what, x))
			}
		}
	}
	if path := Cycle(existing, e); path != nil {
		return refuse(fmt.Sprintf("%s would make a cycle: %s; %s links may not loop, so remove one of them with td unlink first",
			e, cyclePath(path, e.Kind), e.Kind))
	}
	return nil
}

// Cycle returns the cycle that adding e would close, as the issues along
// it from e.From back to e.From (a, b, a for a child_of b when b child_of a
// exists), or nil when there is none or e.Kind may loop. It follows only
// existing links of e's kind and prefers the shortest cycle.
func Cycle(existing []Edge, e Edge) []string {
	if !Acyclic(e.Kind) {
		return nil
	}
	if e.From == e.To {
		return []string{e.From, e.From}
	}
	next := map[string][]string{}
	for _, x := range existing {
		if x.Kind == e.Kind {
			next[x.From] = append(next[x.From], x.To)
		}
	}
	// Breadth first from e.To: a path back to e.From closes the cycle.
	prev := map[string]string{e.To: ""}
	queue := []string{e.To}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range next[cur] {
			if _, seen := prev[n]; seen {
				continue
			}
			prev[n] = cur
			if n == e.From {
				var back []string
				for at := n; at != ""; at = prev[at] {
					back = append(back, at)
				}
				path := []string{e.From}
				for i := len(back) - 1; i >= 0; i-- {
					path = append(path, back[i])
				}
				return path
			}
			queue = append(queue, n)
		}
	}
	return nil
}

// cyclePath writes a cycle as td-a child_of td-b child_of td-a.
func cyclePath(path []string, kind domain.LinkKind) string {
	return strings.Join(path, " "+string(kind)+" ")
}

// NoSuchLink refuses to remove the link e, which is not stored. links are
// the links of e.From that td unlink could remove (its own, and relates_to
// stored on others); the refusal lists them.
func NoSuchLink(e Edge, links []Edge) error {
	if len(links) == 0 {
		return refuse(fmt.Sprintf("%s has no links, so there is no %s link to %s to remove", e.From, e.Kind, e.To))
	}
	have := make([]string, len(links))
	for i, x := range links {
		if x.From != e.From && Symmetric(x.Kind) {
			x = Edge{From: x.To, Kind: x.Kind, To: x.From}
		}
		have[i] = x.String()
	}
	return refuse(fmt.Sprintf("%s has no %s link to %s; its links: %s", e.From, e.Kind, e.To, strings.Join(have, ", ")))
}

// Cycles returns one cycle for every group of issues that reach each other
// through the edges (all of one kind) (a strongly connected component with more
// than one issue, or an issue linked to itself), each as the issues along
// it from the group's smallest ID back to it, as Cycle names it. td check
// runs it over every stored link of each kind Acyclic names, to report
// cycles that arrived by hand edits or merges, where td link refuses them
// one at a time.
func Cycles(edges []Edge) [][]string {
	next := map[string][]string{}
	for _, e := range edges {
		next[e.From] = append(next[e.From], e.To)
	}
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var groups [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range next[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var group []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			group = append(group, w)
			if w == v {
				break
			}
		}
		if len(group) > 1 || slices.Contains(next[v], v) {
			groups = append(groups, group)
		}
	}
	keys := make([]string, 0, len(next))
	for k := range next {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, v := range keys {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	var cycles [][]string
	for _, g := range groups {
		slices.Sort(g)
		var inGroup []Edge
		for _, from := range g {
			for _, to := range next[from] {
				if slices.Contains(g, to) {
					inGroup = append(inGroup, Edge{From: from, Kind: edgesKind(edges), To: to})
				}
			}
		}
		first := slices.IndexFunc(inGroup, func(e Edge) bool { return e.From == g[0] })
		cycles = append(cycles, Cycle(inGroup, inGroup[first]))
	}
	slices.SortFunc(cycles, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return cycles
}

// edgesKind is the kind the edges share ("" for none).
func edgesKind(edges []Edge) domain.LinkKind {
	if len(edges) == 0 {
		return ""
	}
	return edges[0].Kind
}
