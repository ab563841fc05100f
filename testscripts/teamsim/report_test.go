package teamsim

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"
)

// invariants names what each violation class breaks, as the issue numbers
// them; crash and refusal are td's own promises.
var invariants = map[string]string{
	"1":       "no false alarm: td check --base and the pre-commit hook pass legitimate work",
	"2":       "one verdict: what td accepts locally, CI accepts",
	"3":       "nothing lost, nothing doubled",
	"4":       "at the merge button: disjoint changes merge cleanly; td resolve works anywhere",
	"5":       "claims follow the work",
	"6":       "sessions and bindings are visible in every worktree",
	"7":       "main stays green",
	"8":       "auto-parenting and td ready",
	"crash":   "td panics or exits with a status it never uses",
	"refusal": "a refused command changed nothing",
	"illegit": "an illegitimate step is caught by td check --base",
}

// violation is one broken invariant, with where the seed's log shows it.
type violation struct {
	seed   int64
	inv    string
	class  string
	detail string
	step   int
}

// violate records a violation at the current step.
func (w *world) violate(inv, class, detail string) {
	v := violation{seed: w.seed, inv: inv, class: normalize(class), detail: detail, step: w.step}
	w.violations = append(w.violations, v)
	w.note("VIOLATION of invariant %s: %s: %s", inv, v.class, clip(detail, 400))
}

// violateOnce records a violation the first time key is seen in the seed:
// a state that persists (a stray claim shown at every landing) is one
// violation, not one per look.
func (w *world) violateOnce(key, inv, class, detail string) {
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	if w.seen[key] {
		return
	}
	w.seen[key] = true
	w.violate(inv, class, detail)
}

var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\btd-[0-9a-z]{6}\b`), "td-…"},
	{regexp.MustCompile(`/[^\s,;:]*teamsim-[^\s,;:]*`), "<dir>"},
	{regexp.MustCompile(`\bses_[0-9a-z]{8}\b`), "ses_…"},
	{regexp.MustCompile(`\b[0-9a-f]{7,64}\b`), "<hash>"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`), "<time>"},
	{regexp.MustCompile(`\.todos/[^\s:]+:\d+: `), ""},
	{regexp.MustCompile(`"[^"]*"`), `"…"`},
	{regexp.MustCompile(`\b\d+\b`), "N"},
}

// normalize turns a message into a class: IDs, hashes, times, quoted texts
// and numbers replaced, so that one cause is one class.
func normalize(s string) string {
	s = strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
	for _, n := range normalizers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return clip(s, 200)
}

// stats are a seed's counts; a summary adds them up.
type stats struct {
	seeds          int
	landed         map[string]int
	commands       int
	refused        int
	forgeLandings  int
	forgeConflicts int
	forgeLegit     int
	ciRuns         int
	ciFailed       int
	cyclesCaught   int // cycles CI caught in the pull request that completes them
	prsLanded      int
	prsFailedCI    int
	commits        int
	hookRefused    int
	mergeBacks     int
	rawDoubled     int
	// rebaseReplays are rebase landings that stopped replaying a commit
	// a squash landing of the same branch had already brought to main.
	rebaseReplays int
	// agentApprovals are approvals by agents td accepted (refused): an
	// agent reviewing another's work, a lead agent signing off an issue it
	// created (td help policy).
	agentApprovals, agentApprovalsRefused int
	// clumsyResolutions are hand resolutions of a conflict that lost or
	// moved a todo: the simulator's, not td's; CI failures that follow
	// may be the simulator's doing.
	clumsyResolutions int
	clumsySeeds       []string // seed@step of each
	harnessErrors     []string
	illegitTried      map[string]int
	illegitCaught     map[string]int
	refusalsByVerb    map[string]int
	acceptedByVerb    map[string]int
	pairs             map[string]int // forge conflict kinds
	conflictsByKind   map[string]int
	wall              map[string]time.Duration
}

func newStats() *stats {
	return &stats{landed: map[string]int{}, illegitTried: map[string]int{}, illegitCaught: map[string]int{},
		refusalsByVerb: map[string]int{}, acceptedByVerb: map[string]int{}, pairs: map[string]int{}, conflictsByKind: map[string]int{}, wall: map[string]time.Duration{}}
}

func (s *stats) add(o *stats) {
	s.seeds += o.seeds
	s.commands += o.commands
	s.refused += o.refused
	s.forgeLandings += o.forgeLandings
	s.forgeConflicts += o.forgeConflicts
	s.forgeLegit += o.forgeLegit
	s.rebaseReplays += o.rebaseReplays
	s.agentApprovals += o.agentApprovals
	s.agentApprovalsRefused += o.agentApprovalsRefused
	s.ciRuns += o.ciRuns
	s.ciFailed += o.ciFailed
	s.cyclesCaught += o.cyclesCaught
	s.prsLanded += o.prsLanded
	s.prsFailedCI += o.prsFailedCI
	s.commits += o.commits
	s.hookRefused += o.hookRefused
	s.mergeBacks += o.mergeBacks
	s.rawDoubled += o.rawDoubled
	s.clumsyResolutions += o.clumsyResolutions
	s.clumsySeeds = append(s.clumsySeeds, o.clumsySeeds...)
	s.harnessErrors = append(s.harnessErrors, o.harnessErrors...)
	for k, v := range o.wall {
		s.wall[k] += v
	}
	for _, m := range [][2]map[string]int{{s.landed, o.landed}, {s.illegitTried, o.illegitTried}, {s.illegitCaught, o.illegitCaught},
		{s.refusalsByVerb, o.refusalsByVerb}, {s.acceptedByVerb, o.acceptedByVerb}, {s.pairs, o.pairs}, {s.conflictsByKind, o.conflictsByKind}} {
		for k, v := range m[1] {
			m[0][k] += v
		}
	}
}

// verboseWall adds the wall time of each command to the summary (a replay).
var verboseWall bool

// summary gathers seeds' stats and violations.
type summary struct {
	stats      *stats
	violations []violation
}

func newSummary() *summary { return &summary{stats: newStats()} }

func (s *summary) add(w *world) {
	s.stats.add(w.stats)
	s.violations = append(s.violations, w.violations...)
}

// classRow is one class of violation across seeds.
type classRow struct {
	inv, class string
	count      int
	seeds      map[int64]bool
	first      violation
}

func (s *summary) classes() []*classRow {
	rows := map[string]*classRow{}
	for _, v := range s.violations {
		k := v.inv + "\x00" + v.class
		r := rows[k]
		if r == nil {
			r = &classRow{inv: v.inv, class: v.class, seeds: map[int64]bool{}, first: v}
			rows[k] = r
		}
		r.count++
		r.seeds[v.seed] = true
		if v.seed < r.first.seed {
			r.first = v
		}
	}
	var out []*classRow
	for _, r := range rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].inv != out[j].inv {
			return invOrder(out[i].inv) < invOrder(out[j].inv)
		}
		return out[i].count > out[j].count
	})
	return out
}

func invOrder(inv string) string {
	if len(inv) == 1 {
		return "0" + inv
	}
	return "1" + inv
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", (a*100+b/2)/b)
}

// print writes the summary table.
func (s *summary) print(out io.Writer) {
	st := s.stats
	fmt.Fprintf(out, "teamsim summary\n\n")
	fmt.Fprintf(out, "  seeds                      %d\n", st.seeds)
	fmt.Fprintf(out, "  pull requests landed       %d (merge %d, squash %d, rebase %d)\n", st.prsLanded, st.landed["merge"], st.landed["squash"], st.landed["rebase"])
	fmt.Fprintf(out, "  td commands run            %d (refused %d)\n", st.commands, st.refused)
	fmt.Fprintf(out, "  commits                    %d (pre-commit hook refused %d)\n", st.commits, st.hookRefused)
	fmt.Fprintf(out, "  merges of main back        %d\n", st.mergeBacks)
	fmt.Fprintf(out, "  CI runs                    %d (failed %d; cycles caught in the pull request that completes them %d)\n", st.ciRuns, st.ciFailed, st.cyclesCaught)
	fmt.Fprintf(out, "  landed PRs that failed CI  %d of %d (%s)\n", st.prsFailedCI, st.prsLanded, pct(st.prsFailedCI, st.prsLanded))
	violating := st.forgeConflicts - st.forgeLegit
	fmt.Fprintf(out, "  forge landings             %d, conflicts %d (%s): legitimate %d, violations %d\n", st.forgeLandings, st.forgeConflicts, pct(st.forgeConflicts, st.forgeLandings), st.forgeLegit, violating)
	fmt.Fprintf(out, "  raw doubled ledger lines   %d (lines a merge left twice; readers must count them once)\n", st.rawDoubled)
	fmt.Fprintf(out, "  agent approvals            %d accepted, %d refused (each accepted one judged again by CI)\n", st.agentApprovals, st.agentApprovalsRefused)
	if st.rebaseReplays > 0 {
		fmt.Fprintf(out, "  rebases replaying a squash %d (a commit a squash landing already brought, replayed: legitimate per commit)\n", st.rebaseReplays)
	}
	if st.clumsyResolutions > 0 {
		fmt.Fprintf(out, "  clumsy hand resolutions    %d (the simulator's own, at seed@step %s)\n", st.clumsyResolutions, clip(strings.Join(st.clumsySeeds, " "), 120))
	}
	tried, caught := 0, 0
	var parts []string
	for _, k := range sortedKeys(st.illegitTried) {
		tried += st.illegitTried[k]
		caught += st.illegitCaught[k]
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, st.illegitCaught[k], st.illegitTried[k]))
	}
	fmt.Fprintf(out, "  illegitimate steps caught  %d of %d (%s)", caught, tried, pct(caught, tried))
	if len(parts) > 0 {
		fmt.Fprintf(out, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprintln(out)
	if len(st.harnessErrors) > 0 {
		fmt.Fprintf(out, "  harness errors             %d (first: %s)\n", len(st.harnessErrors), clip(st.harnessErrors[0], 300))
	}
	fmt.Fprintf(out, "\n  invariant  violations  seeds  first seed  what\n")
	byInv := map[string][]violation{}
	for _, v := range s.violations {
		byInv[v.inv] = append(byInv[v.inv], v)
	}
	for _, inv := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "crash", "refusal", "illegit"} {
		vs := byInv[inv]
		seeds := map[int64]bool{}
		first := "-"
		var firstSeed int64 = -1
		for _, v := range vs {
			seeds[v.seed] = true
			if firstSeed < 0 || v.seed < firstSeed {
				firstSeed = v.seed
			}
		}
		if firstSeed >= 0 {
			first = fmt.Sprint(firstSeed)
		}
		fmt.Fprintf(out, "  %-9s  %10d  %5d  %10s  %s\n", inv, len(vs), len(seeds), first, invariants[inv])
	}
	rows := s.classes()
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(out, "\n  classes (invariant, count, seeds, first seed and step: class)\n")
	for _, r := range rows {
		fmt.Fprintf(out, "  %-7s %6d %5d  seed %d step %d: %s\n", r.inv, r.count, len(r.seeds), r.first.seed, r.first.step, r.class)
		fmt.Fprintf(out, "  %-7s %6s %5s    e.g. %s\n", "", "", "", clip(strings.ReplaceAll(r.first.detail, "\n", " | "), 300))
	}
	if verboseWall {
		fmt.Fprintf(out, "\n  wall time by command\n")
		keys := sortedKeys(st.wall)
		sort.Slice(keys, func(i, j int) bool { return st.wall[keys[i]] > st.wall[keys[j]] })
		for _, k := range keys {
			fmt.Fprintf(out, "  %8s  %s\n", st.wall[k].Round(time.Millisecond), k)
		}
	}
	if len(st.conflictsByKind) > 0 {
		fmt.Fprintf(out, "\n  forge conflicts by what the two sides changed (legitimate or violation)\n")
		for _, k := range sortedKeys(st.conflictsByKind) {
			fmt.Fprintf(out, "  %6d  %s\n", st.conflictsByKind[k], k)
		}
	}
}
