package teamsim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
)

// tamperKinds are the illegitimate steps: each changes .todos the way td
// never would, or makes a decision the review policy refuses, and CI's
// td check --base must fail the pull request every time.
var tamperKinds = []string{"status-typed", "approval-typed", "ledger-line-deleted", "security-rehashed", "implementer-approves"}

// illegitimate opens one pull request per tamper kind from a fresh clone,
// runs CI on it, counts whether CI failed it, and drops it.
func (w *world) illegitimate() {
	for _, kind := range tamperKinds {
		w.tamperPR(kind)
	}
}

func (w *world) tamperPR(kind string) {
	dir := w.freshClone("tamper")
	defer os.RemoveAll(dir)
	p := &place{name: "tamper", dir: dir, who: w.alice, clone: &clone{name: "tamper", dir: dir, owner: w.alice}, startedHere: map[string]bool{}}
	w.branches++
	name := fmt.Sprintf("tamper-%d", w.branches)
	w.git(dir, w.alice, "checkout", "-q", "-b", name)
	w.note("illegitimate step on %s: %s", name, kind)
	if !w.tamper(p, kind) {
		w.note("nothing to tamper with for %s", kind)
		return
	}
	w.git(dir, w.alice, "add", "-A", ".todos")
	w.git(dir, w.alice, "commit", "-q", "--no-verify", "-m", "Tamper: "+kind)
	w.git(dir, w.alice, "push", "-q", "origin", name)
	w.stats.illegitTried[kind]++
	_, fresh, ran := w.runCI(name)
	if !ran {
		w.stats.illegitTried[kind]--
		w.note("CI did not run on %s", name)
	} else if len(fresh) > 0 {
		w.stats.illegitCaught[kind]++
		w.note("CI caught %s: %s", kind, strings.Join(sortedKeys(fresh), "; "))
	} else {
		w.violate("illegit", "td check --base passes an illegitimate step: "+kind, name)
	}
	w.git(dir, w.alice, "push", "-q", "origin", "--delete", name)
}

// tamper applies one illegitimate change in the work tree; false when the
// repository has nothing it applies to.
func (w *world) tamper(p *place, kind string) bool {
	dir := p.dir
	issues := w.listIssues(p)
	var target issueInfo
	for _, is := range issues {
		if is.Status != "closed" {
			target = is
			break
		}
	}
	switch kind {
	case "status-typed":
		if target.ID == "" {
			return false
		}
		to := "in_review"
		if target.Status == "in_review" {
			to = "closed"
		}
		return w.editFile(dir, ".todos/issues/"+target.ID+".md", func(s string) string {
			return replaceField(s, "status", to)
		})
	case "approval-typed":
		if target.ID == "" {
			return false
		}
		by := target.Implementer
		if by == "" {
			by = target.CreatedBy
		}
		line := fmt.Sprintf(`{"ts":%q,"session":%q,"action":"approved","from":%q,"to":"closed"}`, w.now.Format(time.RFC3339), by, target.Status)
		ok := w.editFile(dir, ".todos/history/"+target.ID+".jsonl", func(s string) string { return s + line + "\n" })
		return ok && w.editFile(dir, ".todos/issues/"+target.ID+".md", func(s string) string {
			return replaceField(replaceField(s, "status", "closed"), "resolution", "done")
		})
	case "ledger-line-deleted":
		for _, is := range issues {
			path := ".todos/history/" + is.ID + ".jsonl"
			data, err := os.ReadFile(filepath.Join(dir, path))
			if err != nil {
				continue
			}
			lines := strings.SplitAfter(string(data), "\n")
			if len(lines) < 2 {
				continue
			}
			// A line a union merge left twice is one entry: deleting one
			// copy deletes nothing. Delete a line that is there once.
			count := map[string]int{}
			for _, l := range lines {
				count[l]++
			}
			var once []int
			for i, l := range lines[:len(lines)-1] {
				if count[l] == 1 {
					once = append(once, i)
				}
			}
			if len(once) == 0 {
				continue
			}
			i := once[w.rng.Intn(len(once))]
			return w.editFile(dir, path, func(string) string { return strings.Join(append(lines[:i:i], lines[i+1:]...), "") })
		}
		return false
	case "security-rehashed":
		return w.editFile(dir, ".todos/security_events.jsonl", rehashFirst)
	case "implementer-approves":
		return w.implementerApproves(p)
	}
	return false
}

// implementerApproves has the lead implement an issue, then approve it
// through a second session of hers: td must refuse, and when it does,
// the approval is typed by hand in that session's name.
func (w *world) implementerApproves(p *place) bool {
	id := w.createIssue(p)
	if id == "" {
		return false
	}
	if !w.perform(p, []string{"start", id}).ok() || !w.perform(p, []string{"review", id, "--force"}).ok() {
		return false
	}
	w.git(p.dir, w.alice, "add", "-A", ".todos")
	w.git(p.dir, w.alice, "commit", "-q", "--no-verify", "-m", "Implement "+id)
	s := w.perform(p, []string{"session", "start", "-q"})
	m := exportRE.FindStringSubmatch(s.out)
	if m == nil {
		return false
	}
	second := &place{name: "tamper-second", dir: p.dir, who: w.alice, clone: p.clone, session: m[1], startedHere: map[string]bool{}}
	if r := w.td(second, "approve", id, "--reason", "second session"); r.ok() {
		w.violate("2", "td approve accepts the implementer's actor through a second session", id)
		return true
	}
	line := fmt.Sprintf(`{"ts":%q,"session":%q,"action":"approved","from":"in_review","to":"closed"}`, w.now.Format(time.RFC3339), m[1])
	ok := w.editFile(p.dir, ".todos/history/"+id+".jsonl", func(s string) string { return s + line + "\n" })
	return ok && w.editFile(p.dir, ".todos/issues/"+id+".md", func(s string) string {
		return replaceField(replaceField(s, "status", "closed"), "resolution", "done")
	})
}

var fieldRE = map[string]*regexp.Regexp{}

// replaceField sets a frontmatter field's value as a hand edit would.
func replaceField(s, key, value string) string {
	re, ok := fieldRE[key]
	if !ok {
		re = regexp.MustCompile(`(?m)^` + key + `:.*$`)
		fieldRE[key] = re
	}
	return re.ReplaceAllLiteralString(s, key+": "+value)
}

// editFile rewrites a file in place; false when it does not exist or the
// edit changes nothing.
func (w *world) editFile(dir, path string, edit func(string) string) bool {
	full := filepath.Join(dir, path)
	data, err := os.ReadFile(full)
	if err != nil {
		return false
	}
	out := edit(string(data))
	if out == string(data) {
		return false
	}
	if err := os.WriteFile(full, []byte(out), 0o644); err != nil {
		w.fatalf("%v", err)
	}
	w.note("hand edit of %s", path)
	return true
}

// rehashFirst edits the first security event's reason and recomputes its
// hash, as someone who read td's source would.
func rehashFirst(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		return s
	}
	var wire struct {
		TS        string `json:"ts"`
		IssueID   string `json:"issue_id"`
		SessionID string `json:"session_id"`
		Agent     string `json:"agent"`
		Kind      string `json:"kind"`
		Reason    string `json:"reason"`
		Prev      string `json:"prev"`
	}
	if json.Unmarshal([]byte(lines[0]), &wire) != nil {
		return s
	}
	ts, err := time.Parse(time.RFC3339, wire.TS)
	if err != nil {
		return s
	}
	ev := audit.SecurityEvent{TS: ts, IssueID: wire.IssueID, SessionID: wire.SessionID, Agent: wire.Agent, Kind: wire.Kind, Reason: wire.Reason + " (edited)", Prev: wire.Prev}
	line, err := ev.Line()
	if err != nil {
		return s
	}
	lines[0] = string(line) + "\n"
	return strings.Join(lines, "")
}

// TestIllegitimate runs a short seed and then every illegitimate step:
// CI must fail each one. This never tolerates a miss.
func TestIllegitimate(t *testing.T) {
	bin := tdBin(t)
	w := runSeed(t, bin, 101, options{prs: 1, illegit: true, maxSteps: 300})
	for _, e := range w.stats.harnessErrors {
		t.Error("harness:", e)
	}
	for _, kind := range tamperKinds {
		if w.stats.illegitTried[kind] == 0 {
			t.Errorf("%s: not tried", kind)
			continue
		}
		if w.stats.illegitCaught[kind] != w.stats.illegitTried[kind] {
			t.Errorf("%s: CI caught %d of %d", kind, w.stats.illegitCaught[kind], w.stats.illegitTried[kind])
		}
	}
	if t.Failed() {
		for _, l := range w.log {
			t.Log(l)
		}
	}
}
