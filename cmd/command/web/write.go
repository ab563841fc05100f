package web

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/site"
	"github.com/tdproject/td/repo/stats"
)

// ManifestFile lists, in a site's directory, the files td wrote there, one
// a line: the slash-separated path, a tab, and a hash of the content td
// wrote (a page whose content and size are unchanged is not written again). td board --html replaces only those and
// removes only those it no longer writes; a directory with other files and
// no manifest is not td's to write into.
const ManifestFile = ".td-site"

// SiteOptions say what td board --html writes.
type SiteOptions struct {
	// Version is td's version, in the pages' footer.
	Version string
	// Ranges are the revision ranges given a diff page each ("main",
	// "main..feature").
	Ranges []string
	// Filter narrows the board page; issue pages are written for every
	// issue.
	Filter board.Filter
	// Workers is how many pages are built at once; 0 for the default.
	Workers int
	// Shown is the directory as the user named it, for messages; "" for
	// the directory as given.
	Shown string
}

// SiteResult is what WriteSite wrote.
type SiteResult struct {
	Dir string
	// Issues is how many issue pages were written; Diffs the diff pages.
	Issues int
	Diffs  []site.DiffLink
	// Files is every file of the site; Unchanged those of them an earlier
	// run wrote with the same content, left as they were; Removed those of
	// an earlier run that this one no longer writes (an issue deleted
	// since), removed.
	Files     int
	Unchanged int
	Removed   int
	// Problems are issue files and ledger lines td could not read: their
	// pages are missing or partial.
	Problems []error
}

// WriteSite writes the whole site into dir: the board (index.html), a
// page per issue (issues/ID.html), a page per range (diff/NAME.html) and
// the style sheet. Each file is written to a temporary file beside it and
// renamed into place, so a reader or a web server never sees half a page.
// dir is created when missing; an existing dir must be empty or hold a
// site td wrote (its manifest, written empty before the first page so
// that a run killed half-way leaves a directory the next run takes up),
// and files td did not list there are never touched.
func WriteSite(s *repo.Store, dir string, o SiteOptions) (*SiteResult, error) {
	shown := o.Shown
	if shown == "" {
		shown = dir
	}
	// A first site is built beside its directory and renamed into place
	// whole: a run killed half-way leaves no directory whose board links
	// to pages never written.
	final, stage, err := stageFirst(dir, shown)
	if err != nil {
		return nil, err
	}
	if stage != "" {
		dir = stage
		defer os.RemoveAll(stage) // gone once renamed; what a failure left
	}
	res, err := writeSite(s, dir, shown, o)
	if err != nil || stage == "" {
		return res, err
	}
	if err := os.Rename(stage, final); err != nil {
		return nil, fmt.Errorf("put the site in place at %s: %w", shown, err)
	}
	res.Dir = final
	return res, nil
}

// stagePrefix begins the name of the directory a first site is built in,
// beside its own: ".NAME.td-new-PID-".
func stagePrefix(final string) string { return "." + filepath.Base(final) + ".td-new-" }

// stageFirst decides where the site for dir is built: in dir itself when
// it holds a site td wrote (stage ""), else, when dir is missing or an
// empty directory, in a new directory beside it that WriteSite renames to
// dir at the end. It removes the staging directories of killed runs.
func stageFirst(dir, shown string) (final, stage string, err error) {
	final = filepath.Clean(dir)
	fi, err := os.Lstat(final)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", "", err
	case fi.IsDir():
		entries, err := os.ReadDir(final)
		if err != nil || len(entries) > 0 {
			return final, "", err // td's site, or refused by prepareDir
		}
	default:
		return final, "", nil // prepareDir says what is wrong
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", "", err
	}
	removeStaleStages(parent, stagePrefix(final))
	stage, err = os.MkdirTemp(parent, stagePrefix(final)+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", "", fmt.Errorf("create a directory beside %s to build the site in: %w", shown, err)
	}
	return final, stage, nil
}

// removeStaleStages removes the staging directories in parent, named with
// prefix, that a run killed before its rename left: those whose process
// is gone and that hold td's manifest.
func removeStaleStages(parent, prefix string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || repo.ProcessAlive(pid) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if _, err := os.Lstat(filepath.Join(p, ManifestFile)); err == nil {
			os.RemoveAll(p)
		}
	}
}

// writeSite is WriteSite into dir, where the pages go now.
func writeSite(s *repo.Store, dir, shown string, o SiteOptions) (*SiteResult, error) {
	old, err := prepareDir(dir, shown)
	if err != nil {
		return nil, err
	}
	// The diff pages first, before the issues are loaded for the others:
	// see site.New.
	src := site.New(s)
	res := &SiteResult{Dir: dir}
	r := NewRenderer(o.Version, true)
	r.HasStats = true
	w := &siteWriter{dir: dir, shown: shown, old: old}
	dirs := []string{site.IssuesDir}
	if len(o.Ranges) > 0 {
		dirs = append(dirs, site.DiffsDir)
	}
	for _, d := range dirs {
		if err := mkdirNoLink(filepath.Join(dir, d)); err != nil {
			return nil, err
		}
	}
	var diffs []*site.Diff
	for _, rng := range o.Ranges {
		d, err := src.Diff(rng)
		if err != nil {
			return nil, fmt.Errorf("the diff page for %s: %w", rng, err)
		}
		base, head := site.ParseRange(rng)
		res.Diffs = append(res.Diffs, site.DiffLink{Name: rng, Path: site.DiffPath(base, head)})
		diffs = append(diffs, d)
	}
	for i, d := range diffs {
		if err := w.writeFrom(res.Diffs[i].Path, func(out io.Writer) error { return r.Diff(out, d, res.Diffs) }); err != nil {
			return nil, err
		}
	}
	diffs = nil
	// The board next, still before the issues are loaded: it reads the
	// store's own listing, and at 100,000 issues the two together with the
	// page's HTML passed 200 MB.
	bp, err := src.Board(o.Filter, res.Diffs)
	if err != nil {
		return nil, err
	}
	if err := w.writeFrom(site.BoardPath, func(out io.Writer) error { return r.Board(out, bp) }); err != nil {
		return nil, err
	}
	bp = nil
	st, _, err := stats.Compute(s, stats.Options{})
	if err != nil {
		return nil, err
	}
	if err := w.writeFrom(site.StatsPath, func(out io.Writer) error { return r.Stats(out, st, src.RepoName(), res.Diffs) }); err != nil {
		return nil, err
	}
	problems, err := src.Load()
	if err != nil {
		return nil, err
	}
	res.Problems = problems
	if err := w.write(site.StylePath, Style()); err != nil {
		return nil, err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = repo.IOWorkers()
	}
	err = src.EachIssue(workers, func(is *site.Issue) error {
		var b bytes.Buffer
		if err := r.Issue(&b, is, res.Diffs); err != nil {
			return err
		}
		return w.write(site.IssuePath(is.ID), b.Bytes())
	})
	if err != nil {
		return nil, err
	}
	written, manifest := w.files()
	res.Files, res.Unchanged = len(written), w.unchanged
	res.Issues = len(written) - len(res.Diffs) - 3 // the board, the stats and the style sheet
	if err := writeAtomic(filepath.Join(dir, ManifestFile), filepath.Join(shown, ManifestFile), manifest); err != nil {
		return nil, err
	}
	for p := range old {
		if _, ok := slices.BinarySearch(written, p); ok || !generatedPath(p) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			res.Removed++
		}
	}
	return res, nil
}

// prepareDir checks that dir may hold the site, creating it when missing,
// and returns the files the last run wrote there (its manifest), with the
// hash of each one's content ("" when the manifest has none).
func prepareDir(dir, shown string) (map[string]string, error) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		return nil, claimDir(dir, shown)
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		if fi, err = os.Stat(dir); err != nil {
			return nil, err
		}
	}
	if !fi.IsDir() {
		return nil, repo.Errorf(repo.CodeRefused, "%s is a file, not a directory; name a directory for the site (td creates it when missing)", shown)
	}
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		if len(entries) > 0 {
			return nil, repo.Errorf(repo.CodeRefused, "%s holds files td did not write (it has no %s); name a new or empty directory", shown, ManifestFile)
		}
		return nil, claimDir(dir, shown)
	}
	if err != nil {
		return nil, err
	}
	removeStaleTemps(dir)
	old := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			p, h, _ := strings.Cut(l, "\t")
			old[p] = h
		}
	}
	return old, nil
}

// generatedPath reports whether p is a path td writes in a site: the only
// paths a manifest may make it remove.
func generatedPath(p string) bool {
	if strings.Contains(p, "..") || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	switch {
	case p == site.BoardPath, p == site.StylePath, p == site.StatsPath:
		return true
	case strings.HasPrefix(p, site.IssuesDir+"/"), strings.HasPrefix(p, site.DiffsDir+"/"):
		rest := p[strings.IndexByte(p, '/')+1:]
		return !strings.Contains(rest, "/") && strings.HasSuffix(rest, ".html")
	}
	return false
}

// mkdirNoLink makes dir, refusing one that is a symbolic link or a file:
// pages go inside the site's directory, nowhere else.
func mkdirNoLink(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return os.Mkdir(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return repo.Errorf(repo.CodeRefused, "%s is not a directory; td writes its pages there", dir)
	}
	return nil
}

// siteWriter writes a site's files and remembers which, with their hash.
type siteWriter struct {
	dir   string
	shown string // dir as errors name it
	// old is the last run's manifest: path to hash.
	old       map[string]string
	mu        sync.Mutex
	written   map[string]string
	unchanged int
}

// write writes the file rel of the site, unless the last run wrote the
// same content there and the file still has its size.
func (w *siteWriter) write(rel string, data []byte) error {
	sum := fnv.New64a()
	sum.Write(data)
	h := strconv.FormatUint(sum.Sum64(), 16)
	path := filepath.Join(w.dir, filepath.FromSlash(rel))
	same := w.holds(rel, h, int64(len(data)))
	if !same {
		if err := writeAtomic(path, w.show(rel), data); err != nil {
			return err
		}
	}
	w.record(rel, h, same)
	return nil
}

// holds reports whether the last run wrote content of hash h and size n
// to rel, and the file still has that size.
func (w *siteWriter) holds(rel, h string, n int64) bool {
	if w.old[rel] != h {
		return false
	}
	fi, err := os.Lstat(filepath.Join(w.dir, filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == n
}

// writeFrom writes the file rel as write does, with what render writes,
// without holding it in memory: it goes to a temporary file beside rel,
// which replaces rel unless the last run wrote the same. The board of
// 100,000 issues is 39 MB of HTML, which a buffer doubled to 64.
func (w *siteWriter) writeFrom(rel string, render func(io.Writer) error) error {
	path, shown := filepath.Join(w.dir, filepath.FromSlash(rel)), w.show(rel)
	sum, n := fnv.New64a(), &countingWriter{}
	tmp, err := writeTemp(path, shown, func(f io.Writer) error {
		bw := bufio.NewWriterSize(io.MultiWriter(f, sum, n), 64<<10)
		if err := render(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	h := strconv.FormatUint(sum.Sum64(), 16)
	same := w.holds(rel, h, n.n)
	if same {
		os.Remove(tmp)
	} else if err := replaceWith(tmp, path, shown); err != nil {
		return err
	}
	w.record(rel, h, same)
	return nil
}

// show is the path of the site's file rel as messages name it.
func (w *siteWriter) show(rel string) string { return filepath.Join(w.shown, filepath.FromSlash(rel)) }

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// record notes that rel holds content of hash h, the same as before or not.
func (w *siteWriter) record(rel, h string, same bool) {
	w.mu.Lock()
	if w.written == nil {
		w.written = map[string]string{}
	}
	w.written[rel] = h
	if same {
		w.unchanged++
	}
	w.mu.Unlock()
}

// files lists the files written, sorted, and the manifest that lists them.
func (w *siteWriter) files() ([]string, []byte) {
	paths := make([]string, 0, len(w.written))
	for p := range w.written {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p + "\t" + w.written[p] + "\n")
	}
	return paths, b.Bytes()
}

// writeAtomic replaces path with data through a temporary file beside it
// and a rename; errors name it shown. It does not wait for the disk: a
// site is rebuilt from the store at will. A symbolic link at path is
// refused, never followed.
func writeAtomic(path, shown string, data []byte) error {
	tmp, err := writeTemp(path, shown, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	return replaceWith(tmp, path, shown)
}

// writeTemp refuses path when it is there and not a regular file, then
// writes what render writes to a new temporary file beside it
// (tempBeside) and returns its name. On an error, a full disk for one,
// nothing is left. Errors name the file shown.
func writeTemp(path, shown string, render func(io.Writer) error) (string, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return "", notRegular(shown)
	}
	tmp, err := tempBeside(path)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", shown, err)
	}
	err = render(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", shown, err)
	}
	return tmp, nil
}

// replaceWith renames tmp over path, removing tmp when it cannot.
func replaceWith(tmp, path, shown string) error {
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", shown, err)
	}
	return nil
}

// notRegular refuses to replace path, which is not a regular file.
func notRegular(path string) error {
	return repo.Errorf(repo.CodeRefused, "%s is not a regular file; td replaces only the pages it wrote", path)
}

// tempBeside names a new temporary file in path's directory.
func tempBeside(path string) (string, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(rnd[:])), nil
}

// claimDir writes an empty manifest into the new site directory dir, which
// marks it td's before any page is written.
func claimDir(dir, shown string) error {
	return writeAtomic(filepath.Join(dir, ManifestFile), filepath.Join(shown, ManifestFile), nil)
}

// removeStaleTemps removes the temporary files a killed run left beside
// the pages of the site in dir (".index.html.tmp-0123456789ab"): a page
// streamed to disk is as large as the board, 39 MB at 100,000 issues.
func removeStaleTemps(dir string) {
	for _, d := range []string{dir, filepath.Join(dir, site.IssuesDir), filepath.Join(dir, site.DiffsDir)} {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Type().IsRegular() && isTempName(e.Name()) {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
}

// isTempName reports whether name is one tempBeside makes.
func isTempName(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i < 1 || len(name)-i-len(".tmp-") != 12 {
		return false
	}
	_, err := hex.DecodeString(name[i+len(".tmp-"):])
	return err == nil
}
