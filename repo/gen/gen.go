// Package gen generates a td repository of realistic size for benchmarks:
// a git work tree holding a .todos tree of n issue files, each with a
// description, acceptance criteria and twenty todos, and a ledger per issue,
// all staged into the git index. Both the Go benchmarks of package repo and
// the tdbench command use it, so that they measure the same data.
package gen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/gitrepo"
)

// Identity of the generated repository's operator and its session. Set
// GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL and TD_SESSION to these when running td
// against a generated repository so that no session is created on the way.
const (
	AuthorName  = "Bench Operator"
	AuthorEmail = "bench@example.com"
	Session     = "ses_bench001"
)

const (
	idLen   = 6
	base36  = "0123456789abcdefghijklmnopqrstuvwxyz"
	idSpace = 36 * 36 * 36 * 36 * 36 * 36
	// idStep is coprime with 36^6, so i*idStep mod 36^6 is a bijection and
	// the IDs of 0..n-1 are distinct and spread over the whole space.
	idStep   = 1_000_003
	idOffset = 123_456_789
)

// ID returns the ID of the i-th generated issue. IDs are distinct for every
// i below 36^6 and the same on every run.
func ID(i int) string {
	v := (uint64(i)*idStep + idOffset) % idSpace
	var b [idLen]byte
	for k := idLen - 1; k >= 0; k-- {
		b[k] = base36[v%36]
		v /= 36
	}
	return "td-" + string(b[:])
}

// IDs returns the IDs of the first n generated issues.
func IDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = ID(i)
	}
	return out
}

// UniquePrefix returns one of ids together with the first k characters of
// its part after "td-", chosen so that no other ID in ids starts with the
// same k characters: the short reference a person would type.
func UniquePrefix(ids []string, k int) (id, prefix string, ok bool) {
	count := map[string]int{}
	short := func(id string) string {
		_, suf, _ := strings.Cut(id, "-")
		return suf[:min(k, len(suf))]
	}
	for _, id := range ids {
		count[short(id)]++
	}
	for _, id := range ids[len(ids)/2:] {
		if p := short(id); count[p] == 1 {
			return id, p, true
		}
	}
	return "", "", false
}

var (
	statuses   = domain.Words([]domain.Status{domain.StatusOpen, domain.StatusOpen, domain.StatusOpen, domain.StatusInProgress, domain.StatusBlocked, domain.StatusInReview, domain.StatusClosed, domain.StatusClosed})
	types      = []string{"bug", "feature", "task", "task", "chore", "epic"}
	priorities = []string{"P0", "P1", "P1", "P2", "P2", "P2", "P3", "P4"}
	labelSets  = [][]string{{}, {"auth"}, {"ui"}, {"backend", "api"}, {"docs"}, {"perf", "backend"}, {}, {"ui", "a11y"}}
	subjects   = []string{"sign-in flow", "export to CSV", "search index", "billing page", "webhook retries",
		"settings screen", "rate limiter", "audit log", "mobile layout", "session timeout"}
	verbs   = []string{"Fix", "Add", "Speed up", "Refactor", "Document", "Test", "Harden", "Simplify"}
	markers = []string{"[x]", "[x]", "[x]", "[/]", "[ ]", "[ ]", "[ ]", "[-]"}
)

var epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Issue returns the file content of the i-th generated issue.
func Issue(i int) []byte {
	var b strings.Builder
	id := ID(i)
	subject := subjects[i%len(subjects)]
	title := fmt.Sprintf("%s the %s (%d)", verbs[i%len(verbs)], subject, i)
	status := statuses[i%len(statuses)]
	created := epoch.Add(time.Duration(i) * 7 * time.Minute)
	updated := created.Add(time.Duration(i%50) * time.Hour)
	impl, assignee, resolution := `""`, `""`, `""`
	if status != "open" {
		impl = fmt.Sprintf("ses_impl%04d", i%10000)
	}
	if status == string(domain.StatusInProgress) || status == string(domain.StatusBlocked) {
		assignee = "session:" + impl
	}
	if status == "closed" {
		resolution = "done"
	}
	labels := labelSets[i%len(labelSets)]
	b.WriteString("---\n")
	fmt.Fprintf(&b, "id: %s\n", id)
	fmt.Fprintf(&b, "title: %s\n", title)
	fmt.Fprintf(&b, "status: %s\n", status)
	fmt.Fprintf(&b, "type: %s\n", types[i%len(types)])
	fmt.Fprintf(&b, "priority: %s\n", priorities[(i/3)%len(priorities)])
	fmt.Fprintf(&b, "minor: %t\n", i%11 == 0)
	fmt.Fprintf(&b, "labels: [%s]\n", strings.Join(labels, ", "))
	fmt.Fprintf(&b, "created_by: %s\n", Session)
	fmt.Fprintf(&b, "implementer: %s\n", impl)
	fmt.Fprintf(&b, "assignee: %s\n", assignee)
	fmt.Fprintf(&b, "resolution: %s\n", resolution)
	if i%4 == 1 && i > 0 {
		fmt.Fprintf(&b, "links:\n  - {kind: child_of, to: %s}\n", ID(i-1))
	} else {
		b.WriteString("links: []\n")
	}
	fmt.Fprintf(&b, "created_at: %s\n", created.Format(time.RFC3339))
	fmt.Fprintf(&b, "updated_at: %s\n", updated.Format(time.RFC3339))
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "The %s misbehaves when several users act at once: requests time out, the\n", subject)
	b.WriteString("retry path logs the same error twice, and the page shows a stale state until\n")
	b.WriteString("it is reloaded. This issue covers the fix, its tests and the documentation.\n\n")
	b.WriteString("## Acceptance criteria\n\n")
	fmt.Fprintf(&b, "- %s Concurrent requests to the %s succeed\n", markers[i%3], subject)
	b.WriteString("- [ ] The error is logged once, with the request ID\n")
	b.WriteString("- [ ] The page shows the current state without a reload\n\n")
	b.WriteString("## Todos\n\n### Phase 1: investigate\n")
	started := false // a valid checklist has at most one todo in progress
	for k := 0; k < 17; k++ {
		if k == 8 {
			b.WriteString("\n### Phase 2: fix and test\n")
		}
		marker := markers[(i+k)%len(markers)]
		if marker == "[/]" {
			if started {
				marker = "[ ]"
			}
			started = true
		}
		fmt.Fprintf(&b, "- %s Step %d for the %s: check the handler and its callers\n", marker, k+1, subject)
		if k%5 == 2 {
			fmt.Fprintf(&b, "  > note on step %d: seen in production logs on %s\n", k+1, created.Format("2006-01-02"))
		}
	}
	return []byte(b.String())
}

// Ledger returns the ledger file content of the i-th generated issue.
func Ledger(i int) ([]byte, error) {
	created := epoch.Add(time.Duration(i) * 7 * time.Minute)
	entries := []audit.Entry{
		{TS: created, Session: Session, Action: audit.ActionCreated, Details: map[string]any{"title": fmt.Sprintf("issue %d", i)}},
	}
	for c := 0; c < i%3; c++ {
		entries = append(entries, audit.Entry{TS: created.Add(time.Duration(c+1) * time.Hour), Session: Session,
			Action: audit.ActionCommented, Details: map[string]any{"text": fmt.Sprintf("Comment %d: looked into it, details in the PR.", c+1)}})
	}
	var out []byte
	for _, e := range entries {
		line, err := e.Line()
		if err != nil {
			return nil, err
		}
		out = append(out, line...)
	}
	return out, nil
}

const config = `# td configuration. Committed: every clone shares it.
id_prefix: td
operators:
  - ` + AuthorName + ` <` + AuthorEmail + `>
features: {}
git:
  mode: stage
language: ""
agents: {}
`

const session = `id: ` + Session + `
name: ` + AuthorName + `
role: operator
category: project
author: ` + AuthorName + ` <` + AuthorEmail + `>
created_at: 2026-01-05T08:00:00Z
`

// Generate creates a git repository in dir (which must not hold one yet)
// with a .todos tree of n issues and their ledgers, and stages every file
// in one Stage call, so that the git index holds about 2n+4 entries.
func Generate(dir string, n int) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return fmt.Errorf("%s already holds a git repository", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	g, err := gitrepo.Init(dir)
	if err != nil {
		return err
	}
	root := g.Root()
	files := map[string][]byte{
		".gitattributes":                       []byte(".todos/**/*.jsonl merge=union\n.todos/issues/*.md merge=td\n"),
		".todos/.gitignore":                    []byte("local/\n"),
		".todos/config.yaml":                   []byte(config),
		".todos/sessions/" + Session + ".yaml": []byte(session),
	}
	for _, d := range []string{"issues", "history", "sessions", "local"} {
		if err := os.MkdirAll(filepath.Join(root, ".todos", d), 0o755); err != nil {
			return err
		}
	}
	// Files a checkout wrote an hour ago, not this instant: a file modified
	// within the index cache's racy window would be re-read on every run.
	past := time.Now().Add(-time.Hour)
	paths := make([]string, 0, 2*n+len(files))
	for rel, data := range files {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), data, 0o644); err != nil {
			return err
		}
		paths = append(paths, rel)
	}
	for i := 0; i < n; i++ {
		id := ID(i)
		rel := ".todos/issues/" + id + ".md"
		full := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.WriteFile(full, Issue(i), 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(full, past, past); err != nil {
			return err
		}
		led, err := Ledger(i)
		if err != nil {
			return err
		}
		lrel := ".todos/history/" + id + ".jsonl"
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(lrel)), led, 0o644); err != nil {
			return err
		}
		paths = append(paths, rel, lrel)
	}
	if err := g.Stage(paths...); err != nil {
		return fmt.Errorf("stage the generated files: %w", err)
	}
	return nil
}
