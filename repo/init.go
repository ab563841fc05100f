package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tdproject/td/repo/gitrepo"
)

// InitOptions configures Init.
type InitOptions struct {
	Prefix string // issue ID prefix; "td" when empty
	// PrefixGiven is whether the prefix was asked for (td init --prefix):
	// a repository already initialised with another one is refused, not
	// left as it is in silence.
	PrefixGiven bool
	NoGit       bool // allow a directory outside git (git mode off)
	Options
}

// InitResult says what Init did.
type InitResult struct {
	Root     string   // work tree root
	Operator string   // the identity listed as operator, "" if none was found
	Created  []string // paths created or changed, relative to Root
	Existing bool     // .todos was already initialised
	Git      bool     // the tree is in a git repository
}

// gitattributesLines route td's files to the right merge drivers.
var gitattributesLines = []string{
	".todos/**/*.jsonl merge=union",
	".todos/issues/*.md merge=td",
}

// MergeDriverCommand is the command registered for the td merge driver.
const MergeDriverCommand = "td merge-driver %O %A %B %P"

// Init creates the .todos tree at the root of the git work tree holding dir
// (or in dir itself with NoGit). Running it again only fills in what is
// missing.
func Init(dir string, o InitOptions) (*InitResult, error) {
	o.Options = o.Options.withDefaults()
	prefix := o.Prefix
	if prefix == "" {
		prefix = "td"
	}
	if !ValidPrefix(prefix) {
		return nil, Errorf(CodeInvalid, "prefix %q must be a lowercase letter followed by up to 15 lowercase letters or digits", prefix)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	g, err := gitrepo.Open(abs)
	switch {
	case errors.Is(err, gitrepo.ErrNotRepository):
		if !o.NoGit {
			return nil, Errorf(CodeRefused, "%s is not inside a git work tree; run git init first, or td init --no-git to use td without git", abs)
		}
		g = nil
	case errors.Is(err, gitrepo.ErrUnsupportedFormat):
		return nil, &Error{Code: CodeRefused, Msg: err.Error(), Err: err}
	case err != nil:
		return nil, fmt.Errorf("open git repository: %w", err)
	}
	res := &InitResult{Root: abs, Git: g != nil}
	if g != nil {
		res.Root = g.Root()
	}
	todos := filepath.Join(res.Root, TodosDir)
	if err := refuseSymlink(todos); err != nil {
		return nil, err
	}
	if o.PrefixGiven {
		cfg := filepath.Join(todos, ConfigFile)
		if data, err := os.ReadFile(cfg); err == nil {
			if c, err := ParseConfig(TodosDir+"/"+ConfigFile, data); err == nil && c.IDPrefix != "" && c.IDPrefix != prefix {
				return nil, Errorf(CodeRefused, "td is already initialised here with id_prefix %q; --prefix is for a new .todos. To give new issues the prefix %q, set id_prefix: %s in %s/%s and commit it (existing issues keep their IDs)", c.IDPrefix, prefix, prefix, TodosDir, ConfigFile)
			}
		}
	}
	var changed []string
	note := func(p string) { changed = append(changed, p) }

	for _, d := range []string{"", IssuesDir, HistoryDir, SessionsDir, LocalDir} {
		p := filepath.Join(todos, d)
		if err := refuseSymlink(p); err != nil {
			return nil, err
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return nil, fmt.Errorf("create %s: %w", p, err)
			}
		}
	}

	cfgPath := filepath.Join(todos, ConfigFile)
	if _, err := os.Lstat(cfgPath); err == nil {
		res.Existing = true
	} else {
		mode := GitModeStage
		if g == nil {
			mode = GitModeOff
		}
		if n, e := o.Env("GIT_AUTHOR_NAME"), o.Env("GIT_AUTHOR_EMAIL"); n != "" && e != "" {
			res.Operator = n + " <" + e + ">"
		} else if g != nil {
			if id, err := g.Author(); err == nil {
				res.Operator = id.String()
			}
		}
		if err := writeFileAtomic(cfgPath, renderInitialConfig(prefix, res.Operator, mode)); err != nil {
			return nil, err
		}
		note(cfgPath)
	}

	ignPath := filepath.Join(todos, ".gitignore")
	if ok, err := ensureLines(ignPath, []string{"local/"}); err != nil {
		return nil, err
	} else if ok {
		note(ignPath)
	}
	if g != nil {
		attrPath := filepath.Join(res.Root, ".gitattributes")
		if ok, err := ensureLines(attrPath, gitattributesLines); err != nil {
			return nil, err
		} else if ok {
			note(attrPath)
		}
		if !MergeDriverRegistered(g) {
			if err := RegisterMergeDriver(g); err != nil {
				return nil, err
			}
			res.Created = append(res.Created, ".git/config [merge \"td\"]")
		}
	}
	for _, p := range changed {
		r, _ := filepath.Rel(res.Root, p)
		res.Created = append(res.Created, filepath.ToSlash(r))
	}
	if g != nil && len(changed) > 0 {
		s, err := openAt(res.Root, o.Options)
		if err != nil {
			return nil, err
		}
		if s.Config.Git.Mode != GitModeOff {
			rels := make([]string, len(changed))
			for i, p := range changed {
				r, _ := filepath.Rel(res.Root, p)
				rels[i] = filepath.ToSlash(r)
			}
			if err := g.Stage(rels...); err != nil {
				return res, fmt.Errorf("initialised, but staging failed: %w", err)
			}
		}
	}
	return res, nil
}

// MergeDriverRegistered reports whether the clone's git config runs td's
// merge driver for issue files. The registration is not committed: every
// clone needs td init (or td doctor --fix) once.
func MergeDriverRegistered(g *gitrepo.Repo) bool {
	return g.ConfigValue("merge", "td", "driver") == MergeDriverCommand
}

// RegisterMergeDriver writes the [merge "td"] section into the clone's
// git config.
func RegisterMergeDriver(g *gitrepo.Repo) error {
	if err := g.SetConfigValues("merge", "td", [][2]string{{"name", "td issue file merge"}, {"driver", MergeDriverCommand}}); err != nil {
		return fmt.Errorf("register the td merge driver: %w", err)
	}
	return nil
}

// GitattributesLines are the lines .gitattributes at the work tree root
// needs for td: ledgers merged by union, issue files by td's driver.
func GitattributesLines() []string { return slices.Clone(gitattributesLines) }

// MissingGitattributes returns the lines of GitattributesLines that
// root/.gitattributes lacks.
func MissingGitattributes(root string) ([]string, error) {
	path := filepath.Join(root, ".gitattributes")
	data, err := readRegular(path, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf(".gitattributes %w", err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, l := range gitattributesLines {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	return missing, nil
}

// EnsureGitattributes appends the missing GitattributesLines to
// root/.gitattributes, creating it if needed; it reports whether it
// changed the file.
func EnsureGitattributes(root string) (bool, error) {
	return ensureLines(filepath.Join(root, ".gitattributes"), gitattributesLines)
}

// ensureLines appends the lines missing from a text file, creating it if
// needed. It reports whether it changed the file.
func ensureLines(path string, lines []string) (bool, error) {
	data, err := readRegular(path, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("%s %w", path, err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var add bytes.Buffer
	for _, l := range lines {
		if !have[l] {
			add.WriteString(l + "\n")
		}
	}
	if add.Len() == 0 {
		return false, nil
	}
	out := append([]byte{}, data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, add.Bytes()...)
	return true, writeFileAtomic(path, out)
}
