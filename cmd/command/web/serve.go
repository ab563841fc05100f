package web

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/review"
	"github.com/tdproject/td/repo/site"
)

// Server serves the site's pages live from the store: the same pages td
// board --html writes, at the same paths, built when asked for. It only
// reads. The store is opened again, and the pages built again, when
// anything under .todos (or git's HEAD, for the commits an issue page
// lists) has changed since the last request: a stat of a few directories
// decides (and of every file, once a second at most), and a page asked
// for twice in between is served from memory, within Limits' bounds.
//
// One page is built at a time (a store is read by one goroutine): a page
// already built is answered while another is being built, and a request
// that waits longer than Limits.Request for its page is answered 503.
type Server struct {
	// Open opens the store afresh.
	Open func() (*repo.Store, error)
	// Ranges are the revision ranges the navigation links to; any other
	// is served when asked for by its path.
	Ranges []string
	Filter board.Filter
	// Log, when not nil, is told what net/http notes: a failed accept
	// retried, a client's broken request.
	Log    io.Writer
	render *Renderer
	limits Limits
	// build is held by the one goroutine reading the store: it alone uses
	// src, and replaces store.
	build chan struct{}
	src   *site.Source

	mu sync.Mutex
	// quick and stamp are the cheap and the full change stamps of the
	// store last read; seenFull is the full stamp the last background
	// check saw, checked when it started, checking whether one runs.
	quick, stamp, seenFull string
	checked                time.Time
	checking               bool
	store                  *repo.Store
	// pages holds the pages built from the store last read, by path, a
	// diff page by the commits it compares; ranges names, for the path of
	// each diff page asked for, the key its page is kept under.
	pages, ranges *pageCache
	builtAt       int // how many times the store was read, for tests
}

// NewServer is a Server for the store open opens, within DefaultLimits.
func NewServer(open func() (*repo.Store, error), version string, ranges []string, f board.Filter) *Server {
	sv := &Server{Open: open, Ranges: ranges, Filter: f, render: NewRenderer(version, false), build: make(chan struct{}, 1)}
	return sv.WithLimits(DefaultLimits)
}

// WithLimits sets the server's limits, before it serves, and returns it.
func (sv *Server) WithLimits(l Limits) *Server {
	sv.limits = l
	sv.pages = newPageCache(l.MaxPages, l.MaxPageBytes)
	// A name is a few dozen bytes: as many names as pages, four times
	// over, keep every spelling a browser's history holds.
	sv.ranges = newPageCache(4*l.MaxPages, l.MaxPageBytes/64+1)
	return sv
}

// Cached reports how many pages, of how many bytes, the server holds.
func (sv *Server) Cached() (pages int, bytes int64) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.pages.len(), sv.pages.size()
}

// Loopback reports whether addr (host:port) names this machine only: td
// serve refuses anything else, so the pages never leave the machine.
func Loopback(addr string) bool {
	host, _, err := SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// Reads reports how many times the server has read the store.
func (sv *Server) Reads() int {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.builtAt
}

// Response is the answer to one request.
type Response struct {
	Status int
	// Header holds the response's header fields, in order.
	Header [][2]string
	Body   []byte
}

// Respond answers one request: GET and HEAD of the site's paths, from a
// client that addressed this machine by a loopback name. It waits for
// its page at most Limits.Request.
func (sv *Server) Respond(method, target, host string) Response {
	ctx := context.Background()
	if sv.limits.Request > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sv.limits.Request)
		defer cancel()
	}
	return sv.respond(ctx, method, target, host)
}

func (sv *Server) respond(ctx context.Context, method, target, host string) Response {
	r := Response{Header: [][2]string{
		{"X-Content-Type-Options", "nosniff"},
		{"Referrer-Policy", "no-referrer"},
		{"Cache-Control", "no-cache"},
		{"Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
	}}
	text := func(status int, msg string) Response {
		r.Status, r.Body = status, []byte(msg+"\n")
		r.Header = append(r.Header, [2]string{"Content-Type", "text/plain; charset=utf-8"})
		return r
	}
	if method != "GET" && method != "HEAD" {
		r.Header = append(r.Header, [2]string{"Allow", "GET, HEAD"})
		return text(StatusMethodNotAllowed, "td serve only reads")
	}
	// A request for a page of another host (a proxy's request) is not
	// one for this server, whatever its Host says.
	if !strings.HasPrefix(target, "/") {
		return text(StatusBadRequest, "td serve cannot read this address")
	}
	// A page of this machine's issues answers only to this machine's
	// names: another name in Host is a page of elsewhere rebinding one.
	if !Loopback(host) && !Loopback(host+":0") {
		return text(StatusForbidden, "td serve answers only to 127.0.0.1 and localhost")
	}
	path, _, _ := strings.Cut(target, "?")
	path, err := url.PathUnescape(path)
	if err != nil || !strings.HasPrefix(path, "/") {
		return text(StatusBadRequest, "td serve cannot read this address")
	}
	p := strings.TrimPrefix(path, "/")
	if p == "" {
		p = site.BoardPath
	}
	if p == site.StylePath {
		r.Status, r.Body = StatusOK, Style()
		r.Header = append(r.Header, [2]string{"Content-Type", "text/css; charset=utf-8"})
		return r
	}
	r.Body, r.Status = sv.page(ctx, p)
	if r.Status == StatusServiceUnavailable {
		r.Header = append(r.Header, [2]string{"Retry-After", "5"})
	}
	r.Header = append(r.Header, [2]string{"Content-Type", "text/html; charset=utf-8"})
	return r
}

// page finds in memory, or builds, the page at p, with its HTTP status.
// A page already built for the store as it is answers at once; else the
// request waits, until ctx ends, for the one goroutine that builds.
func (sv *Server) page(ctx context.Context, p string) ([]byte, int) {
	sv.mu.Lock()
	if _, fresh := sv.freshLocked(); fresh {
		if b, ok := sv.lookupLocked(p); ok {
			sv.mu.Unlock()
			return b, StatusOK
		}
	}
	sv.mu.Unlock()
	busy := func() ([]byte, int) {
		return sv.failure(strings.Repeat("../", strings.Count(p, "/")), "td serve is still building this page",
			fmt.Sprintf("It has taken longer than %v; td serve goes on building it. Reload the page in a moment.", sv.limits.Request),
			StatusServiceUnavailable)
	}
	select {
	case sv.build <- struct{}{}:
	case <-ctx.Done():
		return busy()
	}
	type built struct {
		body   []byte
		status int
	}
	done := make(chan built, 1)
	go func() {
		defer func() { <-sv.build }()
		b, status := sv.buildPage(p)
		done <- built{b, status}
	}()
	select {
	case b := <-done:
		return b.body, b.status
	case <-ctx.Done():
		return busy()
	}
}

// lookupLocked finds the page at p in memory: a diff page by the key its
// path was last resolved to.
func (sv *Server) lookupLocked(p string) ([]byte, bool) {
	if b, ok := sv.pages.get(p); ok {
		return b, true
	}
	if key, ok := sv.ranges.get(p); ok {
		return sv.pages.get(string(key))
	}
	return nil, false
}

// buildHook, when not nil, is called before a page is built (tests).
var buildHook func(p string)

// diffKey is the key a diff page is kept under: the commits it compares,
// whichever names, abbreviations or ".." or "..." spelled them ("" for
// the work tree).
func diffKey(r *review.DiffRange) string {
	return site.DiffsDir + "/" + r.Base + ".." + r.Head
}

// buildPage builds the page at p; its caller holds sv.build.
func (sv *Server) buildPage(p string) ([]byte, int) {
	root := strings.Repeat("../", strings.Count(p, "/"))
	if err := sv.refresh(); err != nil {
		return sv.failure(root, "td cannot read this repository", err.Error(), StatusInternalServerError)
	}
	sv.mu.Lock()
	b, ok := sv.lookupLocked(p)
	store := sv.store
	sv.mu.Unlock()
	if ok {
		return b, StatusOK
	}
	if buildHook != nil {
		buildHook(p)
	}
	var buf bytes.Buffer
	var err error
	key := p
	diffs := sv.diffLinks()
	switch {
	case p == site.BoardPath:
		var bp *site.Board
		if bp, err = sv.src.Board(sv.Filter, diffs); err == nil {
			err = sv.render.Board(&buf, bp)
		}
	case strings.HasPrefix(p, site.IssuesDir+"/") && strings.HasSuffix(p, ".html") && strings.Count(p, "/") == 1:
		id := strings.TrimSuffix(strings.TrimPrefix(p, site.IssuesDir+"/"), ".html")
		if !repo.ValidIssueID(id) || !sv.src.Has(id) {
			return sv.failure(root, "No such issue", fmt.Sprintf("There is no issue %s in this repository.", id), StatusNotFound)
		}
		var is *site.Issue
		if is, err = sv.src.Issue(id); err == nil {
			err = sv.render.Issue(&buf, is, diffs)
		}
	case strings.HasPrefix(p, site.DiffsDir+"/") && strings.HasSuffix(p, ".html") && strings.Count(p, "/") == 1:
		name := strings.TrimSuffix(strings.TrimPrefix(p, site.DiffsDir+"/"), ".html")
		rng := name
		for _, r := range sv.Ranges {
			if b, h := site.ParseRange(r); site.RangeName(b, h) == name {
				rng = r
			}
		}
		var r *review.DiffRange
		if r, err = site.ResolveRange(store, rng); err != nil {
			break
		}
		key = diffKey(r)
		sv.mu.Lock()
		sv.ranges.add(p, []byte(key))
		b, ok := sv.pages.get(key)
		sv.mu.Unlock()
		if ok {
			return b, StatusOK
		}
		// A navigation range comparing the same commits names the page,
		// whichever spelling asked for it first.
		for _, nav := range sv.Ranges {
			if nr, err := site.ResolveRange(store, nav); err == nil && diffKey(nr) == key {
				rng = nav
				break
			}
		}
		var d *site.Diff
		if d, err = sv.src.DiffOf(rng, r); err == nil {
			err = sv.render.Diff(&buf, d, diffs)
		}
	default:
		return sv.failure(root, "No such page", "td serve has the board, a page per issue and a page per revision range.", StatusNotFound)
	}
	if err != nil {
		status := StatusInternalServerError
		var re *repo.Error
		if errors.As(err, &re) && (re.Code == repo.CodeNotFound || re.Code == repo.CodeRefused) {
			status = StatusNotFound
		}
		return sv.failure(root, "td cannot show this page", err.Error(), status)
	}
	sv.mu.Lock()
	sv.pages.add(key, buf.Bytes())
	sv.mu.Unlock()
	return buf.Bytes(), StatusOK
}

func (sv *Server) failure(root, title, msg string, status int) ([]byte, int) {
	var b bytes.Buffer
	repoName := ""
	sv.mu.Lock()
	if sv.store != nil {
		repoName = filepath.Base(sv.store.Root)
	}
	sv.mu.Unlock()
	_ = sv.render.Failure(&b, root, repoName, title, msg)
	return b.Bytes(), status
}

func (sv *Server) diffLinks() []site.DiffLink {
	var out []site.DiffLink
	for _, r := range sv.Ranges {
		b, h := site.ParseRange(r)
		out = append(out, site.DiffLink{Name: r, Path: site.DiffPath(b, h)})
	}
	return out
}

// fullCheckEvery is how often at most every file under .todos is stat'ed,
// beside the directories every request stats.
const fullCheckEvery = time.Second

// freshLocked reports whether the pages in memory are of the store as it
// is, and the cheap stamp it took to tell. Every request compares the
// cheap stamp (the directories, config, git's HEAD), which catches
// whatever td writes; the full one (every file), for a file an editor
// wrote in place, is taken in the background at most once a second, so
// no request waits for it: such an edit shows at the request after the
// check that saw it.
func (sv *Server) freshLocked() (quick string, fresh bool) {
	if sv.store == nil {
		return "", false
	}
	quick = sv.changeStamp(sv.store.Dir, sv.store.Root, false)
	if quick != sv.quick || sv.seenFull != sv.stamp {
		return quick, false
	}
	if !sv.checking && time.Since(sv.checked) >= fullCheckEvery {
		sv.checking, sv.checked = true, time.Now()
		dir, root := sv.store.Dir, sv.store.Root
		go func() {
			full := sv.changeStamp(dir, root, true)
			sv.mu.Lock()
			sv.seenFull, sv.checking = full, false
			sv.mu.Unlock()
		}()
	}
	return quick, true
}

// refresh reads the store again when what the stamps cover has changed;
// its caller holds sv.build.
func (sv *Server) refresh() error {
	// The stamps are taken before reading, so a change made while the
	// store is read shows at the next request.
	sv.mu.Lock()
	quick, fresh := sv.freshLocked()
	sv.mu.Unlock()
	if fresh && sv.src != nil {
		return nil
	}
	s, err := sv.Open()
	if err != nil {
		return err
	}
	if quick == "" {
		quick = sv.changeStamp(s.Dir, s.Root, false)
	}
	full := sv.changeStamp(s.Dir, s.Root, true)
	src, _, err := site.Open(s)
	if err != nil {
		return err
	}
	sv.src = src
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.store = s
	sv.pages.clear()
	sv.ranges.clear()
	sv.quick, sv.stamp, sv.seenFull, sv.checked = quick, full, full, time.Now()
	sv.builtAt++
	return nil
}

// changeStamp hashes the modification time and size of what td reads for
// the pages: the directories under .todos holding the issues, ledgers and
// sessions, the config, and git's HEAD, its log and refs, which move with
// every commit, checkout and claim. td replaces a file by renaming, which
// changes its directory; with all, every file in those directories too,
// for an editor that writes a file in place.
func (sv *Server) changeStamp(todos, root string, all bool) string {
	h := fnv.New64a()
	var buf [16]byte
	note := func(name string, fi os.FileInfo) {
		h.Write([]byte(name))
		binary.LittleEndian.PutUint64(buf[:8], uint64(fi.ModTime().UnixNano()))
		binary.LittleEndian.PutUint64(buf[8:], uint64(fi.Size()))
		h.Write(buf[:])
	}
	stat := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			note(p, fi)
		}
	}
	stat(filepath.Join(todos, "config.yaml"))
	for _, d := range []string{repo.IssuesDir, repo.HistoryDir, repo.SessionsDir} {
		dir := filepath.Join(todos, d)
		stat(dir)
		if !all {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				note(e.Name(), fi)
			}
		}
	}
	git := filepath.Join(root, ".git")
	stat(filepath.Join(git, "HEAD"))
	stat(filepath.Join(git, "logs", "HEAD"))
	stat(filepath.Join(git, "packed-refs"))
	stat(filepath.Join(git, "refs", "td", "claims"))
	return strconv.FormatUint(h.Sum64(), 16)
}
