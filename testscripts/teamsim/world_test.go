package teamsim

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// person is someone with a git identity and a home of their own.
type person struct {
	name, email string
	home        string
	operator    bool
}

func (p *person) ident() string { return p.name + " <" + p.email + ">" }

// clone is one git clone of the remote, with its main work tree.
type clone struct {
	name   string
	dir    string
	owner  *person
	driver bool // td init ran here: td's merge driver is registered
	hooks  bool // td hooks install ran here: the pre-commit hook runs td
}

// place is a work tree where someone acts: a person's clone, or an
// agent's worktree of the lead's clone.
type place struct {
	name    string
	dir     string
	who     *person
	clone   *clone
	agent   bool   // an agent sent by the lead works here
	session string // TD_SESSION; "" for a person's default session
	issue   string // the issue an agent was sent to
	br      *branch
	parked  []*branch // branches with an open pull request, not checked out
	retired bool

	leadOf *place // the agent whose worktree the lead acts in
	lead   *place // the lead acting in this agent's worktree

	viewed       bool            // the agent's session was tried in its worktree
	explicitBind string          // an issue the person bound with td session bind
	startedHere  map[string]bool // issues a person started in this place
}

// branch is a line of work at a place, pushed to the remote as a pull
// request's head.
type branch struct {
	name     string
	place    *place
	pr       *pullRequest
	landed   int             // pull requests of this branch that landed
	unpushed bool            // commits the remote has not seen
	written  []writtenLine   // by accepted commands, not pushed yet
	pushed   []writtenLine   // by accepted commands, on the remote
	touched  map[string]bool // issues accepted commands changed
	done     bool            // the branch is finished: no new work on it

	needsMergeBack bool     // a pull request of it landed: merge main back before the next
	squashed       []string // the heads its squash landings landed
	statusResolved []string // issues whose status both sides moved, resolved by hand
}

// writtenLine is one ledger line an accepted command appended.
type writtenLine struct {
	path, line string
	step       int
}

// result is what one command did.
type result struct {
	code     int
	out, err string
}

func (r result) ok() bool { return r.code == 0 }

// text is the command's output, both streams, for messages and matching.
func (r result) text() string { return strings.TrimSpace(r.out + "\n" + r.err) }

// harnessError stops a seed when the simulator itself cannot go on (git
// failed where it must not): it is reported apart from td's violations.
type harnessError struct{ msg string }

func (w *world) fatalf(format string, args ...any) {
	panic(harnessError{fmt.Sprintf(format, args...)})
}

// world is one seeded simulation: a bare remote, the lead's clone (with
// td's driver and hooks), a teammate's clone (neither), agents in
// worktrees of the lead's clone, a forge clone that lands pull requests,
// and fresh clones for CI and for checking main.
type world struct {
	seed   int64
	opts   options
	rng    *rand.Rand
	root   string
	bin    string
	now    time.Time
	remote string

	alice, bob *person
	aclone     *clone
	bclone     *clone
	forge      string
	places     []*place
	agents     int
	branches   int
	prs        int
	clones     int

	ciMode   string // head or merge: what CI checks (GitLab's head, GitHub's test merge)
	landings map[string]float64

	stats      *stats
	violations []violation
	log        []string
	step       int

	mainViolations map[string]bool // td check's violations on main now
	seen           map[string]bool // keys of violations recorded once per seed
	texts          int
	closedAt       map[string]time.Time // when main last saw each issue closed
}

// options size a seed.
type options struct {
	prs      int  // pull requests to land
	illegit  bool // end with the illegitimate steps
	maxSteps int
}

func newWorld(seed int64, root, bin string, opts options) *world {
	w := &world{
		seed: seed, opts: opts, rng: rand.New(rand.NewSource(seed)),
		root: root, bin: bin,
		now:            time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		stats:          newStats(),
		mainViolations: map[string]bool{},
		closedAt:       map[string]time.Time{},
	}
	w.stats.seeds = 1
	w.alice = &person{name: "Alice", email: "alice@example.com", home: filepath.Join(root, "home-alice"), operator: true}
	w.bob = &person{name: "Bob", email: "bob@example.com", home: filepath.Join(root, "home-bob"), operator: w.rng.Intn(2) == 0}
	w.ciMode = "head"
	if w.rng.Intn(2) == 0 {
		w.ciMode = "merge"
	}
	// How this forge lands pull requests: every seed uses all three, in
	// proportions of its own.
	w.landings = map[string]float64{"merge": 1 + w.rng.Float64()*2, "squash": 1 + w.rng.Float64()*2, "rebase": 0.5 + w.rng.Float64()*2}
	return w
}

// tick lets time pass between two commands.
func (w *world) tick() {
	w.now = w.now.Add(time.Duration(5+w.rng.Intn(90)) * time.Second)
}

// env is the environment of a command by who, acting as session.
func (w *world) env(who *person, session, randSeed string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "TD_") || k == "HOME" || k == "XDG_CONFIG_HOME" || k == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	now := w.now.Format(time.RFC3339)
	env = append(env,
		"PATH="+w.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+who.home, "XDG_CONFIG_HOME="+filepath.Join(who.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1",
		"GIT_AUTHOR_NAME="+who.name, "GIT_AUTHOR_EMAIL="+who.email,
		"GIT_COMMITTER_NAME="+who.name, "GIT_COMMITTER_EMAIL="+who.email,
		"GIT_AUTHOR_DATE="+now, "GIT_COMMITTER_DATE="+now,
		"TD_NOW="+now,
	)
	if randSeed != "" {
		env = append(env, "TD_RAND_SEED="+randSeed)
	}
	if session != "" {
		env = append(env, "TD_SESSION="+session)
	}
	return env
}

// exec runs a program in dir as who and logs it.
func (w *world) exec(dir string, who *person, session, where string, name string, args ...string) result {
	w.tick()
	w.step++
	prog := name
	if name == "td" {
		prog = filepath.Join(w.bin, "td") // exec looks names up in the test's own PATH
	}
	c := exec.Command(prog, args...)
	c.Dir = dir
	c.Env = w.env(who, session, fmt.Sprintf("%x", w.rng.Uint64()))
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	start := time.Now()
	err := c.Run()
	w.stats.wall[timingKey(name, args)] += time.Since(start)
	r := result{out: out.String(), err: errb.String()}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else {
			w.fatalf("run %s %s: %v", name, strings.Join(args, " "), err)
		}
	}
	if name == "td" {
		w.stats.commands++
	}
	w.logCmd(who, where, name, args, r)
	return r
}

func (w *world) logCmd(who *person, where, name string, args []string, r result) {
	line := fmt.Sprintf("%5d %s %s@%s $ %s %s -> %d", w.step, w.now.Format("15:04:05"), strings.ToLower(who.name), where, filepath.Base(name), shellJoin(args), r.code)
	if r.code != 0 || strings.Contains(r.err, "panic") {
		if msg := firstLines(r.text(), 4); msg != "" {
			line += "\n        " + strings.ReplaceAll(msg, "\n", "\n        ")
		}
	}
	w.log = append(w.log, line)
}

// timingKey names a command for the wall-time table of a replay.
func timingKey(name string, args []string) string {
	if len(args) > 0 {
		return name + " " + args[0]
	}
	return name
}

// note adds a line of the simulator's own to the step log.
func (w *world) note(format string, args ...any) {
	w.log = append(w.log, "      # "+fmt.Sprintf(format, args...))
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"*$") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("(%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

// td runs td at a place, as whoever acts there.
func (w *world) td(p *place, args ...string) result {
	r := w.exec(p.dir, p.who, p.session, p.name, "td", args...)
	w.checkCrash(p.name, args, r)
	return r
}

// tdAt runs td in a directory that is no one's place (CI, the forge).
func (w *world) tdAt(dir, where string, who *person, args ...string) result {
	r := w.exec(dir, who, "", where, "td", args...)
	w.checkCrash(where, args, r)
	return r
}

// checkCrash reports a panic or an exit status td never uses.
func (w *world) checkCrash(where string, args []string, r result) {
	if strings.Contains(r.err, "panic:") || strings.Contains(r.err, "goroutine ") || (r.code != 0 && r.code != 1 && r.code != 2) {
		w.violate("crash", "td crashed", fmt.Sprintf("%s: td %s: exit %d: %s", where, shellJoin(args), r.code, firstLines(r.err, 6)))
	}
}

// git runs git in dir as who; it must succeed.
func (w *world) git(dir string, who *person, args ...string) string {
	r := w.exec(dir, who, "", filepath.Base(dir), "git", args...)
	if !r.ok() {
		w.fatalf("git %s in %s: exit %d: %s", shellJoin(args), dir, r.code, r.text())
	}
	return r.out
}

// tryGit runs git in dir as who, and reports how it went.
func (w *world) tryGit(dir string, who *person, session string, args ...string) result {
	return w.exec(dir, who, session, filepath.Base(dir), "git", args...)
}

// gitQuiet runs a read-only git command without logging it.
func (w *world) gitQuiet(dir string, args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = w.env(w.alice, "", "")
	out, err := c.Output()
	return string(out), err
}

// tryGitQuiet runs a read-only git command without logging it and
// reports whether it succeeded.
func (w *world) tryGitQuiet(dir string, args ...string) bool {
	_, err := w.gitQuiet(dir, args...)
	return err == nil
}

func (w *world) rev(dir, name string) string {
	out, err := w.gitQuiet(dir, "rev-parse", "--verify", "-q", name+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// setup makes the remote, the lead's clone with td initialised and a few
// issues on main, the teammate's clone and the forge's clone.
func (w *world) setup() {
	w.makeHomes()
	w.remote = filepath.Join(w.root, "remote.git")
	w.git(w.root, w.alice, "init", "-q", "--bare", "-b", "main", w.remote)
	adir := filepath.Join(w.root, "alice")
	w.git(w.root, w.alice, "-c", "init.defaultBranch=main", "clone", "-q", w.remote, adir)
	w.aclone = &clone{name: "alice", dir: adir, owner: w.alice, driver: true, hooks: true}
	alice := &place{name: "alice", dir: adir, who: w.alice, clone: w.aclone, startedHere: map[string]bool{}}
	w.places = append(w.places, alice)
	w.mustTD(alice, "init")
	if w.bob.operator {
		w.mustTD(alice, "operator", "add", w.bob.ident())
	}
	// An operator who never acts: her addition is a security event on
	// main from the start, for the illegitimate steps to tamper with.
	w.mustTD(alice, "operator", "add", "Carol <carol@example.com>")
	w.mustTD(alice, "hooks", "install")
	for i := 0; i < 3+w.rng.Intn(3); i++ {
		id := w.createIssue(alice)
		if id == "" {
			continue
		}
		if w.rng.Intn(2) == 0 {
			w.td(alice, "todo", "add", "--issue", id, "--kind", "criterion", w.newText("criterion"))
		}
		if w.rng.Intn(3) == 0 {
			w.td(alice, "todo", "set", "--issue", id, w.newText("step"), w.newText("step"))
		}
	}
	w.git(adir, w.alice, "commit", "-q", "--no-verify", "-m", "Track work with td")
	w.git(adir, w.alice, "push", "-q", "-u", "origin", "main")
	w.git(adir, w.alice, "remote", "set-head", "origin", "main")

	bdir := filepath.Join(w.root, "bob")
	w.git(w.root, w.bob, "clone", "-q", w.remote, bdir)
	w.bclone = &clone{name: "bob", dir: bdir, owner: w.bob}
	w.places = append(w.places, &place{name: "bob", dir: bdir, who: w.bob, clone: w.bclone, startedHere: map[string]bool{}})

	w.forge = filepath.Join(w.root, "forge")
	w.git(w.root, w.alice, "clone", "-q", w.remote, w.forge)
	w.recordMain()
}

// makeHomes makes the people's home directories.
func (w *world) makeHomes() {
	for _, p := range []*person{w.alice, w.bob} {
		if err := os.MkdirAll(p.home, 0o755); err != nil {
			w.fatalf("%v", err)
		}
	}
}

// mustTD runs td where it has to work for the simulation to go on.
func (w *world) mustTD(p *place, args ...string) result {
	r := w.td(p, args...)
	if !r.ok() {
		w.fatalf("td %s at %s: %s", shellJoin(args), p.name, r.text())
	}
	return r
}

// newText is a fresh, unique text for a todo, a comment or a paragraph, so
// every line the simulation writes can be found again.
func (w *world) newText(kind string) string {
	w.texts++
	words := []string{"parser", "callback", "login", "cache", "export", "retry", "docs", "schema", "button", "index"}
	return fmt.Sprintf("%s %d %s", kind, w.texts, words[w.rng.Intn(len(words))])
}

// tree is the content of every file under .todos of a work tree (td's
// local state left out), and the index's entries for them.
type tree struct {
	files map[string]string
	index string
}

func (w *world) snapshot(dir string) tree {
	t := tree{files: map[string]string{}}
	root := filepath.Join(dir, ".todos")
	_ = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if info.IsDir() {
			if rel == filepath.Join(".todos", "local") {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err == nil {
			t.files[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if data, err := os.ReadFile(filepath.Join(dir, ".gitattributes")); err == nil {
		t.files[".gitattributes"] = string(data)
	}
	out, _ := w.gitQuiet(dir, "ls-files", "-s", "--", ".todos", ".gitattributes")
	t.index = out
	return t
}

// changed names the files that differ between two snapshots.
func (a tree) changed(b tree) []string {
	var paths []string
	for p, v := range a.files {
		if b.files[p] != v {
			paths = append(paths, p)
		}
	}
	for p := range b.files {
		if _, ok := a.files[p]; !ok {
			paths = append(paths, p)
		}
	}
	if a.index != b.index {
		paths = append(paths, "(the index)")
	}
	sort.Strings(paths)
	return paths
}

// newLedgerLines lists the ledger and security lines b has that a had not.
func (a tree) newLedgerLines(b tree) []writtenLine {
	var lines []writtenLine
	for p, v := range b.files {
		if !strings.HasSuffix(p, ".jsonl") {
			continue
		}
		had := map[string]int{}
		for _, l := range splitLines(a.files[p]) {
			had[l]++
		}
		for _, l := range splitLines(v) {
			if had[l] > 0 {
				had[l]--
				continue
			}
			lines = append(lines, writtenLine{path: p, line: l})
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].path < lines[j].path })
	return lines
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// freshClone clones the remote into a new directory, as CI does.
func (w *world) freshClone(what string) string {
	w.clones++
	dir := filepath.Join(w.root, fmt.Sprintf("%s-%d", what, w.clones))
	w.git(w.root, w.alice, "clone", "-q", w.remote, dir)
	return dir
}

// fetchClaims copies the remote's claim refs, as CI jobs must.
func (w *world) fetchClaims(dir string) {
	w.git(dir, w.alice, "fetch", "-q", "origin", "+refs/td/claims/*:refs/td/claims/*")
}
