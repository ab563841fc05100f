// Package stats counts a repository's issues and their flow over time:
// how many are in each status, type, priority, label and assignee, how
// many were opened and closed each week, and how long work took from its
// start to its close (cycle time), overall and per agent harness and
// model where the ledger records them. It is the use case behind td stats
// and the site's stats page; it reads and never writes.
package stats

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/people"
)

// DefaultWeeks is how many weeks the flow covers when Options says none.
const DefaultWeeks = 8

// Options selects what Compute covers.
type Options struct {
	// Weeks is how many calendar weeks (Monday to Sunday, UTC) the flow
	// covers, ending with the current one; DefaultWeeks when 0.
	Weeks int
}

// Count is one value of a field and how many issues have it.
type Count struct {
	Value string `json:"value"`
	N     int    `json:"n"`
}

// Week is one calendar week of the flow.
type Week struct {
	Start  time.Time `json:"start"`
	Opened int       `json:"opened"`
	Closed int       `json:"closed"`
}

// Cycle is how long issues took from their first start to their close.
type Cycle struct {
	// N counts the issues closed in the weeks covered that were started.
	N      int           `json:"n"`
	Median time.Duration `json:"-"`
	P90    time.Duration `json:"-"`
}

// Agent is the cycle time of the issues one harness and model started.
type Agent struct {
	Harness string `json:"harness"`
	Model   string `json:"model"`
	Cycle
}

// Stats is what Compute found.
type Stats struct {
	Now        time.Time `json:"-"`
	Total      int       `json:"total"`
	ByStatus   []Count   `json:"by_status"`
	ByType     []Count   `json:"by_type"`
	ByPriority []Count   `json:"by_priority"`
	ByLabel    []Count   `json:"by_label"`
	ByAssignee []Count   `json:"by_assignee"`
	Weeks      []Week    `json:"weeks"`
	Cycle      Cycle     `json:"cycle"`
	Agents     []Agent   `json:"agents"`
}

// Compute counts the store's issues. Files td cannot read are returned as
// errors beside the counts, which leave them out.
func Compute(s *repo.Store, o Options) (*Stats, []error, error) {
	if o.Weeks <= 0 {
		o.Weeks = DefaultWeeks
	}
	all, perrs, err := s.List(repo.Filter{All: true})
	if err != nil {
		return nil, nil, err
	}
	now := s.Now().UTC()
	st := &Stats{Now: now, Total: len(all)}
	status, typ, prio, label, assignee := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	first := weekStart(now).AddDate(0, 0, -7*(o.Weeks-1))
	for i := 0; i < o.Weeks; i++ {
		st.Weeks = append(st.Weeks, Week{Start: first.AddDate(0, 0, 7*i)})
	}
	week := func(t time.Time) *Week {
		if t.Before(first) || t.IsZero() {
			return nil
		}
		i := int(t.UTC().Sub(first) / (7 * 24 * time.Hour))
		if i >= len(st.Weeks) {
			return nil
		}
		return &st.Weeks[i]
	}
	var cycles []time.Duration
	agents := map[[2]string][]time.Duration{}
	// An assignee is named as the board names it: a person, or an agent
	// session as "primary agent of Alice".
	nameOf := people.AssigneeNamer(s)
	for _, is := range all {
		status[string(is.Status)]++
		typ[string(is.Type)]++
		prio[string(is.Priority)]++
		for _, l := range is.Labels {
			label[l]++
		}
		who := "none"
		if is.Assignee != "" {
			who = nameOf(is.Assignee)
		}
		assignee[who]++
		if w := week(is.CreatedAt); w != nil {
			w.Opened++
		}
		if is.Status != domain.StatusClosed {
			continue
		}
		entries, lerrs, err := s.Ledger(is.ID)
		if err != nil {
			perrs = append(perrs, err)
			continue
		}
		perrs = append(perrs, lerrs...)
		f := flowOf(entries)
		closed := f.closed
		if closed.IsZero() {
			closed = is.UpdatedAt
		}
		w := week(closed)
		if w == nil {
			continue
		}
		w.Closed++
		if f.started.IsZero() || closed.Before(f.started) {
			continue
		}
		d := closed.Sub(f.started)
		cycles = append(cycles, d)
		if f.harness != "" || f.model != "" {
			k := [2]string{f.harness, f.model}
			agents[k] = append(agents[k], d)
		}
	}
	st.ByStatus = ordered(status, statusOrder())
	st.ByType = ordered(typ, typeOrder())
	st.ByPriority = ordered(prio, priorityOrder())
	st.ByLabel = byCount(label)
	st.ByAssignee = byCount(assignee)
	st.Cycle = cycleOf(cycles)
	for k, ds := range agents {
		st.Agents = append(st.Agents, Agent{Harness: k[0], Model: k[1], Cycle: cycleOf(ds)})
	}
	sort.Slice(st.Agents, func(i, j int) bool {
		a, b := st.Agents[i], st.Agents[j]
		if a.N != b.N {
			return a.N > b.N
		}
		if a.Harness != b.Harness {
			return a.Harness < b.Harness
		}
		return a.Model < b.Model
	})
	return st, perrs, nil
}

// flow is what one closed issue's ledger says of its work: when it was
// first started, by which harness and model, and when it was last closed.
type flow struct {
	started, closed time.Time
	harness, model  string
}

func flowOf(entries []audit.Entry) flow {
	var f flow
	for _, e := range entries {
		switch e.Action {
		case audit.ActionStarted:
			if f.started.IsZero() {
				f.started = e.TS
				f.harness, _ = e.Details["harness"].(string)
				f.model, _ = e.Details["model"].(string)
			}
		case audit.ActionClosed, audit.ActionApproved:
			f.closed = e.TS
		case audit.ActionReopened:
			f.closed = time.Time{}
		}
	}
	return f
}

// weekStart is the Monday 00:00 UTC of t's week.
func weekStart(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
}

// cycleOf is the median and 90th percentile (nearest rank) of ds.
func cycleOf(ds []time.Duration) Cycle {
	c := Cycle{N: len(ds)}
	if len(ds) == 0 {
		return c
	}
	slices.Sort(ds)
	c.Median = ds[(len(ds)-1)/2]
	if len(ds)%2 == 0 {
		c.Median = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	rank := (90*len(ds) + 99) / 100 // ceil(0.9 n)
	c.P90 = ds[rank-1]
	return c
}

// ordered lists the counts in the schema's order, then any other value
// (a hand edit's) by name; values with no issue are left out.
func ordered(m map[string]int, order []string) []Count {
	out := []Count{}
	for _, v := range order {
		if m[v] > 0 {
			out = append(out, Count{Value: v, N: m[v]})
		}
		delete(m, v)
	}
	rest := make([]string, 0, len(m))
	for v := range m {
		rest = append(rest, v)
	}
	sort.Strings(rest)
	for _, v := range rest {
		out = append(out, Count{Value: v, N: m[v]})
	}
	return out
}

// byCount lists the counts most first, then by name.
func byCount(m map[string]int) []Count {
	out := []Count{}
	for v, n := range m {
		out = append(out, Count{Value: v, N: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Value < out[j].Value
	})
	return out
}

func statusOrder() []string {
	return []string{string(domain.StatusOpen), string(domain.StatusInProgress), string(domain.StatusBlocked), string(domain.StatusInReview), string(domain.StatusClosed)}
}

func typeOrder() []string {
	var out []string
	for _, t := range domain.IssueTypes() {
		out = append(out, string(t))
	}
	return out
}

func priorityOrder() []string {
	var out []string
	for _, p := range domain.Priorities() {
		out = append(out, string(p))
	}
	return out
}

// Span is a duration in the largest two units people count in: "3d 4h",
// "5h 20m", "12m", "under a minute".
func Span(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0 && hours > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case days > 0:
		return fmt.Sprintf("%dd", days)
	case hours > 0 && mins > 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%dh", hours)
	}
	return fmt.Sprintf("%dm", mins)
}
