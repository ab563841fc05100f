package web

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// The HTTP statuses td serve answers with.
const (
	StatusOK                  = 200
	StatusBadRequest          = 400
	StatusForbidden           = 403
	StatusNotFound            = 404
	StatusMethodNotAllowed    = 405
	StatusInternalServerError = 500
)

var statusText = map[int]string{
	StatusOK: "OK", StatusBadRequest: "Bad Request", StatusForbidden: "Forbidden", StatusNotFound: "Not Found",
	StatusMethodNotAllowed: "Method Not Allowed", StatusInternalServerError: "Internal Server Error",
}

// maxRequestHead bounds what td serve reads of a request: its line and
// header fields. A browser's are a few hundred bytes.
const maxRequestHead = 64 << 10

// Serve answers HTTP/1.1 requests on ln until stop is closed, one request
// per connection. td serve speaks just what a browser on this machine
// needs to read pages (GET and HEAD, no bodies, no keep-alive) rather than
// link net/http, whose TLS, HTTP/2 and proxy support would weigh on every
// td command's start-up for a server that only ever listens on loopback.
func (sv *Server) Serve(ln Listener, stop <-chan struct{}) error {
	var wg sync.WaitGroup
	go func() {
		<-stop
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			select {
			case <-stop:
				wg.Wait()
				return nil
			default:
			}
			var te interface{ Timeout() bool }
			if errors.As(err, &te) && te.Timeout() {
				continue
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sv.serveConn(conn)
		}()
	}
}

// serveConn reads one request from conn, answers it and closes conn.
func (sv *Server) serveConn(conn Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	method, target, host, err := readRequest(bufio.NewReaderSize(conn, 4096))
	var r Response
	if err != nil {
		r = Response{Status: StatusBadRequest, Body: []byte("td serve cannot read this request\n"),
			Header: [][2]string{{"Content-Type", "text/plain; charset=utf-8"}}}
	} else {
		r = sv.Respond(method, target, host)
	}
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\n", r.Status, statusText[r.Status])
	for _, h := range r.Header {
		fmt.Fprintf(w, "%s: %s\r\n", h[0], h[1])
	}
	fmt.Fprintf(w, "Content-Length: %d\r\nConnection: close\r\n\r\n", len(r.Body))
	if method != "HEAD" {
		w.Write(r.Body)
	}
	w.Flush()
}

// readRequest reads a request's line and header fields, returning its
// method, target and Host.
func readRequest(br *bufio.Reader) (method, target, host string, err error) {
	read := 0
	line := func() (string, error) {
		l, err := br.ReadSlice('\n')
		read += len(l)
		if err != nil || read > maxRequestHead {
			return "", errors.New("bad request head")
		}
		return strings.TrimRight(string(l), "\r\n"), nil
	}
	first, err := line()
	if err != nil {
		return "", "", "", err
	}
	parts := strings.Split(first, " ")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") {
		return "", "", "", errors.New("bad request line")
	}
	method, target = parts[0], parts[1]
	for {
		l, err := line()
		if err != nil {
			return "", "", "", err
		}
		if l == "" {
			break
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return "", "", "", errors.New("bad header field")
		}
		if strings.EqualFold(strings.TrimSpace(k), "Host") {
			host = strings.TrimSpace(v)
		}
	}
	return method, target, host, nil
}
