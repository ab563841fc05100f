package web_test

import (
	"net"
	"strings"
	"testing"

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

// TestListen checks what the listener td serve uses refuses, the port it
// reports and a port in use.
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
	defer ln.Close()
	addr := ln.Addr().String()
	if !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Errorf("Addr() = %q, want 127.0.0.1 and the port the system chose", addr)
	}
	// Another listener on the same port is refused, in words that do
	// not repeat the address.
	if other, err := web.Listen(addr); err == nil {
		other.Close()
		t.Error("a second listener took a port in use")
	} else if err.Error() != "bind: address already in use" {
		t.Errorf("a port in use: %v", err)
	}
	if ln6, err := web.Listen("[::1]:0"); err == nil {
		if !strings.HasPrefix(ln6.Addr().String(), "[::1]:") {
			t.Errorf("[::1]:0 listened on %s", ln6.Addr())
		}
		ln6.Close()
	}
}
