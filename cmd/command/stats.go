package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/repo/stats"
	"github.com/urfave/cli/v2"
)

// StatsOptions are td stats's inputs, as parsed from the command line.
type StatsOptions struct {
	// Weeks is --weeks: how many calendar weeks the flow covers.
	Weeks int
}

// statsCommand is td stats: counts and flow over time, with td stats
// security (td security under another name) beneath it. securityF, when
// not nil, replaces the security run function.
func (r *runner) statsCommand(securityF func(*SecurityOptions) error) *cli.Command {
	return r.statsCommandRun(securityF, nil)
}

// statsCommandRun is statsCommand whose own run function statsF, when
// not nil, replaces runStats.
func (r *runner) statsCommandRun(securityF func(*SecurityOptions) error, statsF func(*StatsOptions) error) *cli.Command {
	security := r.securityCommand(securityF)
	security.Usage = "security events (same as td security)"
	return &cli.Command{
		Name:      "stats",
		Usage:     "issue counts, opened and closed per week, cycle time",
		ArgsUsage: "[--weeks N]",
		Description: `Counts every issue by status, type, priority, label and assignee; then, for
the last --weeks calendar weeks (Monday to Sunday, UTC; 8 by default), how
many issues were opened and closed each week; then the cycle time of the
issues closed in those weeks: from the first start (td start) to the close
(td close or td approve), its median and 90th percentile. Where the ledger
records which agent harness and model started an issue (td hook ...), the
cycle time is given per harness and model too. An issue closed without
being started has no cycle time. td board --html writes the same as a
page, stats.html, with a chart.

Examples:
   td stats
   td stats --weeks 12
   td stats --json
   td stats security`,
		Flags:       []cli.Flag{&cli.IntFlag{Name: "weeks", Value: stats.DefaultWeeks, Usage: "how many calendar weeks the flow covers, ending with this one"}},
		Subcommands: []*cli.Command{security},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--weeks N]"); err != nil {
				return err
			}
			o := &StatsOptions{Weeks: c.Int("weeks")}
			if o.Weeks < 1 || o.Weeks > 520 {
				return usagef("--weeks must be between 1 and 520, not %d", o.Weeks)
			}
			if statsF != nil {
				return statsF(o)
			}
			return r.runStats(o)
		},
	}
}

// statsJSON is td stats --json.
type statsJSON struct {
	Total      int           `json:"total"`
	ByStatus   []stats.Count `json:"by_status"`
	ByType     []stats.Count `json:"by_type"`
	ByPriority []stats.Count `json:"by_priority"`
	ByLabel    []stats.Count `json:"by_label"`
	ByAssignee []stats.Count `json:"by_assignee"`
	Weeks      []weekJSON    `json:"weeks"`
	Cycle      cycleJSON     `json:"cycle_time"`
	Agents     []agentJSON   `json:"by_agent"`
}

type weekJSON struct {
	Start  string `json:"start"`
	Opened int    `json:"opened"`
	Closed int    `json:"closed"`
}

// cycleJSON is a cycle time in seconds.
type cycleJSON struct {
	N             int   `json:"n"`
	MedianSeconds int64 `json:"median_seconds"`
	P90Seconds    int64 `json:"p90_seconds"`
}

type agentJSON struct {
	Harness string `json:"harness"`
	Model   string `json:"model"`
	cycleJSON
}

func toCycleJSON(c stats.Cycle) cycleJSON {
	return cycleJSON{N: c.N, MedianSeconds: int64(c.Median / time.Second), P90Seconds: int64(c.P90 / time.Second)}
}

func toStatsJSON(st *stats.Stats) statsJSON {
	out := statsJSON{Total: st.Total, ByStatus: st.ByStatus, ByType: st.ByType, ByPriority: st.ByPriority, ByLabel: st.ByLabel,
		ByAssignee: st.ByAssignee, Weeks: []weekJSON{}, Cycle: toCycleJSON(st.Cycle), Agents: []agentJSON{}}
	for _, w := range st.Weeks {
		out.Weeks = append(out.Weeks, weekJSON{Start: w.Start.Format("2006-01-02"), Opened: w.Opened, Closed: w.Closed})
	}
	for _, a := range st.Agents {
		out.Agents = append(out.Agents, agentJSON{Harness: a.Harness, Model: a.Model, cycleJSON: toCycleJSON(a.Cycle)})
	}
	return out
}

// runStats prints the counts and the flow.
func (r *runner) runStats(o *StatsOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	st, errs, err := stats.Compute(s, stats.Options{Weeks: o.Weeks})
	if err != nil {
		return err
	}
	for _, e := range errs {
		r.st.warnf("%v", e)
	}
	return r.st.export(func() any { return toStatsJSON(st) }, func() error {
		r.st.print(statsText(st))
		return nil
	})
}

// statsText is td stats on a terminal or a pipe.
func statsText(st *stats.Stats) string {
	var b strings.Builder
	if st.Total == 0 {
		b.WriteString("No issues yet: td create files one.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%s\n", counted(st.Total, "issue", "issues"))
	row := func(name string, cs []stats.Count) {
		if len(cs) == 0 {
			return
		}
		parts := make([]string, len(cs))
		for i, c := range cs {
			parts[i] = fmt.Sprintf("%s %d", safe(c.Value), c.N)
		}
		fmt.Fprintf(&b, "  %-12s %s\n", name, strings.Join(parts, ", "))
	}
	row("status", st.ByStatus)
	row("type", st.ByType)
	row("priority", st.ByPriority)
	row("label", st.ByLabel)
	row("assignee", st.ByAssignee)
	fmt.Fprintf(&b, "\nWeek of (UTC)  opened  closed\n")
	for _, w := range st.Weeks {
		fmt.Fprintf(&b, "%-13s  %6d  %6d\n", w.Start.Format("2006-01-02"), w.Opened, w.Closed)
	}
	b.WriteString("\n")
	b.WriteString(cycleLine("Cycle time (start to close)", st.Cycle))
	for _, a := range st.Agents {
		b.WriteString(cycleLine("  "+safe(agentName(a)), a.Cycle))
	}
	return b.String()
}

// cycleLine is one line of cycle time: "Cycle time (start to close): 3
// issues, median 1d 4h, 90th percentile 3d".
func cycleLine(what string, c stats.Cycle) string {
	if c.N == 0 {
		return what + ": no issue started and closed in these weeks\n"
	}
	return fmt.Sprintf("%s: %s, median %s, 90th percentile %s\n", what, counted(c.N, "issue", "issues"), stats.Span(c.Median), stats.Span(c.P90))
}

// agentName is a harness and model as one name: "claude claude-opus-4-5".
func agentName(a stats.Agent) string {
	return strings.TrimSpace(orDash(a.Harness) + " " + a.Model)
}
