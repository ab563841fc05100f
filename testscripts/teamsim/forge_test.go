package teamsim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// pullRequest is a branch's head proposed for main.
type pullRequest struct {
	n        int
	br       *branch
	ciFailed bool
	reported map[string]bool // CI violations already recorded for this pull request
	// ciMain is main's commit when CI last ran: the forge lands only what
	// CI passed against main as it is, and runs CI again when main moved.
	ciMain string
	// cycle is a link CI named as one half of a cycle the pull request
	// completes ({from, kind, to}): caught where it should be, and for its
	// author to remove before the pull request lands.
	cycle []string
}

// checkReport is td check's --json output.
type checkReport struct {
	OK         bool `json:"ok"`
	Violations []struct {
		Path    string `json:"path"`
		Line    int    `json:"line"`
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"violations"`
}

func (c checkReport) keys() []string {
	var ks []string
	for _, v := range c.Violations {
		ks = append(ks, v.Rule+": "+normalize(v.Message))
	}
	return ks
}

// ruleInvariant maps a rule td check --base applied to the invariant its
// false alarm breaks: a decision CI re-takes and refuses after td took it
// locally is invariant 2; two in-progress todos or a link cycle that
// merges brought in is invariant 7; any other rule tripped by legitimate
// work is a false alarm, invariant 1.
func ruleInvariant(rule string) string {
	switch rule {
	case "review_policy", "claims", "security_ledger":
		return "2"
	case "one_in_progress", "link_cycle":
		return "7" // two pull requests' clean merge that CI refuses
	}
	return "1"
}

// commit commits what td staged at a place, through the hooks installed
// there; a hook that refuses legitimate work is a violation, and the
// person then commits past it, as people do.
func (w *world) commit(p *place, msg string) bool {
	if w.tryGit(p.dir, p.who, p.session, "diff", "--cached", "--quiet").ok() {
		return false
	}
	w.stats.commits++
	r := w.tryGit(p.dir, p.who, p.session, "commit", "-q", "-m", msg)
	if !r.ok() {
		if !p.clone.hooks {
			w.fatalf("git commit at %s: %s", p.name, r.text())
		}
		w.stats.hookRefused++
		w.violate("1", "the pre-commit hook refuses a legitimate commit: "+firstViolation(r.text()), r.text())
		w.git(p.dir, p.who, "commit", "-q", "--no-verify", "-m", msg)
	}
	if p.br != nil {
		p.br.unpushed = true
	}
	return true
}

// firstViolation picks the line of a refusal that says what is wrong: a
// JSON error's message, or the first line naming a file or an error.
func firstViolation(s string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if i := strings.Index(s, "{"); i >= 0 && json.Unmarshal([]byte(s[i:]), &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, ".todos/") || strings.HasPrefix(l, "error:") {
			return l
		}
	}
	return firstLines(s, 1)
}

// push sends a branch to the remote: its pull request opens, or gets a
// new head, and CI runs on it.
func (w *world) push(br *branch) {
	p := br.place
	if br.needsMergeBack {
		br.needsMergeBack = false
		if w.rng.Intn(100) < 85 {
			w.mergeBack(br, "after its pull request landed")
		}
	}
	w.commit(p, "td work")
	if !br.unpushed {
		return
	}
	w.git(p.dir, p.who, "push", "-q", "-f", "origin", br.name)
	br.unpushed = false
	br.pushed = append(br.pushed, br.written...)
	br.written = nil
	if br.pr == nil {
		w.prs++
		br.pr = &pullRequest{n: w.prs, br: br}
		w.note("pull request #%d opened from %s", br.pr.n, br.name)
	}
	ok := w.ci(br.pr)
	if p.clone == w.aclone && w.ciMode == "head" {
		w.localVerdict(p, ok)
	}
}

// localVerdict runs the check a careful person runs before pushing, in
// their own clone, and compares it with CI's verdict (invariant 2).
func (w *world) localVerdict(p *place, ciOK bool) {
	w.git(p.dir, p.who, "fetch", "-q", "origin")
	r := w.td(p, "check", "--base", "origin/main", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		return
	}
	var fresh []string
	for _, k := range rep.keys() {
		if !w.mainViolations[k] {
			fresh = append(fresh, k)
		}
	}
	if ok := len(fresh) == 0; ok != ciOK {
		w.violate("2", fmt.Sprintf("td check --base in the lead's clone says ok=%v, CI says ok=%v", ok, ciOK), strings.Join(fresh, "; "))
	}
}

// ci runs CI on a pull request and records what it failed: a false
// alarm on legitimate work breaks invariant 1 or 2 by the rule that
// tripped, or 7 where td resolve left a status CI refuses.
func (w *world) ci(pr *pullRequest) bool {
	pr.ciMain = w.rev(w.remote, "main")
	pr.cycle = nil
	rep, fresh, ran := w.runCI(pr.br.name)
	if !ran || len(fresh) == 0 {
		return true
	}
	pr.ciFailed = true
	for _, v := range rep.Violations {
		key := v.Rule + ": " + normalize(v.Message)
		if !fresh[key] {
			continue
		}
		if v.Rule == "link_cycle" {
			// Two pull requests each bring half of a cycle: CI catches it
			// in the one that completes it, with its message (invariant
			// 7's promise), and its author removes a link.
			if edge := cycleEdge(v.Message); edge != nil {
				pr.cycle = edge
				w.stats.cyclesCaught++
				w.note("CI caught a cycle in pull request #%d: %s", pr.n, v.Message)
				continue
			}
		}
		if pr.reported[v.Path+key] {
			continue
		}
		if pr.reported == nil {
			pr.reported = map[string]bool{}
		}
		pr.reported[v.Path+key] = true
		inv := ruleInvariant(v.Rule)
		class := "td check --base in CI: " + v.Rule + ": " + v.Message
		if v.Rule == "status_transition" && contains(pr.br.statusResolved, issueFromPath(v.Path)) {
			inv, class = "7", "td resolve did not say which status CI accepts: "+v.Message
		}
		w.violate(inv, class, fmt.Sprintf("pull request #%d (%s), %s: %s:%d: %s", pr.n, pr.br.name, w.ciMode, v.Path, v.Line, v.Message))
	}
	return false
}

// runCI checks a pushed branch in a fresh clone of the remote, with the
// claim refs fetched as CI jobs must: the head (GitLab) or the test merge
// of the head into main (GitHub). fresh holds the violations main does
// not already have; ran is false when there is no test merge to check.
func (w *world) runCI(branch string) (rep checkReport, fresh map[string]bool, ran bool) {
	dir := w.freshClone("ci")
	defer os.RemoveAll(dir)
	head := "origin/" + branch
	if w.ciMode == "head" && w.rng.Intn(4) == 0 {
		w.claimsNote(dir, head)
	}
	w.fetchClaims(dir)
	if w.ciMode == "head" {
		w.git(dir, w.alice, "checkout", "-q", "--detach", head)
	} else {
		w.git(dir, w.alice, "checkout", "-q", "--detach", "origin/main")
		if r := w.tryGit(dir, w.ciPerson(), "", "merge", "-q", "--no-ff", "--no-edit", head); !r.ok() {
			w.note("CI: %s conflicts with main; no test merge to check", branch)
			return rep, nil, false
		}
	}
	w.stats.ciRuns++
	r := w.tdAt(dir, "ci", w.ciPerson(), "check", "--base", "origin/main", "--json")
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		w.violate("crash", "td check --base printed no report", r.text())
		return rep, nil, true
	}
	if rep.OK {
		return rep, nil, true
	}
	w.stats.ciFailed++
	fresh = map[string]bool{}
	for _, k := range rep.keys() {
		if !w.mainViolations[k] {
			fresh[k] = true // main is not already red with it
		}
	}
	return rep, fresh, true
}

// claimsNote runs td check --base in a CI clone that has not fetched the
// claim refs: when the range holds work the claims rule judges, td must
// say that it had no claims to read rather than pass silently
// (invariant 5).
func (w *world) claimsNote(dir, head string) {
	diff, err := w.gitQuiet(dir, "diff", "--unified=0", "origin/main..."+head, "--", ".todos/history")
	if err != nil || !w.newWork(dir, diff) {
		return
	}
	w.git(dir, w.alice, "checkout", "-q", "--detach", head)
	r := w.tdAt(dir, "ci-without-claims", w.ciPerson(), "check", "--base", "origin/main")
	if !strings.Contains(r.text(), "claim") {
		w.violateOnce("claims-note", "5", "td check --base is silent when it had no claim refs to read", head)
	}
}

var workEntryRE = regexp.MustCompile(`^\+.*"action":"(started|submitted|criterion_completed)"`)

// newWork reports whether diff, from the merge base to the head, adds a
// work entry that main's ledger does not already hold: an entry a branch
// brought back by merging main in, or one a squash landed, is not work
// the claims rule judges, and td check rightly says nothing of it.
func (w *world) newWork(dir, diff string) bool {
	file, held := "", map[string]bool{}
	for _, l := range strings.Split(diff, "\n") {
		if f, ok := strings.CutPrefix(l, "+++ b/"); ok {
			file, held = f, map[string]bool{}
			text, _ := w.gitQuiet(dir, "show", "origin/main:"+f)
			for _, m := range strings.Split(text, "\n") {
				held[strings.TrimSpace(m)] = true
			}
			continue
		}
		if file != "" && workEntryRE.MatchString(l) && !held[strings.TrimSpace(l[1:])] {
			return true
		}
	}
	return false
}

// ciPerson is who CI runs as.
func (w *world) ciPerson() *person {
	p := &person{name: "CI", email: "ci@example.com", home: filepath.Join(w.root, "home-ci")}
	_ = os.MkdirAll(p.home, 0o755)
	return p
}

// landKind picks how the forge lands the next pull request.
func (w *world) landKind() string {
	total := 0.0
	for _, k := range []string{"merge", "squash", "rebase"} {
		total += w.landings[k]
	}
	x := w.rng.Float64() * total
	for _, k := range []string{"merge", "squash", "rebase"} {
		if x -= w.landings[k]; x < 0 {
			return k
		}
	}
	return "merge"
}

// land presses the forge's merge button on a pull request. A conflict
// sends the branch's owner to merge main in and resolve; the forge then
// tries again, a few times.
func (w *world) land(pr *pullRequest) {
	for attempt := 0; attempt < 3; attempt++ {
		if !w.readyToLand(pr) {
			return
		}
		kind := w.landKind()
		if w.tryLand(pr, kind) {
			return
		}
		merged := false
		w.onBranch(pr.br, func() {
			if merged = w.mergeBack(pr.br, "to resolve the pull request's conflicts"); merged {
				w.push(pr.br)
			}
		})
		if !merged {
			break
		}
	}
	w.note("pull request #%d stays open: it still conflicts", pr.n)
}

// readyToLand is what the forge and the pull request's author do before
// the button: CI runs again when main moved since it last ran (the forge
// lands only what CI passed against main as it is), and a cycle CI caught
// is removed by its author (td unlink, a commit, a push, CI again). It
// reports false when the pull request stays open.
func (w *world) readyToLand(pr *pullRequest) bool {
	if pr.ciMain != w.rev(w.remote, "main") {
		w.note("main moved since pull request #%d's CI ran: CI runs again", pr.n)
		w.ci(pr)
	}
	for try := 0; pr.cycle != nil; try++ {
		if try == 2 {
			w.note("pull request #%d stays open: CI still finds a cycle", pr.n)
			return false
		}
		edge := pr.cycle
		w.onBranch(pr.br, func() {
			w.perform(pr.br.place, []string{"unlink", edge[0], edge[1], edge[2]})
			w.push(pr.br)
		})
	}
	return true
}

// onBranch runs f with br checked out at its place: a parked branch is
// checked out for it (the work in progress committed first), and the
// place's own branch back afterwards.
func (w *world) onBranch(br *branch, f func()) {
	p := br.place
	if p.br == br {
		f()
		return
	}
	w.commit(p, "td work")
	cur := p.br
	w.git(p.dir, p.who, "checkout", "-q", br.name)
	p.br = br
	defer func() {
		p.br = cur
		if cur != nil {
			w.git(p.dir, p.who, "checkout", "-q", cur.name)
		}
	}()
	f()
}

// tryLand lands a pull request one way, from the forge's clone, which
// has no td driver. It reports false on a conflict, after classifying it.
func (w *world) tryLand(pr *pullRequest, kind string) bool {
	br := pr.br
	f := w.forge
	w.git(f, w.alice, "fetch", "-q", "--prune", "origin")
	w.git(f, w.alice, "checkout", "-q", "-B", "main", "origin/main")
	w.git(f, w.alice, "reset", "-q", "--hard", "origin/main")
	main, head := w.rev(f, "origin/main"), w.rev(f, "origin/"+br.name)
	bases := w.mergeBases(f, main, head)
	w.stats.forgeLandings++
	forge := &person{name: "Forge", email: "noreply@forge.example", home: w.alice.home}
	var r result
	msg := fmt.Sprintf("Land #%d from %s", pr.n, br.name)
	switch kind {
	case "merge":
		r = w.tryGit(f, forge, "", "merge", "-q", "--no-ff", "-m", msg, "origin/"+br.name)
	case "squash":
		r = w.tryGit(f, forge, "", "merge", "-q", "--squash", "origin/"+br.name)
		if r.ok() {
			if w.tryGit(f, forge, "", "diff", "--cached", "--quiet").ok() {
				w.note("the squash of #%d is empty", pr.n)
			} else {
				r = w.tryGit(f, forge, "", "commit", "-q", "-m", msg)
			}
		}
	case "rebase":
		w.git(f, forge, "checkout", "-q", "-B", "land", "origin/"+br.name)
		r = w.tryGit(f, forge, "", "rebase", "-q", "origin/main")
		switch {
		case r.ok() && !w.rebaseSafe(f, "origin/"+br.name):
			// GitHub refuses a rebase whose tree differs from the merge's
			// ("This branch cannot be rebased safely"): a branch that
			// merged main back replays older values over newer ones. The
			// button left lands it by merge commit.
			w.note("pull request #%d cannot be rebased safely: the forge lands it by merge", pr.n)
			w.git(f, forge, "checkout", "-q", "-f", "main")
			kind = "merge"
			r = w.tryGit(f, forge, "", "merge", "-q", "--no-ff", "-m", msg, "origin/"+br.name)
		case r.ok():
			w.git(f, forge, "checkout", "-q", "main")
			w.git(f, forge, "merge", "-q", "--ff-only", "land")
		}
	}
	if !r.ok() {
		w.stats.forgeConflicts++
		if kind != "rebase" || !w.rebaseConflict(f, pr) {
			w.forgeConflict(f, pr, kind, bases, main, head)
		}
		if kind == "rebase" {
			w.tryGit(f, forge, "", "rebase", "--abort")
		} else {
			w.tryGit(f, forge, "", "merge", "--abort")
		}
		w.git(f, forge, "checkout", "-q", "-f", "main")
		w.git(f, forge, "reset", "-q", "--hard", "origin/main")
		return false
	}
	w.git(f, forge, "push", "-q", "origin", "main")
	landed := w.rev(f, "main")
	w.stats.landed[kind]++
	w.stats.prsLanded++
	if kind == "squash" {
		br.squashed = append(br.squashed, head)
	}
	if pr.ciFailed {
		w.stats.prsFailedCI++
	}
	br.landed++
	br.pr = nil
	w.note("pull request #%d landed by %s as %s", pr.n, kind, landed[:7])
	w.judgeMerge(f, fmt.Sprintf("landing #%d by %s", pr.n, kind), bases, main, head, landed, nil)
	w.checkWritten(br, landed)
	w.recordMain()
	w.afterLanding(br)
	return true
}

// rebaseSafe reports whether the rebased branch, checked out as land in
// the forge's clone, has the tree a merge of head into origin/main would
// have: GitHub's test before it offers a rebase landing.
func (w *world) rebaseSafe(f, head string) bool {
	out, err := w.gitQuiet(f, "merge-tree", "--write-tree", "origin/main", head)
	if err != nil {
		return false // the merge conflicts: the rebase is not the merge
	}
	tree, _, _ := strings.Cut(out, "\n")
	rebased, err := w.gitQuiet(f, "rev-parse", "land^{tree}")
	return err == nil && strings.TrimSpace(rebased) == strings.TrimSpace(tree)
}

// rebaseConflict classifies the conflict of a rebase landing that
// stopped, and reports false when there is no stopped commit to judge.
// git rebase replays the branch's commits one at a time, its merges
// dropped, each as a cherry-pick: the commit's change against its
// parent, applied to main as rebased so far. So the conflict is judged
// per commit, not by the branch's net change against main. A branch that
// was squash-landed, went on, and merged main back makes that difference
// plain: the squash is a commit with another patch than the branch's
// first commits, so git replays those again, and each conflicts wherever
// main changed its lines since (a status moved on after the squash),
// although the branch, having merged main back, changes nothing there.
// No layout avoids that: the commit and main changed the same line. It is
// legitimate when that one commit and main changed one thing (or, git
// being line-based, adjacent lines); a commit whose change is disjoint
// from main's still breaks invariant 4. td help merging tells people to
// land such a branch by merge or squash.
func (w *world) rebaseConflict(f string, pr *pullRequest) bool {
	stopped := w.rev(f, "REBASE_HEAD")
	parent := w.rev(f, "REBASE_HEAD^")
	onto := w.rev(f, "HEAD")
	if stopped == "" || parent == "" || onto == "" {
		return false
	}
	out, _ := w.gitQuiet(f, "diff", "--name-only", "--diff-filter=U")
	ts := w.trees(f, []string{parent, onto, stopped})
	tb, to, tt := ts[0], ts[1], ts[2]
	what := "a rebase replays one of the branch's commits"
	for _, h := range pr.br.squashed {
		if w.tryGitQuiet(f, "merge-base", "--is-ancestor", stopped, h) {
			what = "a rebase replays a commit a squash already landed"
			w.stats.rebaseReplays++
			break
		}
	}
	legit := true
	var kinds []string
	for _, p := range splitLines(out) {
		if !strings.HasPrefix(p, ".todos/issues/") {
			kinds = append(kinds, p)
			legit = false
			continue
		}
		ok, k, family, _ := classifyConflict(tb[p], to[p], tt[p], false)
		k = what + ": " + k
		kinds = append(kinds, k)
		w.stats.conflictsByKind[fmt.Sprintf("%s %s", verdictWord(ok), k)]++
		if !ok {
			legit = false
			w.violate("4", "the merge button conflicts on disjoint changes: "+family+" ("+what+")", fmt.Sprintf("pull request #%d landing by rebase, at %s: %s: %s", pr.n, stopped[:7], p, k))
		}
	}
	if legit {
		w.stats.forgeLegit++
	}
	w.note("pull request #%d conflicts at the merge button (rebase, at %s): %s", pr.n, stopped[:7], strings.Join(kinds, "; "))
	return true
}

// forgeConflict classifies a conflict at the merge button: legitimate when
// both sides changed one thing (or, git being line-based, lines next to
// each other in a checklist); a violation of invariant 4 otherwise.
func (w *world) forgeConflict(f string, pr *pullRequest, kind string, bases []string, main, head string) {
	out, _ := w.gitQuiet(f, "diff", "--name-only", "--diff-filter=U")
	files := splitLines(out)
	env := w.env(w.alice, "", "")
	tbs := w.trees(f, bases)
	tm, _ := treeAt(f, main, env)
	th, _ := treeAt(f, head, env)
	legit := true
	var kinds []string
	for _, p := range files {
		if !strings.HasPrefix(p, ".todos/issues/") {
			kinds = append(kinds, p)
			legit = false
			continue
		}
		ok, k, family, _ := classifyAll(tbs, p, tm[p], th[p], false)
		kinds = append(kinds, k)
		w.stats.conflictsByKind[fmt.Sprintf("%s %s", verdictWord(ok), k)]++
		if !ok {
			legit = false
			w.violate("4", "the merge button conflicts on disjoint changes: "+family, fmt.Sprintf("pull request #%d landing by %s: %s: %s", pr.n, kind, p, k))
		}
	}
	if legit {
		w.stats.forgeLegit++
	}
	w.note("pull request #%d conflicts at the merge button (%s): %s", pr.n, kind, strings.Join(kinds, "; "))
}

func verdictWord(legit bool) string {
	if legit {
		return "legitimate:"
	}
	return "violation: "
}

// judgeMerge checks a merge's result against both sides (invariant 3).
// With more than one merge base (criss-cross merges, which squash landings
// and merges of main back make common) git merges against a virtual base;
// a finding counts only if it holds against every one of them.
func (w *world) judgeMerge(dir, what string, bases []string, ours, theirs, result string, hand map[string]bool) {
	ts := w.trees(dir, []string{ours, theirs, result})
	to, tt, tr := ts[0], ts[1], ts[2]
	var common map[string]finding
	doubled := 0
	for _, tb := range w.trees(dir, bases) {
		fs, d := checkMerge(mergeCase{what: what, base: tb, ours: to, theirs: tt, result: tr, handResolved: hand})
		doubled = d
		seen := map[string]finding{}
		for _, f := range fs {
			if common == nil || common[f.class+f.detail].class != "" {
				seen[f.class+f.detail] = f
			}
		}
		common = seen
	}
	w.stats.rawDoubled += doubled
	if doubled > 0 {
		w.note("%s left %d ledger lines twice", what, doubled)
	}
	for _, k := range sortedKeys(common) {
		f := common[k]
		w.violate(f.inv, f.class, what+": "+f.detail)
	}
}

// mergeBases lists every merge base of two commits.
func (w *world) mergeBases(dir, a, b string) []string {
	return splitLines(w.git(dir, w.alice, "merge-base", "--all", a, b))
}

// trees reads the files under .todos at each revision.
func (w *world) trees(dir string, revs []string) []map[string]string {
	env := w.env(w.alice, "", "")
	var out []map[string]string
	for _, rev := range revs {
		t, err := treeAt(dir, rev, env)
		if err != nil {
			w.fatalf("%v", err)
		}
		out = append(out, t)
	}
	return out
}

// classifyAll classifies a conflict against each merge base; it is
// legitimate if it is against one of them. It returns the base it judged
// by.
func classifyAll(bases []map[string]string, p, o, t string, driver bool) (legit bool, kinds, family string, base map[string]string) {
	for _, tb := range bases {
		l, k, f, _ := classifyConflict(tb[p], o, t, driver)
		if base == nil || l {
			legit, kinds, family, base = l, k, f, tb
		}
		if l {
			break
		}
	}
	return legit, kinds, family, base
}

// checkWritten checks that every ledger line an accepted command wrote on
// the branch is on main once the branch landed, exactly once.
func (w *world) checkWritten(br *branch, mainRev string) {
	t, err := treeAt(w.forge, mainRev, w.env(w.alice, "", ""))
	if err != nil {
		w.fatalf("%v", err)
	}
	counts := map[string]map[string]int{}
	for _, l := range br.pushed {
		if counts[l.path] == nil {
			counts[l.path] = countLines(t[l.path])
		}
		if n := counts[l.path][l.line]; n == 0 {
			w.violate("3", "a ledger line written on a branch is not on main after it landed", fmt.Sprintf("%s (written at step %d): %s", l.path, l.step, clip(l.line, 200)))
		}
	}
}

// recordMain checks main in a fresh clone after a landing: td check passes
// (invariant 7); every issue reads with each comment and ledger entry
// once (invariant 3); no closed issue shows a claim (invariant 5).
func (w *world) recordMain() {
	dir := w.freshClone("main")
	defer os.RemoveAll(dir)
	w.fetchClaims(dir)
	mc := &place{name: "main-check", dir: dir, who: w.alice, clone: &clone{name: "main-check", dir: dir, owner: w.alice}}
	r := w.td(mc, "check", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(r.out), &rep); err == nil {
		now := map[string]bool{}
		for i, k := range rep.keys() {
			now[k] = true
			if !w.mainViolations[k] {
				v := rep.Violations[i]
				w.violate("7", "td check fails on main: "+v.Rule+": "+v.Message, fmt.Sprintf("%s:%d: %s", v.Path, v.Line, v.Message))
			}
		}
		w.mainViolations = now
	}
	issues := w.listIssues(mc)
	for _, is := range issues {
		if is.Status == "closed" && w.closedAt[is.ID].IsZero() {
			// When the close was made, by its ledger entry: a claim taken
			// after it (a reopen and a start on a branch not landed yet)
			// is not one the close ended.
			w.closedAt[is.ID] = w.now
			if t := w.lastTransition(mc, is.ID); !t.IsZero() {
				w.closedAt[is.ID] = t
			}
		}
		if is.Status != "closed" {
			delete(w.closedAt, is.ID)
		}
	}
	w.readersOnce(mc, issues)
}

// readersOnce asks td show and td log about recently active issues and
// checks that no comment or ledger entry reads twice.
func (w *world) readersOnce(mc *place, issues []issueInfo) {
	n := 0
	for _, is := range issues {
		if n >= 6 {
			break
		}
		if w.rng.Intn(3) != 0 && is.Status != "in_review" && is.Status != "closed" {
			continue
		}
		n++
		r := w.td(mc, "show", is.ID, "--json")
		var show struct {
			Comments []struct {
				Text    string `json:"text"`
				Session string `json:"session"`
				TS      string `json:"ts"`
			} `json:"comments"`
			Claim json.RawMessage `json:"claim"`
		}
		if json.Unmarshal([]byte(r.out), &show) == nil {
			seen := map[string]int{}
			for _, c := range show.Comments {
				seen[c.TS+c.Session+c.Text]++
				if seen[c.TS+c.Session+c.Text] == 2 {
					w.violate("3", "td show lists a comment twice", fmt.Sprintf("%s: %q", is.ID, clip(c.Text, 80)))
				}
			}
			if is.Status == "closed" && len(show.Claim) > 0 && string(show.Claim) != "null" {
				w.violateOnce("closed-claim:"+is.ID, "5", "a closed issue shows a claim", fmt.Sprintf("%s: %s", is.ID, clip(string(show.Claim), 200)))
			}
		}
		r = w.td(mc, "log", is.ID, "--json")
		var lg struct {
			Entries []struct {
				Kind   string          `json:"kind"`
				Ledger json.RawMessage `json:"ledger"`
			} `json:"entries"`
		}
		if json.Unmarshal([]byte(r.out), &lg) == nil {
			seen := map[string]bool{}
			for _, e := range lg.Entries {
				if e.Kind != "ledger" {
					continue
				}
				var m map[string]any
				if json.Unmarshal(e.Ledger, &m) != nil {
					continue
				}
				lost := m["lost_in"]
				delete(m, "lost_in")
				key, _ := json.Marshal(m)
				if seen[string(key)] {
					w.violate("3", fmt.Sprintf("td log lists a %v entry twice", m["action"]), fmt.Sprintf("%s: %s", is.ID, clip(string(key), 200)))
				}
				seen[string(key)] = true
				if lost != nil && m["action"] == "edited" {
					w.lostInMerge(is, m, lost)
				}
			}
		}
	}
}

// lostInMerge checks td log's claim that an edit was lost in a merge
// against the issue: a field whose value is still the edit's is not lost.
func (w *world) lostInMerge(is issueInfo, m map[string]any, lost any) {
	for k, v := range m {
		ch, ok := v.(map[string]any)
		if !ok {
			continue
		}
		to, ok := ch["to"]
		if !ok {
			continue
		}
		if cur, ok := is.field(k); ok && fmt.Sprint(to) == cur {
			w.violate("3", "td log says an edit was lost in a merge, but its value is there", fmt.Sprintf("%s: %s is %q (lost_in %v)", is.ID, k, cur, lost))
		}
	}
}

// mergeBack merges main into a branch at its place, as its owner does
// after a squash landing or to resolve a conflict: with td's driver in the
// lead's clone, without it in the teammate's; a stop is resolved with td
// resolve, and what td resolve leaves is resolved by hand. The teammate
// sometimes resolves a pull request's conflicts in a fresh clone, where
// td never ran, as the CI comment's recipe allows.
func (w *world) mergeBack(br *branch, why string) bool {
	p := br.place
	if p.retired {
		return false
	}
	w.commit(p, "td work")
	w.git(p.dir, p.who, "fetch", "-q", "origin")
	if w.rev(p.dir, "HEAD") == w.rev(p.dir, "origin/"+br.name) && p.clone == w.bclone && strings.Contains(why, "conflicts") && w.rng.Intn(3) == 0 {
		return w.mergeBackInFreshClone(br, why)
	}
	merged := w.mergeMain(p, br.name, why)
	if merged {
		br.unpushed = true
		if p.agent {
			w.agentProbe(p, "after a merge of main")
		}
	}
	return merged
}

// mergeBackInFreshClone resolves a branch's conflicts with main in a new
// clone, pushes, and brings the result back to the owner's place.
func (w *world) mergeBackInFreshClone(br *branch, why string) bool {
	p := br.place
	dir := w.freshClone("resolve")
	defer os.RemoveAll(dir)
	fresh := &place{name: p.name + "-fresh", dir: dir, who: p.who, clone: &clone{name: "fresh", dir: dir, owner: p.who}, startedHere: map[string]bool{}}
	w.git(dir, p.who, "checkout", "-q", "-b", br.name, "origin/"+br.name)
	if !w.mergeMain(fresh, br.name, why+", in a fresh clone") {
		return false
	}
	w.git(dir, p.who, "push", "-q", "origin", br.name)
	w.git(p.dir, p.who, "fetch", "-q", "origin")
	w.git(p.dir, p.who, "merge", "-q", "--ff-only", "origin/"+br.name)
	br.unpushed = true // CI runs again on the next push
	return true
}

// mergeMain merges origin/main into the branch checked out at p; false
// when there was nothing to merge.
func (w *world) mergeMain(p *place, brName, why string) bool {
	w.git(p.dir, p.who, "fetch", "-q", "origin")
	ours := w.rev(p.dir, "HEAD")
	theirs := w.rev(p.dir, "origin/main")
	if w.tryGit(p.dir, p.who, "", "merge-base", "--is-ancestor", theirs, ours).ok() {
		return false // up to date
	}
	bases := w.mergeBases(p.dir, ours, theirs)
	w.stats.mergeBacks++
	w.note("%s merges main into %s %s", p.who.name, brName, why)
	r := w.tryGit(p.dir, p.who, p.session, "-c", "merge.conflictStyle=diff3", "merge", "-q", "--no-edit", "origin/main")
	hand := map[string]bool{}
	if !r.ok() {
		hand = w.resolve(p, bases, ours, theirs)
		cr := w.tryGit(p.dir, p.who, p.session, "commit", "-q", "--no-edit")
		if !cr.ok() {
			if strings.Contains(cr.text(), "nothing to commit") || !p.clone.hooks {
				w.fatalf("commit the merge at %s: %s", p.name, cr.text())
			}
			w.stats.hookRefused++
			w.violate("1", "the pre-commit hook refuses a merge of main: "+firstViolation(cr.text()), cr.text())
			w.git(p.dir, p.who, "commit", "-q", "--no-verify", "--no-edit")
		}
		w.stats.commits++
	}
	merged := w.rev(p.dir, "HEAD")
	w.judgeMerge(p.dir, fmt.Sprintf("%s's merge of main into %s", p.who.name, brName), bases, ours, theirs, merged, hand)
	return true
}

// resolve finishes a merge that stopped: td resolve first, then by hand,
// as a careful person does (resolveIssue). It returns the files resolved
// by hand. With td's driver, a stop on disjoint changes, or markers around
// more than what both sides changed, breaks invariant 4; so does what td
// resolve leaves on disjoint changes, in any clone.
func (w *world) resolve(p *place, bases []string, ours, theirs string) map[string]bool {
	tbs := w.trees(p.dir, bases)
	to, tt := w.trees(p.dir, []string{ours})[0], w.trees(p.dir, []string{theirs})[0]
	tb := tbs[0]
	conflicted := func() []string {
		out, _ := w.gitQuiet(p.dir, "diff", "--name-only", "--diff-filter=U")
		return splitLines(out)
	}
	driver := p.clone.driver
	for _, f := range conflicted() {
		if !strings.HasPrefix(f, ".todos/issues/") || !driver {
			continue
		}
		legit, kinds, family, fb := classifyAll(tbs, f, to[f], tt[f], true)
		if !legit {
			w.violate("4", "td's merge driver stops on disjoint changes: "+family, f+": "+kinds)
			continue
		}
		_, _, _, both := classifyConflict(fb[f], to[f], tt[f], true)
		if data, err := os.ReadFile(filepath.Join(p.dir, f)); err == nil {
			if beyond, unit := markedBeyondConflict(string(data), both); beyond {
				w.violate("4", "td's merge driver marks more than what both sides changed", fmt.Sprintf("%s: %s marked; both sides changed %s (%s)", f, unit, strings.Join(sortedKeys(both), ", "), kinds))
			}
		}
	}
	r := w.td(p, "resolve")
	left := conflicted()
	for _, f := range left {
		if !strings.HasPrefix(f, ".todos/issues/") {
			continue
		}
		legit, kinds, family, _ := classifyAll(tbs, f, to[f], tt[f], true)
		if !legit {
			w.violate("4", "td resolve leaves disjoint changes conflicted: "+family+": "+resolveLine(r.text(), f), f+": "+kinds+": "+r.text())
		}
		if statusConflict(tb[f], to[f], tt[f]) && p.br != nil {
			w.note("both sides moved the status of %s; td resolve said: %s", f, resolveLine(r.text(), f))
			p.br.statusResolved = append(p.br.statusResolved, issueFromPath(f))
		}
	}
	hand := map[string]bool{}
	for _, f := range left {
		data, err := os.ReadFile(filepath.Join(p.dir, f))
		if err != nil {
			w.fatalf("read %s: %v", f, err)
		}
		var resolved string
		if strings.HasSuffix(f, ".jsonl") {
			resolved = unionSides(string(data))
		} else {
			resolved = resolveIssue(tb[f], to[f], tt[f], func() int { return w.rng.Intn(2) })
			if !parseIssue(resolved).ok {
				// The simulator's resolution is not a file td can read:
				// keep main's version, as a person at a loss would.
				w.note("the hand resolution of %s does not parse; keeping main's version", f)
				w.stats.clumsyResolutions++
				resolved = tt[f]
			} else if lost := checkTodos(f, parseIssue(tb[f]), parseIssue(to[f]), parseIssue(tt[f]), parseIssue(resolved)); len(lost) > 0 {
				w.note("the hand resolution of %s is clumsy: %s\n--- resolved:\n%s", f, lost[0].detail, resolved)
				w.stats.clumsyResolutions++
				w.stats.clumsySeeds = append(w.stats.clumsySeeds, fmt.Sprintf("%d@%d", w.seed, w.step))
			}
		}
		if err := os.WriteFile(filepath.Join(p.dir, f), []byte(resolved), 0o644); err != nil {
			w.fatalf("%v", err)
		}
		w.note("%s resolves %s by hand", p.who.name, f)
		w.git(p.dir, p.who, "add", "--", f)
		hand[f] = true
	}
	return hand
}

// resolveLine picks what td resolve said about one file, or its first
// line when it named none (an error).
func resolveLine(out, file string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, file+":") {
			return strings.TrimSpace(strings.TrimPrefix(l, file+":"))
		}
	}
	return firstViolation(out)
}

func issueFromPath(p string) string {
	return strings.TrimSuffix(filepath.Base(p), ".md")
}

// statusConflict reports that both sides moved an issue's status to
// different values.
func statusConflict(b, o, t string) bool {
	db, do, dt := parseIssue(b), parseIssue(o), parseIssue(t)
	if !db.ok || !do.ok || !dt.ok {
		return false
	}
	s := db.fields["status"]
	return do.fields["status"] != s && dt.fields["status"] != s && do.fields["status"] != dt.fields["status"]
}

// afterLanding decides what the branch's owner does next: go on with the
// branch (merging main back in before its next pull request, mostly) or
// finish it.
func (w *world) afterLanding(br *branch) {
	p := br.place
	for i, pb := range p.parked {
		if pb == br {
			p.parked = append(p.parked[:i:i], p.parked[i+1:]...)
			br.done = true
			return
		}
	}
	if br.unpushed || w.staged(p) || (w.rng.Intn(100) < 35 && !p.retired) {
		w.note("%s goes on with %s after its landing", p.name, br.name)
		br.needsMergeBack = true
		return
	}
	br.done = true
	if p.agent && w.rng.Intn(2) == 0 {
		w.retireAgent(p)
	}
}

// cycleRE finds the first link of a cycle in td check's message:
// "… form a cycle…: td-a blocked_by td-b blocked_by td-a; …".
var cycleRE = regexp.MustCompile(`form a cycle[^:]*: (td-[0-9a-z]+) (child_of|blocked_by|duplicate_of) (td-[0-9a-z]+)`)

// cycleEdge returns the first link of the cycle a link_cycle violation
// names, as {from, kind, to}; nil when the message names none.
func cycleEdge(msg string) []string {
	m := cycleRE.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	return m[1:]
}
