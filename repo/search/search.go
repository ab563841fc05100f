// Package search finds issues by their text: titles, descriptions,
// acceptance criteria, todos and their notes, and comments.
//
// It reads the files as text, line by line, without td's markdown and YAML
// parsers: the issue list (status, priority, title) comes from the store's
// index cache, and a file is read only to look for the query's words in
// it. Most issues are not read at all: a filter of each issue's words
// (cache.go, filter.go), kept while its file and its ledger keep their
// stamps, rules out those that cannot hold a word, so a search of 10,000
// issues costs a stat of each issue file and ledger and a read of the
// issues that may match; an issue whose filter is missing or stale is
// read whole (with its ledger, when the ledger facts say it holds
// comments) and its filter rebuilt. An issue matches
// when every word of the query appears in its title, description,
// criteria, todos, notes or comments (case folded); each line that
// holds a word is a match, and the issue's score weighs where its words
// were found: the title most, then criteria and todos, the description,
// notes and comments. Ties go to the more urgent, then the older issue.
package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"unicode"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// Where a match was found.
const (
	InTitle       = "title"
	InDescription = "description"
	InCriterion   = "criterion"
	InTodo        = "todo"
	InNote        = "note"
	InComment     = "comment"
)

// weight is what a word found in each place adds to an issue's score.
var weight = map[string]int{InTitle: 10, InCriterion: 4, InTodo: 4, InDescription: 2, InNote: 1, InComment: 1}

// Options narrow a search.
type Options struct {
	// Open leaves closed issues out.
	Open bool
	// Limit is the most hits returned; 0 for all.
	Limit int
}

// Match is one line of an issue that holds a word of the query.
type Match struct {
	Where string `json:"where"`
	// Line is the 1-based line in the issue file, or in the ledger for a
	// comment.
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Hit is an issue the query matched.
type Hit struct {
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Status   domain.Status   `json:"status"`
	Priority domain.Priority `json:"priority"`
	Score    int             `json:"score"`
	Matches  []Match         `json:"matches"`

	created string
}

// Result is a search's answer.
type Result struct {
	Query string   `json:"query"`
	Words []string `json:"words"`
	// Total counts every issue that matched, Hits the first Limit of them.
	Total int   `json:"total"`
	Hits  []Hit `json:"hits"`
}

// Words splits a query into the words it looks for, case folded: runs of
// letters and digits, and the characters that join words in an ID or a
// name ('-', '_', '.', '/', '#').
func Words(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(Fold(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_./#", r)
	}) {
		w = strings.Trim(w, "-_./#")
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// Run searches the store's issues for query. Unreadable files are
// returned as errors beside the hits.
func Run(s *repo.Store, query string, o Options) (*Result, []error, error) {
	words := Words(query)
	if len(words) == 0 {
		return nil, nil, repo.Errorf(repo.CodeInvalid, "%q has no word to look for; give a word of a title, a todo or a comment", query)
	}
	all, stamps, errs, err := s.LoadAllStamped()
	if err != nil {
		return nil, nil, err
	}
	exists := make(map[string]bool, len(all))
	list := all[:0:0]
	var issueStamps []repo.Stamp
	for i, is := range all {
		exists[is.ID] = true
		if o.Open && is.Status == domain.StatusClosed {
			continue
		}
		list = append(list, is)
		issueStamps = append(issueStamps, stamps[i])
	}
	ledgerNames := make([]string, len(list))
	for i, is := range list {
		ledgerNames[i] = is.ID + ".jsonl"
	}
	ledgerStamps := s.StampFiles(repo.HistoryDir, ledgerNames)
	old := loadCache(s)
	// What each issue needs: nothing (its fresh filter rules a word out),
	// a read, or a read that rebuilds its filter.
	const skip, read, rebuild = 0, 1, 2
	need := make([]byte, len(list))
	for i, is := range list {
		need[i] = rebuild
		if e := old.find(is.ID); e != nil && e.fresh(issueStamps[i], ledgerStamps[i]) {
			need[i] = read
			for _, w := range words {
				if !e.filter.mayHold(w) {
					need[i] = skip
					break
				}
			}
		}
	}
	built := make([]*cacheEntry, len(list))
	hits := make([]*Hit, len(list))
	readErrs := make([]error, len(list))
	repo.ForEach(len(list), repo.IOWorkers(), 64, func(i int) {
		switch need[i] {
		case read:
			hits[i], readErrs[i] = searchIssue(s, list[i], words, nil)
		case rebuild:
			e := &cacheEntry{id: list[i].ID, issue: issueStamps[i], ledger: ledgerStamps[i]}
			hits[i], readErrs[i] = searchIssue(s, list[i], words, e)
			if readErrs[i] == nil && e.filter != nil {
				built[i] = e
			}
		}
	})
	s.SaveLedgerCache() // the ledger facts read, for the next search
	saveCache(s, old, built, exists)
	res := &Result{Query: query, Words: words, Hits: []Hit{}}
	for i, h := range hits {
		if readErrs[i] != nil {
			errs = append(errs, readErrs[i])
		}
		if h != nil {
			res.Hits = append(res.Hits, *h)
		}
	}
	sort.SliceStable(res.Hits, func(i, j int) bool {
		a, b := res.Hits[i], res.Hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		if a.created != b.created {
			return a.created < b.created
		}
		return a.ID < b.ID
	})
	res.Total = len(res.Hits)
	if o.Limit > 0 && len(res.Hits) > o.Limit {
		res.Hits = res.Hits[:o.Limit]
	}
	return res, errs, nil
}

// searchIssue matches one issue: nil when some word appears nowhere in it.
// Given an entry to build, it also reads the comments whatever the words
// and builds the issue's filter from what it read.
func searchIssue(s *repo.Store, is *repo.Issue, words []string, build *cacheEntry) (*Hit, error) {
	body, err := s.ReadRaw(repo.IssuesDir, is.ID+".md")
	if err != nil {
		return nil, err
	}
	found := make([]bool, len(words))
	title := Fold(is.Title)
	for i, w := range words {
		found[i] = strings.Contains(title, w) || containsFold(body, w)
	}
	var ledger []byte
	commented := true // unless the ledger's facts say it holds no comment
	if f, err := s.LedgerFactsOf(is.ID); err == nil && !f.Commented {
		commented = false
	}
	if build != nil {
		if commented {
			if ledger, err = readLedger(s, is.ID); err != nil {
				return nil, err
			}
		}
		texts := []string{title, Fold(string(body))}
		for _, c := range comments(ledger) {
			texts = append(texts, Fold(c.text))
		}
		build.filter = newFilter(texts...)
	}
	if !all(found) {
		if !commented {
			return nil, nil // only comments are searched in a ledger
		}
		// Only a ledger that holds the missing words is worth reading.
		if ledger == nil {
			if ledger, err = readLedger(s, is.ID); err != nil {
				return nil, err
			}
		}
		for i, w := range words {
			found[i] = found[i] || containsFold(ledger, w)
		}
		if !all(found) {
			return nil, nil
		}
	}
	h := &Hit{ID: is.ID, Title: is.Title, Status: is.Status, Priority: is.Priority, created: is.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")}
	scored := map[string][]bool{} // a word counts once per place
	seen := make([]bool, len(words))
	score := func(where, text string) bool {
		t := Fold(text)
		hit := false
		for i, w := range words {
			if !strings.Contains(t, w) {
				continue
			}
			hit, seen[i] = true, true
			sc := scored[where]
			if sc == nil {
				sc = make([]bool, len(words))
				scored[where] = sc
			}
			if !sc[i] {
				sc[i] = true
				h.Score += weight[where]
			}
		}
		return hit
	}
	if score(InTitle, is.Title) {
		h.Matches = append(h.Matches, Match{Where: InTitle, Line: titleLine(body), Text: is.Title})
	}
	for _, l := range bodyLines(body) {
		if score(l.where, l.text) {
			h.Matches = append(h.Matches, Match{Where: l.where, Line: l.n, Text: l.text})
		}
	}
	if ledger == nil && commented {
		if ledger, err = readLedger(s, is.ID); err != nil {
			return nil, err
		}
	}
	for _, c := range comments(ledger) {
		if score(InComment, c.text) {
			h.Matches = append(h.Matches, Match{Where: InComment, Line: c.line, Text: c.text})
		}
	}
	if !all(seen) {
		return nil, nil // a word was only in frontmatter keys or ledger fields
	}
	return h, nil
}

// readLedger reads an issue's ledger: nil when it has none.
func readLedger(s *repo.Store, id string) ([]byte, error) {
	ledger, err := s.ReadRaw(repo.HistoryDir, id+".jsonl")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return ledger, nil
}

// comment is a comment of a ledger and its line there.
type comment struct {
	line int
	text string
}

// comments are the comments a ledger records, in order, each once: a
// line that repeats an earlier one is the same entry arrived twice.
func comments(ledger []byte) []comment {
	var out []comment
	seen := map[string]bool{}
	for n, line := range bytes.Split(ledger, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"commented"`)) {
			continue
		}
		line = bytes.TrimSpace(line)
		if seen[string(line)] {
			continue
		}
		seen[string(line)] = true
		var e struct {
			Action string `json:"action"`
			Text   string `json:"text"`
		}
		if json.Unmarshal(line, &e) != nil || e.Action != "commented" {
			continue
		}
		out = append(out, comment{n + 1, e.Text})
	}
	return out
}

func all(b []bool) bool {
	for _, v := range b {
		if !v {
			return false
		}
	}
	return true
}

// titleLine is the line of the frontmatter's title key, 0 if not found.
func titleLine(body []byte) int {
	for n, l := range bytes.Split(body, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("title:")) {
			return n + 1
		}
	}
	return 0
}

// line is one line of an issue file's body with what it is.
type line struct {
	n     int
	where string
	text  string
}

// bodyLines classifies the body's lines (after the frontmatter) the way a
// reader sees them: list items under "## Acceptance criteria" are
// criteria, other checklist items todos, "> " lines under an item its
// notes, headings and blank lines nothing, the rest description. Code
// fences are description.
func bodyLines(file []byte) []line {
	lines := strings.Split(string(file), "\n")
	start := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				start = i + 1
				break
			}
		}
	}
	var out []line
	section := ""
	for i := start; i < len(lines); i++ {
		raw := strings.TrimRight(lines[i], "\r")
		t := strings.TrimSpace(raw)
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "#"):
			h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "#")))
			switch {
			case strings.HasPrefix(h, "acceptance criteria"):
				section = InCriterion
			case strings.HasPrefix(h, "todos"):
				section = InTodo
			case section == "":
			default:
				// a phase heading inside the todos keeps the section
			}
			continue
		}
		where := InDescription
		text := t
		switch {
		case strings.HasPrefix(t, ">") && section != "":
			where, text = InNote, strings.TrimSpace(strings.TrimPrefix(t, ">"))
		case isItem(t) && section != "":
			where, text = section, itemText(t)
		}
		out = append(out, line{n: i + 1, where: where, text: text})
	}
	return out
}

// isItem reports a checklist item line: "- [ ] text", "* [x] text".
func isItem(t string) bool {
	return len(t) >= 6 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' && t[2] == '[' && t[4] == ']'
}

func itemText(t string) string { return strings.TrimSpace(t[5:]) }
