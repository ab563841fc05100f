package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

func TestWithTrailer(t *testing.T) {
	const tr = "Td-Session: ses_qmt3y9ft"
	editor := "\n# Please enter the commit message for your changes. Lines starting\n# with '#' will be ignored.\n#\n# On branch main\n"
	for _, tc := range []struct {
		name, msg, want string
		ok              bool
	}{
		{"subject only", "Fix the login\n", "Fix the login\n\n" + tr + "\n", true},
		{"no final newline", "Fix the login", "Fix the login\n\n" + tr + "\n", true},
		{"subject and body", "Fix the login\n\nThe token expired.\n", "Fix the login\n\nThe token expired.\n\n" + tr + "\n", true},
		{"into a trailer block", "Fix\n\nBody.\n\nSigned-off-by: A <a@example.com>\n", "Fix\n\nBody.\n\nSigned-off-by: A <a@example.com>\n" + tr + "\n", true},
		{"a subject that looks like a trailer", "Fix: the login\n", "Fix: the login\n\n" + tr + "\n", true},
		{"a paragraph that is not all trailers", "Fix\n\nSee: the doc\nand more\n", "Fix\n\nSee: the doc\nand more\n\n" + tr + "\n", true},
		{"above the editor's comments", "Fix the login\n" + editor, "Fix the login\n\n" + tr + "\n" + editor, true},
		{"above comments with no blank line", "Fix\n# comment\n", "Fix\n\n" + tr + "\n\n# comment\n", true},
		{"above the scissors", "Fix\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\nTd-Session: in the diff\n", "Fix\n\n" + tr + "\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\nTd-Session: in the diff\n", true},
		{"CRLF", "Fix\r\n", "Fix\r\n\r\n" + tr + "\r\n", true},
		{"an issue number is content", "#123 fix the login\n\nBody\n", "#123 fix the login\n\nBody\n\n" + tr + "\n", true},
		// Nothing written yet: git must still abort an empty message.
		{"empty", "", "", false},
		{"only the editor's comments", editor, editor, false},
		{"blank lines", "\n\n", "\n\n", false},
		// Already there, in any case.
		{"present", "Fix\n\nTd-Session: ses_other000\n", "Fix\n\nTd-Session: ses_other000\n", false},
		{"present in another case", "Fix\n\ntd-session: ses_other000\n", "Fix\n\ntd-session: ses_other000\n", false},
	} {
		got, ok := withTrailer(tc.msg, repo.TrailerSession, "ses_qmt3y9ft", "#")
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s:\ngot  %q %v\nwant %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// Another comment character.
	if got, _ := withTrailer("Fix\n; comment\n", repo.TrailerSession, "ses_x", ";"); got != "Fix\n\nTd-Session: ses_x\n\n; comment\n" {
		t.Errorf("comment char ;: %q", got)
	}
}

func TestHookMessages(t *testing.T) {
	g := repotest.NewGitStore(t)
	se := startAgent(t, g.S, domain.CategoryProject)
	msg := filepath.Join(g.Dir, ".git", "COMMIT_EDITMSG")
	write := func(s string) {
		if err := os.WriteFile(msg, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		b, _ := os.ReadFile(msg)
		return string(b)
	}
	for _, source := range []string{"message", "commit"} {
		write("Fix\n")
		if id, err := PrepareCommitMsg(g.S, se, msg, source); err != nil || id != se.ID || read() != "Fix\n\nTd-Session: "+se.ID+"\n" {
			t.Errorf("source %s: %q %v -> %q", source, id, err, read())
		}
	}
	for _, source := range []string{"", "template", "merge", "squash"} {
		write("Merge branch 'x'\n")
		if id, err := PrepareCommitMsg(g.S, se, msg, source); err != nil || id != "" || read() != "Merge branch 'x'\n" {
			t.Errorf("source %q: %q %v -> %q", source, id, err, read())
		}
	}
	// No session: nothing to say.
	write("Fix\n")
	if id, err := PrepareCommitMsg(g.S, nil, msg, "message"); err != nil || id != "" || read() != "Fix\n" {
		t.Errorf("no session: %q %v", id, err)
	}
	// commit-msg: the editor's message gets the trailer; an empty one,
	// a merge's and a squash's do not.
	write("Fix\n")
	if id, err := CommitMsg(g.S, se, msg); err != nil || id != se.ID {
		t.Errorf("commit-msg: %q %v", id, err)
	}
	if id, _ := CommitMsg(g.S, se, msg); id != "" || strings.Count(read(), "Td-Session") != 1 {
		t.Errorf("commit-msg twice: %q", read())
	}
	write("\n# Please enter the commit message\n")
	if id, _ := CommitMsg(g.S, se, msg); id != "" {
		t.Errorf("empty message got %s", id)
	}
	if _, err := CommitMsg(g.S, se, filepath.Join(g.Dir, "missing")); err == nil {
		t.Error("a missing message file passed")
	}
	merge := filepath.Join(g.Dir, ".git", "MERGE_MSG")
	if err := os.WriteFile(merge, []byte("Merge\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id, _ := CommitMsg(g.S, se, merge); id != "" {
		t.Errorf("MERGE_MSG got %s", id)
	}
	if err := os.WriteFile(filepath.Join(g.Dir, ".git", "SQUASH_MSG"), []byte("Squashed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("Squashed\n")
	if id, _ := CommitMsg(g.S, se, msg); id != "" {
		t.Errorf("squash got %s", id)
	}
}

func TestInstallHooks(t *testing.T) {
	g := repotest.NewGitStore(t)
	hooks := filepath.Join(g.Dir, ".git", "hooks")
	res, err := InstallHooks(g.S, HookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("installed %+v", res)
	}
	for i, h := range HookScripts() {
		if res[i].Name != h.Name || res[i].Action != HookInstalled || res[i].Path != ".git/hooks/"+h.Name {
			t.Errorf("hook %d: %+v", i, res[i])
		}
		p := filepath.Join(hooks, h.Name)
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o111 != 0o111 {
			t.Errorf("%s: %v %v", h.Name, fi.Mode(), err)
		}
		if b, _ := os.ReadFile(p); string(b) != h.Script || !strings.HasPrefix(h.Script, "#!/bin/sh\n"+hookMarker) {
			t.Errorf("%s content: %q", h.Name, b)
		}
	}
	// Again: nothing to do.
	res, err = InstallHooks(g.S, HookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Action != HookCurrent {
			t.Errorf("second run: %+v", r)
		}
	}
	// An older td hook is updated; one that lost its exec bit too.
	if err := os.WriteFile(filepath.Join(hooks, "commit-msg"), []byte("#!/bin/sh\n"+hookMarker+": commit-msg\nold\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(hooks, "pre-commit"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = InstallHooks(g.S, HookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != HookUpdated || res[1].Action != HookCurrent || res[2].Action != HookUpdated {
		t.Errorf("update: %+v", res)
	}

	// Someone else's hook is refused, naming it, and nothing is written.
	mine := "#!/bin/sh\nmake lint\n"
	if err := os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(hooks, "commit-msg")); err != nil {
		t.Fatal(err)
	}
	_, err = InstallHooks(g.S, HookOptions{})
	if repo.CodeOf(err) != repo.CodeRefused {
		t.Fatalf("foreign hook: %v", err)
	}
	want := ".git/hooks/pre-commit already has a hook that is not td's, and td does not overwrite it; run td hooks install --force to replace it (each old hook is kept as <name>.td-backup), or call td from it yourself:\n  pre-commit: td guard --staged || exit 1"
	if err.Error() != want {
		t.Errorf("refusal:\n%s\nwant:\n%s", err, want)
	}
	if _, err := os.Stat(filepath.Join(hooks, "commit-msg")); err == nil {
		t.Error("a refused install wrote commit-msg")
	}
	// --force keeps a backup, and a second forced replacement a second one.
	for n, backup := range []string{".git/hooks/pre-commit.td-backup", ".git/hooks/pre-commit.td-backup.2"} {
		res, err = InstallHooks(g.S, HookOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Action != HookReplaced || res[0].Backup != backup || n == 0 && res[2].Action != HookInstalled {
			t.Errorf("force %d: %+v", n, res)
		}
		if b, _ := os.ReadFile(filepath.Join(g.Dir, filepath.FromSlash(backup))); string(b) != mine {
			t.Errorf("backup %s: %q", backup, b)
		}
		if err := os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte(mine), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInstallHooksFollowsHooksPath(t *testing.T) {
	g := repotest.NewGitStore(t)
	g.Git("config", "core.hooksPath", ".githooks")
	g.Reopen()
	res, err := InstallHooks(g.S, HookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Path != ".githooks/pre-commit" {
		t.Errorf("path: %+v", res[0])
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".githooks", "pre-commit")); err != nil {
		t.Error(err)
	}
}

func TestInstallHooksWithoutGit(t *testing.T) {
	s := repotest.NewStore(t)
	if _, err := InstallHooks(s, HookOptions{}); repo.CodeOf(err) != repo.CodeRefused || !strings.Contains(err.Error(), "run git init first") {
		t.Errorf("no git: %v", err)
	}
}
