//go:build !unix

package web

import (
	"errors"
	"net"
)

// Listen listens on addr, a loopback address (Loopback), with package
// net: on these systems linking it does not link the C library.
func Listen(addr string) (Listener, error) {
	ap, err := loopbackAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", ap.String())
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err
		}
		return nil, err
	}
	return netListener{ln}, nil
}

type netListener struct{ ln net.Listener }

func (l netListener) Addr() string { return l.ln.Addr().String() }
func (l netListener) Close() error { return l.ln.Close() }

func (l netListener) Accept() (Conn, error) {
	c, err := l.ln.Accept()
	if errors.Is(err, net.ErrClosed) {
		return nil, ErrClosed
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}
