package teamsim

import (
	"strings"
	"testing"
)

// The simulator judges td with rules of its own; these tables check the
// rules, so that a violation it reports is td's and not the model's.

// issueFile builds an issue file from its frontmatter fields (in order)
// and its body.
func issueFile(fields [][2]string, body string) string {
	var b strings.Builder
	b.WriteString("---\n")
	for _, f := range fields {
		b.WriteString(f[0] + ": " + f[1] + "\n")
	}
	b.WriteString("---\n" + body)
	return b.String()
}

var baseFields = [][2]string{
	{"id", "td-aaaaaa"}, {"title", "A"}, {"status", "open"}, {"type", "task"}, {"priority", "P2"},
	{"labels", "[ui]"}, {"implementer", `""`}, {"assignee", `""`}, {"links", "[]"},
}

func withField(fields [][2]string, key, value string) [][2]string {
	out := append([][2]string{}, fields...)
	for i := range out {
		if out[i][0] == key {
			out[i][1] = value
		}
	}
	return out
}

const baseBody = `
The description.

## Acceptance criteria

- [ ] c1
- [ ] c2

## Todos

### Backend
- [/] s1
  > a note
- [ ] s2
- [ ] s3
`

func TestParseIssue(t *testing.T) {
	d := parseIssue(issueFile(baseFields, baseBody))
	if !d.ok {
		t.Fatal("does not parse")
	}
	if d.fields["status"] != "open" || d.fields["implementer"] != "" || setString(d.sets["labels"]) != "ui" {
		t.Errorf("fields: %v sets: %v", d.fields, d.sets)
	}
	var keys []string
	for _, it := range d.todos {
		keys = append(keys, it.key()+"["+it.marker+"]")
	}
	if got, want := strings.Join(keys, " "), "criterion||c1[ ] criterion||c2[ ] step|Backend|s1[/] step|Backend|s2[ ] step|Backend|s3[ ]"; got != want {
		t.Errorf("todos: %q, want %q", got, want)
	}
	if it, n := d.todo("step|Backend|s1"); n != 1 || len(it.notes) != 1 || it.notes[0] != "a note" {
		t.Errorf("s1: %+v ×%d", it, n)
	}
	if strings.Join(d.prose, "|") != "The description." {
		t.Errorf("prose: %q", d.prose)
	}
	if c := parseIssue(issueFile(baseFields, "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n")); !c.conflicted || c.ok {
		t.Errorf("conflict markers: %+v", c)
	}
	links := parseIssue(issueFile(withField(baseFields, "links", "\n  - {kind: blocked_by, to: td-bbbbbb}"), ""))
	if setString(links.sets["links"]) != "blocked_by:td-bbbbbb" {
		t.Errorf("links: %v", links.sets["links"])
	}
}

func TestThree(t *testing.T) {
	for _, c := range []struct {
		b, o, t, want string
		decided       bool
	}{
		{"a", "a", "a", "a", true},
		{"a", "b", "a", "b", true},
		{"a", "a", "c", "c", true},
		{"a", "b", "b", "b", true},
		{"a", "b", "c", "", false},
	} {
		if got, ok := three(c.b, c.o, c.t); got != c.want || ok != c.decided {
			t.Errorf("three(%q, %q, %q) = %q, %v", c.b, c.o, c.t, got, ok)
		}
	}
}

func TestCheckMerge(t *testing.T) {
	base := issueFile(baseFields, baseBody)
	renamed := issueFile(withField(baseFields, "title", "B"), baseBody)
	started := issueFile(withField(withField(baseFields, "status", "in_progress"), "implementer", "ses_1"), baseBody)
	both := issueFile(withField(withField(withField(baseFields, "status", "in_progress"), "implementer", "ses_1"), "title", "B"), baseBody)
	appended := issueFile(baseFields, strings.Replace(baseBody, "The description.\n", "The description.\n\nMore.\n", 1))
	doubled := issueFile(baseFields, strings.Replace(baseBody, "The description.\n", "The description.\n\nMore.\n\nMore.\n", 1))
	p := ".todos/issues/td-aaaaaa.md"
	ledger := ".todos/history/td-aaaaaa.jsonl"
	for _, c := range []struct {
		name        string
		b, o, t, r  map[string]string
		wantClasses []string
		wantDoubled int
	}{
		{"both sides kept", map[string]string{p: base}, map[string]string{p: renamed}, map[string]string{p: started}, map[string]string{p: both}, nil, 0},
		{"a field lost", map[string]string{p: base}, map[string]string{p: renamed}, map[string]string{p: started}, map[string]string{p: started},
			[]string{"a field changed on one side lost its value"}, 0},
		{"the same paragraph on both sides is kept once", map[string]string{p: base}, map[string]string{p: appended}, map[string]string{p: appended}, map[string]string{p: appended}, nil, 0},
		{"a paragraph doubled", map[string]string{p: base}, map[string]string{p: appended}, map[string]string{p: base}, map[string]string{p: doubled},
			[]string{"a line of the description is doubled"}, 0},
		{"a todo deleted on one side and done on the other may stay", map[string]string{p: base},
			map[string]string{p: issueFile(baseFields, strings.Replace(baseBody, "- [ ] s3\n", "", 1))},
			map[string]string{p: issueFile(baseFields, strings.Replace(baseBody, "- [ ] s3", "- [x] s3", 1))},
			map[string]string{p: issueFile(baseFields, strings.Replace(baseBody, "- [ ] s3", "- [x] s3", 1))}, nil, 0},
		{"a todo deleted on one side and left alone on the other stays deleted", map[string]string{p: base},
			map[string]string{p: issueFile(baseFields, strings.Replace(baseBody, "- [ ] s3\n", "", 1))},
			map[string]string{p: issueFile(baseFields, strings.Replace(baseBody, "- [ ] s2", "- [x] s2", 1))},
			map[string]string{p: issueFile(baseFields, strings.Replace(baseBody, "- [ ] s2", "- [x] s2", 1))},
			[]string{"a todo deleted on one side came back"}, 0},
		{"a ledger line lost", map[string]string{ledger: "{1}\n"}, map[string]string{ledger: "{1}\n{2}\n"}, map[string]string{ledger: "{1}\n{3}\n"}, map[string]string{ledger: "{1}\n{2}\n"},
			[]string{"a ledger line is lost in the merge"}, 0},
		{"a ledger line twice", map[string]string{ledger: "{1}\n"}, map[string]string{ledger: "{1}\n{2}\n"}, map[string]string{ledger: "{1}\n{2}\n"}, map[string]string{ledger: "{1}\n{2}\n{2}\n"},
			nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs, doubled := checkMerge(mergeCase{base: c.b, ours: c.o, theirs: c.t, result: c.r})
			var classes []string
			for _, f := range fs {
				classes = append(classes, f.class)
			}
			if strings.Join(classes, "; ") != strings.Join(c.wantClasses, "; ") || doubled != c.wantDoubled {
				t.Errorf("got %q and %d doubled, want %q and %d", classes, doubled, c.wantClasses, c.wantDoubled)
			}
		})
	}
}

func TestClassifyConflict(t *testing.T) {
	base := issueFile(baseFields, baseBody)
	descOnly := issueFile(baseFields, "\nThe description.\n")
	for _, c := range []struct {
		name   string
		b      string
		o, t   string
		driver bool
		legit  bool
	}{
		{"rename and start, plain git", base, issueFile(withField(baseFields, "title", "B"), baseBody),
			issueFile(withField(withField(baseFields, "status", "in_progress"), "implementer", "ses_1"), baseBody), false, false},
		{"the same field differently", base, issueFile(withField(baseFields, "title", "B"), baseBody), issueFile(withField(baseFields, "title", "C"), baseBody), true, true},
		{"adjacent todos, plain git", base, issueFile(baseFields, strings.Replace(baseBody, "- [ ] s2", "- [x] s2", 1)),
			issueFile(baseFields, strings.Replace(baseBody, "- [ ] s3", "- [x] s3", 1)), false, true},
		{"adjacent todos, driver", base, issueFile(baseFields, strings.Replace(baseBody, "- [ ] s2", "- [x] s2", 1)),
			issueFile(baseFields, strings.Replace(baseBody, "- [ ] s3", "- [x] s3", 1)), true, false},
		{"todos far apart, plain git", base, issueFile(baseFields, strings.Replace(baseBody, "- [ ] c1", "- [x] c1", 1)),
			issueFile(baseFields, strings.Replace(baseBody, "- [ ] s3", "- [x] s3", 1)), false, false},
		{"first criterion and first step", descOnly, issueFile(baseFields, "\nThe description.\n\n## Acceptance criteria\n\n- [ ] c\n"),
			issueFile(baseFields, "\nThe description.\n\n## Todos\n\n- [/] s\n"), true, false},
		{"both changed the description", descOnly, issueFile(baseFields, "\nThe description.\n\nOne.\n"), issueFile(baseFields, "\nThe description.\n\nTwo.\n"), true, true},
		{"a file both sides added, the status apart, driver", "", issueFile(withField(baseFields, "status", "in_progress"), baseBody),
			issueFile(baseFields, baseBody), true, true},
		{"a file both sides added, labels apart, driver", "", issueFile(withField(baseFields, "labels", "[ui, auth]"), baseBody),
			issueFile(baseFields, baseBody), true, false},
		{"a file both sides added, plain git", "", issueFile(withField(baseFields, "labels", "[ui, auth]"), baseBody),
			issueFile(baseFields, baseBody), false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			legit, kinds, family, _ := classifyConflict(c.b, c.o, c.t, c.driver)
			if legit != c.legit {
				t.Errorf("legit = %v (%s; %s), want %v", legit, kinds, family, c.legit)
			}
		})
	}
}

func TestResolveIssue(t *testing.T) {
	fm := func(status, links string) string {
		return "---\nid: td-aaaaaa\nstatus: " + status + "\nlabels: []\nlinks:" + links + "\n---\n"
	}
	for _, c := range []struct {
		name, base, ours, theirs string
		pick                     int
		want                     string
	}{
		{
			"both moved the status; each side's todos kept where they belong",
			fm("open", " []") + "\n## Acceptance criteria\n\n- [ ] c1\n\n## Todos\n\n- [ ] s1\n",
			fm("in_progress", " []") + "\n## Acceptance criteria\n\n- [x] c1\n  > a note\n\n## Todos\n\n- [x] s1\n- [ ] s2\n",
			fm("closed", " []") + "\n## Acceptance criteria\n\n- [ ] c1\n- [ ] c2\n\n## Todos\n\n- [ ] s1\n",
			1,
			fm("closed", " []") + "\n## Acceptance criteria\n\n- [x] c1\n  > a note\n- [ ] c2\n\n## Todos\n\n- [x] s1\n- [ ] s2\n",
		},
		{
			"a paragraph on each side, the first criteria on one",
			fm("open", " []") + "\nThe description.\n\n## Todos\n\n- [ ] s1\n",
			fm("open", " []") + "\nThe description.\n\nOurs.\n\n## Todos\n\n- [ ] s1\n",
			fm("open", " []") + "\nThe description.\n\nTheirs.\n\n## Acceptance criteria\n\n- [ ] c1\n\n## Todos\n\n- [ ] s1\n",
			0,
			fm("open", " []") + "\nThe description.\n\nOurs.\n\nTheirs.\n\n## Acceptance criteria\n\n- [ ] c1\n\n## Todos\n\n- [ ] s1\n",
		},
		{
			"a note on the last criterion, the first step on the other side",
			fm("open", " []") + "\n## Acceptance criteria\n\n- [ ] c1\n",
			fm("open", " []") + "\n## Acceptance criteria\n\n- [ ] c1\n\n## Todos\n\n- [/] s1\n",
			fm("open", " []") + "\n## Acceptance criteria\n\n- [ ] c1\n  > a note\n",
			0,
			fm("open", " []") + "\n## Acceptance criteria\n\n- [ ] c1\n  > a note\n\n## Todos\n\n- [/] s1\n",
		},
		{
			"labels added on both sides: a block list, the empty line after it kept; an empty section is its heading",
			"---\nid: td-aaaaaa\nstatus: open\n\nlabels: []\n\nlinks: []\n---\n\n## Acceptance criteria\n\n## Todos\n",
			"---\nid: td-aaaaaa\nstatus: open\n\nlabels:\n  - a\n\nlinks: []\n---\n\n## Acceptance criteria\n\n## Todos\n",
			"---\nid: td-aaaaaa\nstatus: open\n\nlabels:\n  - b\n\nlinks: []\n---\n\n## Acceptance criteria\n\n## Todos\n\n- [/] s1\n",
			0,
			"---\nid: td-aaaaaa\nstatus: open\n\nlabels:\n  - a\n  - b\n\nlinks: []\n---\n\n## Acceptance criteria\n\n## Todos\n\n- [/] s1\n",
		},
		{
			"links added on both sides",
			fm("open", " []"),
			fm("open", "\n  - {kind: blocked_by, to: td-bbbbbb}"),
			fm("open", "\n  - {kind: relates_to, to: td-cccccc}"),
			0,
			fm("open", "\n  - {kind: blocked_by, to: td-bbbbbb}\n  - {kind: relates_to, to: td-cccccc}"),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := resolveIssue(c.base, c.ours, c.theirs, func() int { return c.pick })
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			if !parseIssue(got).ok {
				t.Error("td's layout is not what the model reads")
			}
		})
	}
}

func TestMarkedBeyondConflict(t *testing.T) {
	file := "---\n<<<<<<< ours\ntitle: B\nstatus: in_progress\n=======\ntitle: A\nstatus: closed\n>>>>>>> theirs\n---\n"
	if beyond, unit := markedBeyondConflict(file, map[string]bool{"field:status": true}); !beyond || unit != "field:title" {
		t.Errorf("title marked with status: %v %q", beyond, unit)
	}
	if beyond, unit := markedBeyondConflict(file, map[string]bool{"field:status": true, "field:title": true}); beyond {
		t.Errorf("both fields conflict, yet %q reported", unit)
	}
	// A todo is marked with its notes.
	todo := "## Todos\n\n<<<<<<< ours\n- [-] s5\n=======\n- [!] s5\n  > blocked: waiting\n>>>>>>> theirs\n- [ ] s6\n"
	if beyond, unit := markedBeyondConflict(todo, map[string]bool{"todo:s5": true}); beyond {
		t.Errorf("a todo both sides changed, marked with its note, yet %q reported", unit)
	}
	if beyond, unit := markedBeyondConflict(todo, map[string]bool{"todo:s6": true}); !beyond || unit != "todo:s5" {
		t.Errorf("s5 marked, only s6 changed on both sides: %v %q", beyond, unit)
	}
}

func TestNormalize(t *testing.T) {
	got := normalize(`.todos/issues/td-k3x9qa.md:4: status is open, but ses_c81kd0zz moved it to "in_review" at 2026-11-21T10:04:11Z (line 12) in /dev/shm/teamsim-3-123/alice`)
	want := `status is open, but ses_… moved it to "…" at <time> (line N) in <dir>`
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
