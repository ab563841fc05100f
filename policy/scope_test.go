package policy

import (
	"path/filepath"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

// defaultMeta mirrors the meta_paths td init writes.
var defaultMeta = []string{
	".todos/config.yaml",
	".todos/history/",
	".todos/sessions/",
	".todos/security_events.jsonl",
	".todos/anchors.md",
	".todos/.gitignore",
	".gitattributes",
}

func TestJudgeScopeMatrix(t *testing.T) {
	const (
		refusedMeta = "meta path; a project session changes it only through td commands: run td as a meta session (td session start --category meta) or ask an operator"
		refusedCode = "user code; a meta session may change only meta paths and issue files: run it as a project session or ask an operator"
	)
	type want struct {
		allowed bool
		reason  string
	}
	classes := []PathClass{ClassCode, ClassIssue, ClassMeta, ClassLocal, ClassOutside}
	// table[role][category][class][writtenByTd]
	table := map[domain.Role]map[domain.Category]map[PathClass][2]want{
		domain.RoleOperator: {
			domain.CategoryProject: {
				ClassCode:    {{true, "operators may change anything"}, {true, "operators may change anything"}},
				ClassIssue:   {{true, "operators may change anything"}, {true, "operators may change anything"}},
				ClassMeta:    {{true, "operators may change anything"}, {true, "operators may change anything"}},
				ClassLocal:   {{true, "local state under .todos/local, never committed"}, {true, "local state under .todos/local, never committed"}},
				ClassOutside: {{true, "outside the work tree, which scopes do not cover"}, {true, "outside the work tree, which scopes do not cover"}},
			},
			domain.CategoryMeta: {
				ClassCode:    {{true, "operators may change anything"}, {true, "operators may change anything"}},
				ClassIssue:   {{true, "operators may change anything"}, {true, "operators may change anything"}},
				ClassMeta:    {{true, "operators may change anything"}, {true, "operators may change anything"}},
				ClassLocal:   {{true, "local state under .todos/local, never committed"}, {true, "local state under .todos/local, never committed"}},
				ClassOutside: {{true, "outside the work tree, which scopes do not cover"}, {true, "outside the work tree, which scopes do not cover"}},
			},
		},
		domain.RoleAgent: {
			domain.CategoryProject: {
				ClassCode:    {{true, "user code, open to project sessions"}, {true, "user code, open to project sessions"}},
				ClassIssue:   {{true, "issue file, open to every session"}, {true, "issue file, open to every session"}},
				ClassMeta:    {{false, refusedMeta}, {true, "meta path, written by td"}},
				ClassLocal:   {{true, "local state under .todos/local, never committed"}, {true, "local state under .todos/local, never committed"}},
				ClassOutside: {{true, "outside the work tree, which scopes do not cover"}, {true, "outside the work tree, which scopes do not cover"}},
			},
			domain.CategoryMeta: {
				ClassCode:    {{false, refusedCode}, {false, refusedCode}},
				ClassIssue:   {{true, "issue file, open to every session"}, {true, "issue file, open to every session"}},
				ClassMeta:    {{true, "meta path, open to meta sessions"}, {true, "meta path, open to meta sessions"}},
				ClassLocal:   {{true, "local state under .todos/local, never committed"}, {true, "local state under .todos/local, never committed"}},
				ClassOutside: {{true, "outside the work tree, which scopes do not cover"}, {true, "outside the work tree, which scopes do not cover"}},
			},
		},
	}
	for _, role := range []domain.Role{domain.RoleOperator, domain.RoleAgent} {
		for _, cat := range []domain.Category{domain.CategoryProject, domain.CategoryMeta} {
			for _, class := range classes {
				for i, written := range []bool{false, true} {
					w := table[role][cat][class][i]
					got := JudgeScope(ScopeFacts{Role: role, Category: cat, Class: class, WrittenByTd: written})
					if got.Allowed != w.allowed || got.Reason != w.reason {
						t.Errorf("%s %s %s written=%v: got %+v, want %+v", role, cat, class, written, got, w)
					}
				}
			}
		}
	}
	// What a merge brought in passes as td's own writes do, for project
	// agents only where it matters.
	if got := JudgeScope(ScopeFacts{Role: domain.RoleAgent, Category: domain.CategoryProject, Class: ClassMeta, Merged: true}); !got.Allowed || got.Reason != "meta path, as the merge brought it" {
		t.Errorf("merged meta path: %+v", got)
	}
	if got := JudgeScope(ScopeFacts{Role: domain.RoleAgent, Category: domain.CategoryMeta, Class: ClassCode, Merged: true}); got.Allowed {
		t.Errorf("a merge let a meta agent change code: %+v", got)
	}
	// A session without a category is a project session.
	if got := JudgeScope(ScopeFacts{Role: domain.RoleAgent, Class: ClassMeta}); got.Allowed || got.Reason != refusedMeta {
		t.Errorf("empty category: %+v", got)
	}
	if got := JudgeScope(ScopeFacts{Role: domain.RoleAgent, Class: ClassCode}); !got.Allowed {
		t.Errorf("empty category on code: %+v", got)
	}
}

func TestClassify(t *testing.T) {
	m := ScopeMap{Root: "/w", MetaPaths: defaultMeta}
	for _, tc := range []struct {
		rel  string
		want PathClass
	}{
		{"main.go", ClassCode},
		{"src/app/main.go", ClassCode},
		{".todos/config.yaml", ClassMeta},
		{".todos/config.yaml.bak", ClassCode},
		{".todos/config.yam", ClassCode},
		{".todos/history/td-qkm5oz.jsonl", ClassMeta},
		{".todos/history", ClassMeta},
		{".todos/history/", ClassMeta},
		{".todos/historyx/a", ClassCode},
		{".todos/sessions/ses_qmt3y9ft.yaml", ClassMeta},
		{".todos/security_events.jsonl", ClassMeta},
		{".todos/anchors.md", ClassMeta},
		{".todos/.gitignore", ClassMeta},
		{".gitattributes", ClassMeta},
		{"sub/.gitattributes", ClassCode},
		{".todos/issues/td-qkm5oz.md", ClassIssue},
		{".todos/issues", ClassIssue},
		{".todos/issuesx.md", ClassCode},
		{".todos/local/current", ClassLocal},
		{".todos/local", ClassLocal},
		{".todos/localx", ClassCode},
		{".todos/other.txt", ClassCode},
		// A directory holding meta paths is meta: changing it changes them.
		{".todos", ClassMeta},
		{".", ClassMeta},
		// git's own files.
		{".git/hooks/pre-commit", ClassMeta},
		{".git", ClassMeta},
		{".GIT/config", ClassMeta},
		// Case matters unless the file system folds it.
		{".TODOS/config.yaml", ClassCode},
		{".todos/Config.yaml", ClassCode},
	} {
		if got := m.Classify(tc.rel); got != tc.want {
			t.Errorf("Classify(%q) = %s, want %s", tc.rel, got, tc.want)
		}
	}
}

func TestClassifyFoldCase(t *testing.T) {
	m := ScopeMap{Root: "/w", MetaPaths: defaultMeta, FoldCase: true}
	for rel, want := range map[string]PathClass{
		".TODOS/config.yaml":     ClassMeta,
		".todos/History/x.jsonl": ClassMeta,
		".Todos/Issues/td-a.md":  ClassIssue,
		".todos/LOCAL/current":   ClassLocal,
		"Main.go":                ClassCode,
	} {
		if got := m.Classify(rel); got != want {
			t.Errorf("Classify(%q) = %s, want %s", rel, got, want)
		}
	}
}

func TestClassifyEntries(t *testing.T) {
	// Entries are cleaned: leading ./ and /, doubled and trailing slashes,
	// dot segments; entries leaving the tree are ignored.
	m := ScopeMap{Root: "/w", MetaPaths: []string{"./ci//", "/deploy/prod.yaml", "a/../tools/", "../escape", "..", "", "  ", "docs/x/.."}}
	for rel, want := range map[string]PathClass{
		"ci/build.yaml":      ClassMeta,
		"ci":                 ClassMeta,
		"deploy/prod.yaml":   ClassMeta,
		"deploy/dev.yaml":    ClassCode,
		"deploy":             ClassMeta,
		"tools/lint.sh":      ClassMeta,
		"a/x":                ClassCode,
		"escape":             ClassCode,
		"docs/readme.md":     ClassMeta,
		"README.md":          ClassCode,
		".todos/issues/x":    ClassIssue,
		".todos/config.yaml": ClassCode, // not listed in this config
	} {
		if got := m.Classify(rel); got != want {
			t.Errorf("Classify(%q) = %s, want %s", rel, got, want)
		}
	}
}

func TestClassifyBaseAndExtra(t *testing.T) {
	// .todos in a subdirectory: meta paths are relative to it; extra meta
	// paths (a hooks directory in the tree) are relative to the root.
	m := ScopeMap{Root: "/w", Base: "app", MetaPaths: defaultMeta, ExtraMeta: []string{".githooks/"}}
	for rel, want := range map[string]PathClass{
		"app/.todos/config.yaml":   ClassMeta,
		"app/.todos/issues/a.md":   ClassIssue,
		"app/.todos/local/x":       ClassLocal,
		"app/.gitattributes":       ClassMeta,
		".todos/config.yaml":       ClassCode,
		".gitattributes":           ClassCode,
		".githooks/pre-commit":     ClassMeta,
		"app/.githooks/pre-commit": ClassCode,
		"app":                      ClassMeta,
		"lib/x.go":                 ClassCode,
	} {
		if got := m.Classify(rel); got != want {
			t.Errorf("Classify(%q) = %s, want %s", rel, got, want)
		}
	}
}

func TestLocate(t *testing.T) {
	root := filepath.FromSlash("/w/repo")
	m := ScopeMap{
		Root:      root,
		GitDirs:   []string{filepath.FromSlash("/w/repo/.git"), filepath.FromSlash("/w/main/.git"), filepath.FromSlash("/home/me/hooks")},
		MetaPaths: defaultMeta,
	}
	for _, tc := range []struct {
		in, rel string
		class   PathClass
	}{
		{"main.go", "main.go", ClassCode},
		{"./src/../main.go", "main.go", ClassCode},
		{"src//a.go", "src/a.go", ClassCode},
		{".todos/./config.yaml", ".todos/config.yaml", ClassMeta},
		{".todos/issues/../config.yaml", ".todos/config.yaml", ClassMeta},
		{".todos/history/x.jsonl/", ".todos/history/x.jsonl", ClassMeta},
		{"/w/repo/.todos/config.yaml", ".todos/config.yaml", ClassMeta},
		{"/w/repo/.todos/issues/td-a.md", ".todos/issues/td-a.md", ClassIssue},
		{"/w/repo", ".", ClassMeta},
		{"/w/repo/", ".", ClassMeta},
		// Outside the work tree.
		{"../other/x.go", "/w/other/x.go", ClassOutside},
		{"/etc/passwd", "/etc/passwd", ClassOutside},
		{"/w/repository/x", "/w/repository/x", ClassOutside},
		{"src/../../x", "/w/x", ClassOutside},
		// git directories count as meta wherever they are.
		{".git/hooks/pre-commit", ".git/hooks/pre-commit", ClassMeta},
		{"/w/main/.git/worktrees/repo/index", "/w/main/.git/worktrees/repo/index", ClassMeta},
		{"/home/me/hooks/pre-commit", "/home/me/hooks/pre-commit", ClassMeta},
		{"/home/me/hooksx", "/home/me/hooksx", ClassOutside},
	} {
		rel, class := m.Locate(filepath.FromSlash(tc.in))
		if rel != tc.rel || class != tc.class {
			t.Errorf("Locate(%q) = %q %s, want %q %s", tc.in, rel, class, tc.rel, tc.class)
		}
	}
	// Slash-separated input works on every platform.
	if rel, class := m.Locate(".todos/config.yaml"); rel != ".todos/config.yaml" || class != ClassMeta {
		t.Errorf("slash input: %q %s", rel, class)
	}
}

// TestScopeStories runs the spec's "done when" through classification and
// judgement together.
func TestScopeStories(t *testing.T) {
	m := ScopeMap{Root: "/w", MetaPaths: defaultMeta}
	judge := func(role domain.Role, cat domain.Category, rel string, written bool) bool {
		return JudgeScope(ScopeFacts{Role: role, Category: cat, Class: m.Classify(rel), WrittenByTd: written}).Allowed
	}
	if judge(domain.RoleAgent, domain.CategoryProject, ".todos/config.yaml", false) {
		t.Error("a project agent changed the config by hand")
	}
	if !judge(domain.RoleAgent, domain.CategoryProject, ".todos/history/td-a.jsonl", true) {
		t.Error("td's own ledger write was refused for a project agent")
	}
	if judge(domain.RoleAgent, domain.CategoryMeta, "main.go", false) {
		t.Error("a meta agent changed user code")
	}
	if !judge(domain.RoleAgent, domain.CategoryMeta, ".todos/config.yaml", false) || !judge(domain.RoleAgent, domain.CategoryMeta, ".todos/issues/td-a.md", false) {
		t.Error("a meta agent was refused its own ground")
	}
	if !judge(domain.RoleOperator, domain.CategoryMeta, "main.go", false) || !judge(domain.RoleOperator, domain.CategoryProject, ".todos/config.yaml", false) {
		t.Error("an operator was refused")
	}
}
