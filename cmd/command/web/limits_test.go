package web_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/repo"
)

// serveFor starts sv on a free loopback port and returns its address;
// the server stops when the test ends, and must stop cleanly.
func serveFor(t *testing.T, sv *web.Server) string {
	t.Helper()
	ln, err := web.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	served := make(chan error, 1)
	go func() { served <- sv.Serve(ln, stop) }()
	t.Cleanup(func() {
		close(stop)
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not stop")
		}
	})
	return ln.Addr().String()
}

// getPage reads a page with client, failing the test on a transport error.
func getPage(t *testing.T, client *http.Client, url string) (int, []byte) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, b
}

// closedWithin waits for the server to close c, reading whatever it
// sends, and returns how long that took (limit: not closed by then).
func closedWithin(c net.Conn, limit time.Duration) time.Duration {
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return limit
	}
	return time.Since(start)
}

// TestServeSlowClient: a client that sends its request a byte every half
// second is cut off at the header deadline, counted from the request's
// start, not at the first pause that long.
func TestServeSlowClient(t *testing.T) {
	l := web.DefaultLimits
	l.ReadHeader, l.Read = 2*time.Second, 3*time.Second
	sv := web.NewServer(func() (*repo.Store, error) { return nil, fmt.Errorf("no store") }, "test", nil, boardFilter()).WithLimits(l)
	addr := serveFor(t, sv)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	sent := make(chan int, 1)
	go func() {
		n := 0
		for _, b := range []byte("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + strings.Repeat("a", 40)) {
			if _, err := c.Write([]byte{b}); err != nil {
				break
			}
			n++
			time.Sleep(500 * time.Millisecond)
		}
		sent <- n
	}()
	took := closedWithin(c, 15*time.Second)
	if took >= 15*time.Second {
		t.Fatalf("the slow client was still connected after %v", time.Since(start))
	}
	// 2 s, and the time a busy machine takes to notice; a per-read
	// timeout would hold it until the client stops, 20 s on.
	if took < 1500*time.Millisecond || took > 6*time.Second {
		t.Errorf("the slow client was cut off after %v; want at the 2 s header deadline", took)
	}
	if n := <-sent; n < 4 {
		t.Errorf("the client sent only %d bytes before it was cut off: the test did not test a slow client", n)
	}
}

// TestServeIdleAndManyRanges: 200 connections that send nothing do not
// stop td serve answering, nor do 1,000 spellings of diff ranges make it
// keep more than its bounds; every spelling of one range is one page,
// built once; the idle connections are closed at the header deadline.
func TestServeIdleAndManyRanges(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 requests and 200 connections: not in -short")
	}
	f := newFixture(t)
	// Ten more commits on the branch: eleven ranges with pages of their
	// own, more than the server may keep.
	for i := 0; i < 10; i++ {
		td(t, f.dir, "comment", f.auth, fmt.Sprintf("note %d", i))
		git(t, f.dir, "add", "-A")
		git(t, f.dir, "commit", "-q", "-m", fmt.Sprintf("note %d", i))
	}
	l := web.DefaultLimits
	l.ReadHeader, l.MaxPages, l.MaxPageBytes = 4*time.Second, 8, 1<<20
	sv := web.NewServer(func() (*repo.Store, error) { return f.store(t), nil }, "test", []string{f.rng}, boardFilter()).WithLimits(l)
	addr := serveFor(t, sv)
	base := "http://" + addr
	client := &http.Client{Timeout: 30 * time.Second}
	if code, _ := getPage(t, client, base+"/"); code != 200 {
		t.Fatalf("GET /: %d", code)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	idle := make([]net.Conn, 200)
	for i := range idle {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("idle connection %d: %v", i, err)
		}
		defer c.Close()
		idle[i] = c
	}
	opened := time.Now()

	// 1,000 spellings of main..feature~10 (the navigation's range): no two
	// alike, one page.
	var first []byte
	for i := 0; i < 1000; i++ {
		rng := "main" + strings.Repeat("~0", i%40) + ".." + "feature" + strings.Repeat("^0", i/40) + "~10"
		if i%2 == 1 {
			rng = strings.Replace(rng, "..", "...", 1)
		}
		code, body := getPage(t, client, base+"/diff/"+rng+".html")
		if code != 200 {
			t.Fatalf("GET diff/%s.html: %d\n%.300s", rng, code, body)
		}
		if first == nil {
			first = body
		} else if !bytes.Equal(body, first) {
			t.Fatalf("diff/%s.html differs from the first spelling's page", rng)
		}
		if pages, _ := sv.Cached(); pages > 2 {
			t.Fatalf("after %d spellings of one range td serve keeps %d pages; want the board and the range's", i+1, pages)
		}
	}
	if !strings.Contains(string(first), "criterion completed") {
		t.Errorf("the range's page:\n%.500s", first)
	}
	if time.Since(opened) < l.ReadHeader {
		// The requests were answered while the idle connections were
		// all still open: check one is.
		idle[0].SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if _, err := idle[0].Read(make([]byte, 1)); err == nil || !err.(net.Error).Timeout() {
			t.Errorf("an idle connection closed early: %v", err)
		}
	}
	// Eleven ranges of their own: at most 8 pages, and their bytes, kept.
	for k := 0; k <= 10; k++ {
		rng := fmt.Sprintf("main..feature~%d", k)
		if code, body := getPage(t, client, base+"/diff/"+rng+".html"); code != 200 {
			t.Fatalf("GET diff/%s.html: %d\n%.300s", rng, code, body)
		}
		if pages, size := sv.Cached(); pages > l.MaxPages || size > l.MaxPageBytes {
			t.Fatalf("td serve keeps %d pages, %d bytes; the bounds are %d and %d", pages, size, l.MaxPages, l.MaxPageBytes)
		}
	}
	if pages, _ := sv.Cached(); pages != l.MaxPages {
		t.Errorf("td serve keeps %d pages; want %d, its bound", pages, l.MaxPages)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 32<<20 {
		t.Errorf("the heap grew by %d MB", grew>>20)
	}
	t.Logf("heap %d KB before, %d KB after 1,000 diff addresses and 200 idle connections", before.HeapAlloc>>10, after.HeapAlloc>>10)

	// Every idle connection is closed at the header deadline.
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range idle {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if closedWithin(c, l.ReadHeader+10*time.Second-time.Since(opened)) >= l.ReadHeader+10*time.Second-time.Since(opened) {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if open > 0 {
		t.Errorf("%d of 200 idle connections still open %v after they opened", open, time.Since(opened))
	}
}

// TestServeConnectionLimit: past MaxConns, a connection waits to be
// accepted until one of those served ends.
func TestServeConnectionLimit(t *testing.T) {
	l := web.DefaultLimits
	l.MaxConns = 3
	sv := web.NewServer(func() (*repo.Store, error) { return nil, fmt.Errorf("no store") }, "test", nil, boardFilter()).WithLimits(l)
	addr := serveFor(t, sv)
	var held []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	answered := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/style.css")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
		}
		answered <- err
	}()
	select {
	case err := <-answered:
		t.Fatalf("a fourth connection was served while three were held (%v)", err)
	case <-time.After(500 * time.Millisecond):
	}
	held[0].Close()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the fourth connection was not served once one ended")
	}
}

// TestServeRequestLimit: a page that takes longer than Limits.Request to
// build is answered 503, and built all the same for the next request;
// pages already built are answered meanwhile.
func TestServeRequestLimit(t *testing.T) {
	f := newFixture(t)
	l := web.DefaultLimits
	l.Request = 300 * time.Millisecond
	sv := web.NewServer(func() (*repo.Store, error) { return f.store(t), nil }, "test", []string{f.rng}, boardFilter()).WithLimits(l)
	base := "http://" + serveFor(t, sv)
	client := &http.Client{Timeout: 30 * time.Second}
	if code, _ := getPage(t, client, base+"/"); code != 200 {
		t.Fatalf("GET /: %d", code)
	}
	release := make(chan struct{})
	issue := "issues/" + f.auth + ".html"
	defer web.SetBuildHook(func(p string) {
		if p == issue {
			<-release
		}
	})()
	start := time.Now()
	resp, err := client.Get(base + "/" + issue)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "5" || !strings.Contains(string(body), "td serve is still building this page") {
		t.Errorf("a page slower than the limit: %d %v\n%.400s", resp.StatusCode, resp.Header, body)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the request waited %v; the limit is %v", d, l.Request)
	}
	// Another page waiting to be built gives up too; the board, built,
	// is answered at once.
	if code, _ := getPage(t, client, base+"/issues/"+f.epic+".html"); code != 503 {
		t.Errorf("a page waiting behind a slow one: %d, want 503", code)
	}
	if code, _ := getPage(t, client, base+"/"); code != 200 {
		t.Errorf("the board while a page is built: %d", code)
	}
	close(release)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, body := getPage(t, client, base+"/"+issue)
		if code == 200 && strings.Contains(string(body), "Write the callback") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slow page, released, was not served: %d", code)
		}
	}
}
