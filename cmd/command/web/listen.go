package web

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Listen listens on addr, a loopback address (Loopback) with a numeric
// port: td serve resolves no name but localhost, which is 127.0.0.1.
func Listen(addr string) (net.Listener, error) {
	ap, err := loopbackAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", ap.String())
	if err != nil {
		// "bind: address already in use", without the address the
		// caller's message already names.
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err
		}
		return nil, err
	}
	return ln, nil
}

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
