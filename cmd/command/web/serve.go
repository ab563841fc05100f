package web

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
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
	"github.com/tdproject/td/repo/site"
)

// Server serves the site's pages live from the store: the same pages td
// board --html writes, at the same paths, built when asked for. It only
// reads. The store is opened again, and the pages built again, when
// anything under .todos (or git's HEAD, for the commits an issue page
// lists) has changed since the last request: a stat of a few directories
// decides (and of every file, once a second at most), and a page asked
// for twice in between is served from memory.
type Server struct {
	// Open opens the store afresh.
	Open func() (*repo.Store, error)
	// Ranges are the revision ranges the navigation links to; any other
	// is served when asked for by its path.
	Ranges []string
	Filter board.Filter
	render *Renderer
	mu     sync.Mutex
	// quick and stamp are the cheap and the full change stamps of the
	// store last read; seenFull is the full stamp the last background
	// check saw, checked when it started, checking whether one runs.
	quick, stamp, seenFull string
	checked                time.Time
	checking               bool
	src                    *site.Source
	store                  *repo.Store
	pages                  map[string][]byte
	builtAt                int // how many times the store was read, for tests
}

// NewServer is a Server for the store open opens.
func NewServer(open func() (*repo.Store, error), version string, ranges []string, f board.Filter) *Server {
	return &Server{Open: open, Ranges: ranges, Filter: f, render: NewRenderer(version, false)}
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
// client that addressed this machine by a loopback name.
func (sv *Server) Respond(method, target, host string) Response {
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
	r.Body, r.Status = sv.page(p)
	r.Header = append(r.Header, [2]string{"Content-Type", "text/html; charset=utf-8"})
	return r
}

// page builds (or finds in memory) the page at p, with its HTTP status.
func (sv *Server) page(p string) ([]byte, int) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	root := strings.Repeat("../", strings.Count(p, "/"))
	if err := sv.refresh(); err != nil {
		return sv.failure(root, "td cannot read this repository", err.Error(), StatusInternalServerError)
	}
	if b, ok := sv.pages[p]; ok {
		return b, StatusOK
	}
	var b bytes.Buffer
	var err error
	diffs := sv.diffLinks()
	switch {
	case p == site.BoardPath:
		var bp *site.Board
		if bp, err = sv.src.Board(sv.Filter, diffs); err == nil {
			err = sv.render.Board(&b, bp)
		}
	case strings.HasPrefix(p, site.IssuesDir+"/") && strings.HasSuffix(p, ".html") && strings.Count(p, "/") == 1:
		id := strings.TrimSuffix(strings.TrimPrefix(p, site.IssuesDir+"/"), ".html")
		if !repo.ValidIssueID(id) || !sv.src.Has(id) {
			return sv.failure(root, "No such issue", fmt.Sprintf("There is no issue %s in this repository.", id), StatusNotFound)
		}
		var is *site.Issue
		if is, err = sv.src.Issue(id); err == nil {
			err = sv.render.Issue(&b, is, diffs)
		}
	case strings.HasPrefix(p, site.DiffsDir+"/") && strings.HasSuffix(p, ".html") && strings.Count(p, "/") == 1:
		name := strings.TrimSuffix(strings.TrimPrefix(p, site.DiffsDir+"/"), ".html")
		rng := name
		for _, r := range sv.Ranges {
			if b, h := site.ParseRange(r); site.RangeName(b, h) == name {
				rng = r
			}
		}
		var d *site.Diff
		if d, err = sv.src.Diff(rng); err == nil {
			err = sv.render.Diff(&b, d, diffs)
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
	sv.pages[p] = b.Bytes()
	return b.Bytes(), StatusOK
}

func (sv *Server) failure(root, title, msg string, status int) ([]byte, int) {
	var b bytes.Buffer
	repoName := ""
	if sv.store != nil {
		repoName = filepath.Base(sv.store.Root)
	}
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

// refresh reads the store again when what the stamps cover has changed.
// Every request compares the cheap stamp (the directories, config, git's
// HEAD), which catches whatever td writes; the full one (every file), for
// a file an editor wrote in place, is taken in the background at most once
// a second, so no request waits for it: such an edit shows at the request
// after the check that saw it.
func (sv *Server) refresh() error {
	// The stamps are taken before reading, so a change made while the
	// store is read shows at the next request.
	var quick string
	if sv.store != nil && sv.src != nil {
		quick = sv.changeStamp(sv.store.Dir, sv.store.Root, false)
		if quick == sv.quick && sv.seenFull == sv.stamp {
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
			return nil
		}
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
	sv.store, sv.src, sv.pages = s, src, map[string][]byte{}
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
