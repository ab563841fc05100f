package sessions

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// Git hooks (spec section 8): pre-commit runs td guard --staged,
// prepare-commit-msg and commit-msg add a Td-Session trailer naming the
// session behind the commit. The scripts are small POSIX sh calling td from
// PATH; td never overwrites a hook that is not its own.

// hookMarker marks a hook script td wrote, so that td can tell its own
// hooks from the user's.
const hookMarker = "# td hook (td hooks install)"

// hookBackupSuffix names the copy td hooks install --force keeps of a hook
// it replaces.
const hookBackupSuffix = ".td-backup"

// HookScript is one git hook td installs.
type HookScript struct {
	Name   string // the git hook name, such as pre-commit
	Line   string // the command that does the work, for chaining from a hook of one's own
	Script string // the whole script
}

// HookScripts returns the hooks td installs, in the order git runs them.
func HookScripts() []HookScript {
	return []HookScript{
		{
			Name: "pre-commit",
			Line: "td guard --staged || exit 1",
			Script: "#!/bin/sh\n" + hookMarker + ": pre-commit\n" +
				"# Stops a commit whose staged changes the current td session may not make.\n" +
				"if ! command -v td >/dev/null 2>&1; then\n" +
				"\techo \"pre-commit: td is not on PATH, so the staged changes cannot be checked; install td or ask an operator\" >&2\n" +
				"\texit 1\n" +
				"fi\n" +
				"exec td guard --staged\n",
		},
		{
			Name: "prepare-commit-msg",
			Line: `td hooks prepare-commit-msg "$@" || true`,
			Script: "#!/bin/sh\n" + hookMarker + ": prepare-commit-msg\n" +
				"# Adds a Td-Session trailer naming the current td session. Never stops a commit.\n" +
				"command -v td >/dev/null 2>&1 && td hooks prepare-commit-msg \"$@\"\n" +
				"exit 0\n",
		},
		{
			Name: "commit-msg",
			Line: `td hooks commit-msg "$1" || true`,
			Script: "#!/bin/sh\n" + hookMarker + ": commit-msg\n" +
				"# Adds the Td-Session trailer to a message written in the editor. Never stops a commit.\n" +
				"command -v td >/dev/null 2>&1 && td hooks commit-msg \"$1\"\n" +
				"exit 0\n",
		},
	}
}

// HookOptions configures InstallHooks. An agent harness's hooks are not
// git hooks: repo/harness/claude merges Claude Code's into its settings.
type HookOptions struct {
	// Force replaces hooks that are not td's, keeping each as
	// <name>.td-backup beside it.
	Force bool
}

// Hook install outcomes.
const (
	HookInstalled = "installed"
	HookUpdated   = "updated"
	HookCurrent   = "already installed"
	HookReplaced  = "replaced"
)

// HookInstall says what InstallHooks did with one hook.
type HookInstall struct {
	Name   string `json:"name"`
	Path   string `json:"path"`   // relative to the work tree root when inside it
	Action string `json:"action"` // installed, updated, already installed or replaced
	Backup string `json:"backup,omitempty"`
}

// InstallHooks writes td's git hooks into the directory git runs hooks from
// (core.hooksPath, else the common git directory, which linked work trees
// share). Running it again changes nothing. A hook that is not td's is
// refused, naming it, unless o.Force, which keeps it as a backup; nothing
// is written when any hook is refused.
func InstallHooks(s *repo.Store, o HookOptions) ([]HookInstall, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "%s is not in a git repository, and git hooks need one; run git init first", s.Root)
	}
	dir := g.HooksDir()
	scripts := HookScripts()
	plan, foreign, err := planHooks(g)
	if err != nil {
		return nil, err
	}
	if len(foreign) > 0 && !o.Force {
		return nil, foreignHooksError(plan, scripts)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the hooks directory %s: %w", displayPath(g, dir), err)
	}
	for i, h := range scripts {
		p := filepath.Join(dir, h.Name)
		switch plan[i].Action {
		case HookCurrent:
			continue
		case HookReplaced:
			backup, err := freeBackupName(p)
			if err != nil {
				return plan[:i], err
			}
			if err := os.Rename(p, backup); err != nil {
				return plan[:i], fmt.Errorf("keep %s as %s: %w", plan[i].Path, displayPath(g, backup), err)
			}
			plan[i].Backup = displayPath(g, backup)
		}
		if err := writeExecutable(p, []byte(h.Script)); err != nil {
			return plan[:i], fmt.Errorf("write hook %s: %w", plan[i].Path, err)
		}
	}
	return plan, nil
}

// HookPlan says what td hooks install would do with each hook, writing
// nothing: "installed" for a hook missing, "updated" for td's own hook out
// of date, "already installed", or "replaced" for a hook that is not td's.
// td doctor reads it.
func HookPlan(s *repo.Store) ([]HookInstall, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "%s is not in a git repository, and git hooks need one; run git init first", s.Root)
	}
	plan, _, err := planHooks(g)
	return plan, err
}

// planHooks compares the hooks directory with td's scripts: the plan, and
// the names of the hooks that are not td's.
func planHooks(g *gitrepo.Repo) ([]HookInstall, []string, error) {
	dir := g.HooksDir()
	scripts := HookScripts()
	plan := make([]HookInstall, len(scripts))
	var foreign []string
	for i, h := range scripts {
		p := filepath.Join(dir, h.Name)
		plan[i] = HookInstall{Name: h.Name, Path: displayPath(g, p), Action: HookInstalled}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read hook %s: %w", plan[i].Path, err)
		}
		var data []byte
		if fi.Mode().IsRegular() {
			if data, err = os.ReadFile(p); err != nil {
				return nil, nil, fmt.Errorf("read hook %s: %w", plan[i].Path, err)
			}
		}
		switch {
		case fi.Mode().IsRegular() && string(data) == h.Script && fi.Mode().Perm()&0o100 != 0:
			plan[i].Action = HookCurrent
		case fi.Mode().IsRegular() && bytes.Contains(data, []byte(hookMarker)):
			plan[i].Action = HookUpdated
		default:
			plan[i].Action = HookReplaced
			foreign = append(foreign, h.Name)
		}
	}
	return plan, foreign, nil
}

// foreignHooksError refuses to overwrite hooks that are not td's, saying how
// to replace them or to call td from them.
func foreignHooksError(plan []HookInstall, scripts []HookScript) error {
	var paths, lines []string
	for i, p := range plan {
		if p.Action == HookReplaced {
			paths = append(paths, p.Path)
			lines = append(lines, fmt.Sprintf("  %s: %s", p.Name, scripts[i].Line))
		}
	}
	what, them := "a hook that is not td's", "it"
	if len(paths) > 1 {
		what, them = "hooks that are not td's", "them"
	}
	return repo.Errorf(repo.CodeRefused, "%s already has %s, and td does not overwrite %s; run td hooks install --force to replace %s (each old hook is kept as <name>%s), or call td from %s yourself:\n%s",
		strings.Join(paths, ", "), what, them, them, hookBackupSuffix, them, strings.Join(lines, "\n"))
}

// freeBackupName returns <p>.td-backup, or .td-backup.2 and so on when
// earlier backups exist.
func freeBackupName(p string) (string, error) {
	for n := 1; n < 1000; n++ {
		name := p + hookBackupSuffix
		if n > 1 {
			name = fmt.Sprintf("%s.%d", name, n)
		}
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s has too many backups; remove some", p)
}

// writeExecutable replaces path with an executable file holding data, by a
// rename so that git never runs half a script.
func writeExecutable(path string, data []byte) error {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	// The process ID in the name tells a killed td's leftover from a live
	// writer's.
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(rnd[:]))
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // past the umask
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// displayPath shows p relative to the work tree root when it is inside it.
func displayPath(g *gitrepo.Repo, p string) string {
	if r, err := filepath.Rel(g.Root(), p); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return p
}

// PrepareCommitMsg is the prepare-commit-msg hook: it adds a Td-Session
// trailer for the current session to the message git prepared in file,
// when the message already says something (git commit -m, -F, --amend,
// -c) and has no such trailer. A message still to be written in the editor
// is left to the commit-msg hook, so that an empty message still aborts the
// commit; merges and squashes get no trailer. It returns the session
// named, "" when it added nothing.
func PrepareCommitMsg(s *repo.Store, se *repo.Session, file, source string) (string, error) {
	switch source {
	case "message", "commit":
		return addSessionTrailer(s, se, file)
	}
	return "", nil
}

// CommitMsg is the commit-msg hook: it adds the Td-Session trailer to the
// final message, for messages written in the editor, unless the message is
// empty (git then aborts the commit), already has the trailer, or belongs
// to a merge or a squash. It returns the session named, "" when it added
// nothing.
func CommitMsg(s *repo.Store, se *repo.Session, file string) (string, error) {
	if filepath.Base(file) == "MERGE_MSG" {
		return "", nil
	}
	if g, err := s.GitRepo(); err == nil && g != nil {
		for _, name := range []string{"MERGE_HEAD", "SQUASH_MSG"} {
			if _, err := os.Stat(filepath.Join(g.GitDir(), name)); err == nil {
				return "", nil
			}
		}
	}
	return addSessionTrailer(s, se, file)
}

// addSessionTrailer adds "Td-Session: <id>" to the message in file.
func addSessionTrailer(s *repo.Store, se *repo.Session, file string) (string, error) {
	if se == nil {
		return "", nil
	}
	fi, err := os.Stat(file)
	if err != nil {
		return "", fmt.Errorf("read the commit message: %w", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("read the commit message: %w", err)
	}
	comment := "#"
	if g, err := s.GitRepo(); err == nil && g != nil {
		if c := g.ConfigValue("core", "", "commentchar"); c != "" && c != "auto" {
			comment = c
		}
	}
	out, ok := withTrailer(string(data), repo.TrailerSession, se.ID, comment)
	if !ok {
		return "", nil
	}
	if err := os.WriteFile(file, []byte(out), fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("write the commit message: %w", err)
	}
	return se.ID, nil
}

// withTrailer adds "key: value" to a commit message as git interpret-trailers
// would: into the trailer block of the last paragraph when there is one,
// else as a new paragraph, and above the comment lines git appends for the
// editor (and the scissors line of git commit -v). It reports false, and
// changes nothing, when the message has no content yet or already has a
// trailer named key.
func withTrailer(msg, key, value, comment string) (string, bool) {
	lines := strings.SplitAfter(msg, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	end := len(lines)
	scissors := comment + " ------------------------ >8 ------------------------"
	for i, l := range lines {
		if strings.TrimRight(l, "\r\n") == scissors {
			end = i
			break
		}
	}
	isComment := func(l string) bool {
		t := strings.TrimRight(l, "\r\n")
		return t == comment || strings.HasPrefix(t, comment+" ") || strings.HasPrefix(t, comment+"\t")
	}
	for _, l := range lines[:end] {
		if k, _, ok := strings.Cut(strings.TrimRight(l, "\r\n"), ":"); ok && !isComment(l) && strings.EqualFold(strings.TrimSpace(k), key) {
			return msg, false
		}
	}
	pos := end
	for pos > 0 && (strings.TrimSpace(lines[pos-1]) == "" || isComment(lines[pos-1])) {
		pos--
	}
	if pos == 0 {
		return msg, false
	}
	content := lines[:pos]
	eol := "\n"
	if strings.HasSuffix(content[len(content)-1], "\r\n") {
		eol = "\r\n"
	}
	var b strings.Builder
	for _, l := range content {
		b.WriteString(l)
	}
	if !strings.HasSuffix(content[len(content)-1], "\n") {
		b.WriteString(eol)
	}
	if !endsInTrailerBlock(content, comment) {
		b.WriteString(eol)
	}
	b.WriteString(key + ": " + value + eol)
	rest := lines[pos:]
	if len(rest) > 0 && strings.TrimSpace(rest[0]) != "" {
		b.WriteString(eol)
	}
	for _, l := range rest {
		b.WriteString(l)
	}
	return b.String(), true
}

// endsInTrailerBlock reports whether the message's last paragraph, not
// being its subject, is made of "Key: value" lines (and their indented
// continuations).
func endsInTrailerBlock(content []string, comment string) bool {
	start := len(content)
	for start > 0 && strings.TrimSpace(content[start-1]) != "" {
		start--
	}
	if start == 0 {
		return false
	}
	found := false
	for _, l := range content[start:] {
		t := strings.TrimRight(l, "\r\n")
		switch {
		case strings.HasPrefix(t, comment):
			continue
		case strings.HasPrefix(t, " ") || strings.HasPrefix(t, "\t"):
			if !found {
				return false
			}
		default:
			k, _, ok := strings.Cut(t, ": ")
			if !ok || !isTrailerKey(k) {
				return false
			}
			found = true
		}
	}
	return found
}

func isTrailerKey(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}
