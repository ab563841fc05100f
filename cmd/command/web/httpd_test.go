package web_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/repo"
)

// TestServe speaks HTTP to td serve's listener: a browser's requests, and
// what a browser would never send.
func TestServe(t *testing.T) {
	f := newFixture(t)
	ln, err := web.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	served := make(chan error, 1)
	sv := web.NewServer(func() (*repo.Store, error) { return f.store(t), nil }, "test", nil, boardFilter())
	go func() { served <- sv.Serve(ln, stop) }()
	base := "http://" + ln.Addr().String()

	resp, err := http.Get(base + "/issues/" + f.auth + ".html?from=board")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(string(body), "Sign in with GitHub") {
		t.Errorf("GET an issue: %d %q\n%.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers: %v", resp.Header)
	}
	resp, err = http.Head(base + "/")
	if err != nil || resp.StatusCode != 200 || resp.ContentLength <= 0 {
		t.Errorf("HEAD /: %v %v", resp, err)
	}

	raw := func(req string) string {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, req)
		status, _ := bufio.NewReader(c).ReadString('\n')
		return strings.TrimSpace(status)
	}
	for req, want := range map[string]string{
		"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":                        "HTTP/1.1 200 OK",
		"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n":  "HTTP/1.1 405 Method Not Allowed",
		"GET / HTTP/1.1\r\nHost: td.evil.example\r\n\r\n":                  "HTTP/1.1 403 Forbidden",
		"GET /%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":                     "HTTP/1.1 400 Bad Request",
		"GET http://elsewhere/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":        "HTTP/1.1 400 Bad Request",
		"GET http://127.0.0.1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":        "HTTP/1.1 400 Bad Request",
		"GET / HTTP/1.1\r\n\r\n":                                           "HTTP/1.1 400 Bad Request: missing required Host header",
		"HELLO\r\n\r\n":                                                    "HTTP/1.1 400 Bad Request",
		"GET / HTTP/1.1\r\nX: " + strings.Repeat("a", 70<<10) + "\r\n\r\n": "HTTP/1.1 431 Request Header Fields Too Large",
	} {
		if got := raw(req); got != want {
			t.Errorf("%.40q: %q, want %q", req, got, want)
		}
	}
	close(stop)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
