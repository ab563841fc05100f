package policy

import (
	"path/filepath"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// Scopes (seed 004, "META/PROJECT"): a project agent works on the user's
// code, a meta agent on td's governance files, and neither strays into the
// other's ground. Issue files belong to both: every session files and
// updates issues. Operators may change anything.

// PathClass is what a path is to the scope rules.
type PathClass string

// Path classes, from most to least governed.
const (
	// ClassMeta is a governance path: one listed in config meta_paths, a
	// directory holding one, or git's own files (hooks, config).
	ClassMeta PathClass = "meta"
	// ClassIssue is an issue file under .todos/issues.
	ClassIssue PathClass = "issue"
	// ClassCode is everything else in the work tree: the user's project.
	ClassCode PathClass = "code"
	// ClassLocal is .todos/local: this checkout's state, never committed.
	ClassLocal PathClass = "local"
	// ClassOutside is a path outside the work tree, which scopes do not cover.
	ClassOutside PathClass = "outside"
)

// ScopeMap says where a work tree keeps td's files, so that paths can be
// classified without touching the disk.
type ScopeMap struct {
	// Root is the work tree root, absolute and cleaned.
	Root string
	// GitDirs are absolute directories that count as meta wherever they
	// are: the git directory, its common directory and the hooks directory.
	GitDirs []string
	// Base is the directory holding .todos, slash-separated and relative to
	// Root; "" when .todos is at the root.
	Base string
	// MetaPaths are config meta_paths, relative to Base. A trailing slash
	// names a directory; an entry without one matches the path itself and,
	// should it be a directory, everything below it, so the two read alike.
	MetaPaths []string
	// ExtraMeta are further meta paths relative to Root, such as a hooks
	// directory inside the work tree (core.hooksPath).
	ExtraMeta []string
	// FoldCase compares paths case-insensitively, as git does on a
	// case-insensitive file system (core.ignorecase).
	FoldCase bool
}

// Locate turns p (absolute, or relative to Root; slash or OS separators)
// into a slash-separated path relative to Root, and classifies it. A path
// outside the work tree comes back cleaned and absolute, as ClassOutside,
// unless it lies in one of GitDirs.
func (m ScopeMap) Locate(p string) (string, PathClass) {
	native := filepath.FromSlash(p)
	abs := native
	if !filepath.IsAbs(native) {
		abs = filepath.Join(m.Root, native)
	}
	abs = filepath.Clean(abs)
	for _, d := range m.GitDirs {
		if d != "" && within(filepath.ToSlash(filepath.Clean(d)), filepath.ToSlash(abs), m.FoldCase) {
			return m.display(abs), ClassMeta
		}
	}
	rel, err := filepath.Rel(m.Root, abs)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return filepath.ToSlash(abs), ClassOutside
	}
	rel = filepath.ToSlash(rel)
	return rel, m.Classify(rel)
}

// display is abs relative to Root when it is inside the work tree.
func (m ScopeMap) display(abs string) string {
	if rel, err := filepath.Rel(m.Root, abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}

// Classify returns the class of rel, a clean slash-separated path relative to
// Root ("." for the root itself). .todos/local is local before anything
// else; issue files are issues even when a meta entry covers their
// directory, since the spec opens them to every session.
func (m ScopeMap) Classify(rel string) PathClass {
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" {
		rel = "."
	}
	if first, _, _ := strings.Cut(rel, "/"); equalPath(first, ".git", true) {
		return ClassMeta
	}
	todos := join(m.Base, ".todos")
	switch {
	case within(join(todos, "local"), rel, m.FoldCase):
		return ClassLocal
	case within(join(todos, "issues"), rel, m.FoldCase):
		return ClassIssue
	}
	for _, entry := range m.metaEntries() {
		if matchMeta(entry, rel, m.FoldCase) {
			return ClassMeta
		}
	}
	return ClassCode
}

// metaEntries returns every meta path relative to Root, cleaned and
// without a trailing slash.
func (m ScopeMap) metaEntries() []string {
	out := make([]string, 0, len(m.MetaPaths)+len(m.ExtraMeta))
	for _, e := range m.MetaPaths {
		if c := cleanEntry(e); c != "" {
			out = append(out, join(m.Base, c))
		}
	}
	for _, e := range m.ExtraMeta {
		if c := cleanEntry(e); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// cleanEntry normalises a configured meta path: slashes, no leading "./" or
// "/", no "." or ".." segments, no trailing slash. It returns "" for an
// entry that names nothing inside the work tree.
func cleanEntry(e string) string {
	e = strings.Trim(strings.TrimSpace(filepath.ToSlash(e)), "/")
	if e == "" {
		return ""
	}
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(e)))
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return ""
	}
	return c
}

// matchMeta reports whether a meta entry covers rel: the path itself, a
// path below it, or a directory that holds it (changing .todos changes the
// config inside it). Directory and file entries match alike: a path is a
// file or a directory, never both.
func matchMeta(entry, rel string, fold bool) bool {
	return within(entry, rel, fold) || strictlyWithin(rel, entry, fold)
}

// within reports whether p is dir or below it.
func within(dir, p string, fold bool) bool {
	return equalPath(dir, p, fold) || strictlyWithin(dir, p, fold)
}

// strictlyWithin reports whether p is below dir.
func strictlyWithin(dir, p string, fold bool) bool {
	if dir == "." || dir == "" {
		return p != "." && p != ""
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && equalPath(p[:len(dir)], dir, fold)
}

func equalPath(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func join(base, name string) string {
	if base == "" || base == "." {
		return name
	}
	return strings.TrimSuffix(base, "/") + "/" + name
}

// ScopeFacts are what the scope rule needs to judge one changed path.
type ScopeFacts struct {
	Role     domain.Role     // the session's effective role
	Category domain.Category // project or meta; "" counts as project
	Class    PathClass       // what the path is
	// WrittenByTd is true when the change is exactly what td itself last
	// wrote at the path: td acting for the session, not the session by hand.
	WrittenByTd bool
	// Merged is true when, during a merge, the change is what the merge
	// itself produced: the other branch's version, or for an append-only
	// log the union of both sides' lines.
	Merged bool
}

// ScopeVerdict is the decision for one path: whether the session may change
// it, and why, as a phrase that reads after "path: ".
type ScopeVerdict struct {
	Allowed bool
	Reason  string
}

// JudgeScope applies the scope rules of spec section 8: operators may change
// anything; a project agent may change user code and issue files, and meta
// paths only through td; a meta agent may change meta paths and issue files,
// never user code. .todos/local and paths outside the work tree are not
// governed.
func JudgeScope(f ScopeFacts) ScopeVerdict {
	switch f.Class {
	case ClassLocal:
		return ScopeVerdict{true, "local state under .todos/local, never committed"}
	case ClassOutside:
		return ScopeVerdict{true, "outside the work tree, which scopes do not cover"}
	}
	if f.Role == domain.RoleOperator {
		return ScopeVerdict{true, "operators may change anything"}
	}
	meta := f.Category == domain.CategoryMeta
	switch f.Class {
	case ClassIssue:
		return ScopeVerdict{true, "issue file, open to every session"}
	case ClassMeta:
		switch {
		case meta:
			return ScopeVerdict{true, "meta path, open to meta sessions"}
		case f.WrittenByTd:
			return ScopeVerdict{true, "meta path, written by td"}
		case f.Merged:
			return ScopeVerdict{true, "meta path, as the merge brought it"}
		}
		return ScopeVerdict{false, "meta path; a project session changes it only through td commands: run td as a meta session (td session start --category meta) or ask an operator"}
	default:
		if meta {
			return ScopeVerdict{false, "user code; a meta session may change only meta paths and issue files: run it as a project session or ask an operator"}
		}
		return ScopeVerdict{true, "user code, open to project sessions"}
	}
}
