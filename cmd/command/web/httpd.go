package web

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/net/netutil"
)

// The HTTP statuses td serve answers with.
const (
	StatusOK                  = http.StatusOK
	StatusBadRequest          = http.StatusBadRequest
	StatusForbidden           = http.StatusForbidden
	StatusNotFound            = http.StatusNotFound
	StatusMethodNotAllowed    = http.StatusMethodNotAllowed
	StatusInternalServerError = http.StatusInternalServerError
	StatusServiceUnavailable  = http.StatusServiceUnavailable
)

// Limits bound what td serve gives any one client, and all of them: any
// page in a browser on this machine can send requests to 127.0.0.1, so
// none of these depends on the client's good manners.
type Limits struct {
	// ReadHeader is how long a client has to send a request's line and
	// header fields; Read, the whole request. Both are deadlines from the
	// request's start, not per read: a client sending a byte now and then
	// is cut off all the same.
	ReadHeader, Read time.Duration
	// Write bounds the time from the end of the request's header to the
	// end of its answer.
	Write time.Duration
	// Idle is how long a kept-alive connection may wait for its next
	// request.
	Idle time.Duration
	// Request is how long a request waits for its page to be built: past
	// it, td serve answers 503 and keeps building, so a reload finds the
	// page.
	Request time.Duration
	// MaxHeaderBytes bounds a request's line and header fields.
	MaxHeaderBytes int
	// MaxConns is how many connections are served at once; more wait to
	// be accepted until one ends.
	MaxConns int
	// MaxPages and MaxPageBytes bound the pages kept in memory.
	MaxPages     int
	MaxPageBytes int64
}

// DefaultLimits are td serve's. A browser opens about six connections to
// a host; a board of 20,000 issues is about 13 MB of HTML.
var DefaultLimits = Limits{
	ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 120 * time.Second, Idle: 60 * time.Second,
	Request: 60 * time.Second, MaxHeaderBytes: 64 << 10, MaxConns: 256,
	MaxPages: 256, MaxPageBytes: 64 << 20,
}

// Serve answers HTTP on ln until stop is closed, then waits a few seconds
// for the answers under way. It keeps serving when the system runs out of
// file descriptors: net/http waits and accepts again (from 5 ms up to a
// second apart) on an error the system calls temporary, as EMFILE and
// ENFILE are.
func (sv *Server) Serve(ln net.Listener, stop <-chan struct{}) error {
	l := sv.limits
	hs := &http.Server{
		Handler:           sv,
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		// net/http's notes (a client that went away, an accept retried)
		// are not td's to print, unless asked for.
		ErrorLog: log.New(cmp.Or[io.Writer](sv.Log, io.Discard), "td serve: ", 0),
	}
	if l.MaxConns > 0 {
		ln = netutil.LimitListener(ln, l.MaxConns)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-stop:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		hs.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ServeHTTP answers one request (Respond).
func (sv *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	if sv.limits.Request > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sv.limits.Request)
		defer cancel()
	}
	r := sv.respond(ctx, req.Method, req.RequestURI, req.Host)
	h := w.Header()
	for _, kv := range r.Header {
		h.Add(kv[0], kv[1])
	}
	h.Set("Content-Length", strconv.Itoa(len(r.Body)))
	w.WriteHeader(r.Status)
	if req.Method != http.MethodHead {
		w.Write(r.Body)
	}
}
