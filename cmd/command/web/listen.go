package web

import (
	"errors"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// A Listener hands Serve the connections of browsers on this machine.
//
// td serve does not import package net: on Linux and the BSDs, linking
// it makes the Go toolchain link the C library for name resolution
// whenever a C compiler is present, and a dynamically linked td spent
// about 1 ms more starting every command (a harness hook included) than
// the static one. Listen speaks to the system's sockets directly there
// (listen_unix.go); elsewhere it wraps package net (listen_other.go).
type Listener interface {
	// Accept waits for the next connection; after Close it returns
	// ErrClosed.
	Accept() (Conn, error)
	// Close stops the listener: a waiting Accept returns ErrClosed.
	Close() error
	// Addr is the address listened on, host:port, with the port the
	// system chose for port 0.
	Addr() string
}

// Conn is one browser connection.
type Conn interface {
	io.ReadWriteCloser
	// SetDeadline bounds every later read and write: one past it fails
	// with an error whose Timeout method reports true.
	SetDeadline(t time.Time) error
}

// ErrClosed is what Accept returns once the listener is closed.
var ErrClosed = errors.New("the listener is closed")

// SplitHostPort splits host:port, or [host]:port for an IPv6 address.
func SplitHostPort(addr string) (host, port string, err error) {
	bad := func() (string, string, error) {
		return "", "", errors.New("address " + strconv.Quote(addr) + " is not host:port")
	}
	if strings.HasPrefix(addr, "[") {
		end := strings.IndexByte(addr, ']')
		if end < 0 || !strings.HasPrefix(addr[end+1:], ":") {
			return bad()
		}
		return addr[1:end], addr[end+2:], nil
	}
	i := strings.LastIndexByte(addr, ':')
	if i < 0 || strings.IndexByte(addr[:i], ':') >= 0 {
		return bad()
	}
	return addr[:i], addr[i+1:], nil
}

// loopbackAddr resolves a loopback address td serve may listen on:
// localhost is 127.0.0.1, as the resolver gives it on every system td
// runs on; anything else must be a loopback IP address and a port number.
func loopbackAddr(addr string) (netip.AddrPort, error) {
	host, port, err := SplitHostPort(addr)
	if err != nil {
		return netip.AddrPort{}, err
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return netip.AddrPort{}, errors.New("port " + strconv.Quote(port) + " is not a number from 0 to 65535")
	}
	ip := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if host != "localhost" {
		if ip, err = netip.ParseAddr(host); err != nil || !ip.Unmap().IsLoopback() {
			return netip.AddrPort{}, errors.New(strconv.Quote(host) + " is not a loopback address")
		}
	}
	return netip.AddrPortFrom(ip.Unmap(), uint16(n)), nil
}
