package web_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/cmd/command/web"
)

func TestSplitHostPort(t *testing.T) {
	for _, c := range []struct{ addr, host, port string }{
		{"127.0.0.1:8080", "127.0.0.1", "8080"},
		{"localhost:0", "localhost", "0"},
		{"[::1]:80", "::1", "80"},
		{":8080", "", "8080"},
		{"127.0.0.1:", "127.0.0.1", ""},
		{"127.0.0.1", "", ""},
		{"::1:80", "", ""},
		{"[::1]80", "", ""},
		{"[::1", "", ""},
	} {
		host, port, err := web.SplitHostPort(c.addr)
		if (err != nil) != (c.host == "" && c.port == "") || host != c.host || port != c.port {
			t.Errorf("SplitHostPort(%q) = %q, %q, %v; want %q, %q", c.addr, host, port, err, c.host, c.port)
		}
		nh, np, nerr := net.SplitHostPort(c.addr)
		if (nerr == nil) != (err == nil) || nh != host || np != port {
			t.Errorf("SplitHostPort(%q) = %q, %q, %v; package net says %q, %q, %v", c.addr, host, port, err, nh, np, nerr)
		}
	}
}

// TestListen speaks to the listener td serve uses as a browser would, and
// checks what it refuses, its deadline and its close.
func TestListen(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", "example.com:80", "127.0.0.1:http", "127.0.0.1:70000", "127.0.0.1"} {
		if ln, err := web.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) listened on %s", addr, ln.Addr())
		}
	}
	ln, err := web.Listen("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ln.Addr(), "127.0.0.1:") || strings.HasSuffix(ln.Addr(), ":0") {
		t.Errorf("Addr() = %q, want 127.0.0.1 and the port the system chose", ln.Addr())
	}
	// Another listener on the same port is refused.
	if other, err := web.Listen(ln.Addr()); err == nil {
		other.Close()
		t.Error("a second listener took a port in use")
	} else if !strings.Contains(err.Error(), "in use") {
		t.Errorf("a port in use: %v", err)
	}

	accepted := make(chan web.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	conn := <-accepted
	if conn == nil {
		t.FailNow()
	}
	io.WriteString(client, "ping")
	buf := make([]byte, 4)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if _, err := io.WriteString(conn, "pong"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(client, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("the client read %q, %v", buf, err)
	}
	// A read past the deadline fails with a timeout.
	conn.SetDeadline(time.Now().Add(50 * time.Millisecond))
	start := time.Now()
	_, err = conn.Read(buf)
	var te interface{ Timeout() bool }
	if !errors.As(err, &te) || !te.Timeout() {
		t.Errorf("a read past the deadline: %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the deadline held the read for %v", d)
	}
	// The client's close is the end of the stream.
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	client.Close()
	if _, err := conn.Read(buf); err != io.EOF {
		t.Errorf("read after the client closed: %v, want EOF", err)
	}
	// Writing to a browser that went away is an error, not a signal that
	// ends td serve.
	big := []byte(strings.Repeat("x", 1<<20))
	var werr error
	for i := 0; i < 8 && werr == nil; i++ {
		_, werr = conn.Write(big)
	}
	if werr == nil {
		t.Error("writes to a closed connection kept succeeding")
	}
	conn.Close()

	// Close wakes a waiting Accept.
	done := make(chan error, 1)
	go func() {
		_, err := ln.Accept()
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	ln.Close()
	select {
	case err := <-done:
		if !errors.Is(err, web.ErrClosed) {
			t.Errorf("Accept after Close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake Accept")
	}
	if _, err := ln.Accept(); !errors.Is(err, web.ErrClosed) {
		t.Errorf("a later Accept: %v, want ErrClosed", err)
	}
	if _, err := net.Dial("tcp", ln.Addr()); err == nil {
		t.Error("the closed listener still takes connections")
	}
}
