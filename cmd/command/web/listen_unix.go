//go:build unix

package web

import (
	"errors"
	"io"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Listen listens on addr, a loopback address (Loopback), with the
// system's sockets: see Listener for why not package net.
func Listen(addr string) (Listener, error) {
	ap, err := loopbackAddr(addr)
	if err != nil {
		return nil, err
	}
	family, sa := unix.AF_INET, unix.Sockaddr(&unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
	if ap.Addr().Is6() {
		family, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	var wake [2]int
	fail := func(err error) (Listener, error) {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail(err)
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail(errors.New("bind: " + err.Error()))
	}
	if err := unix.Listen(fd, 128); err != nil {
		return fail(errors.New("listen: " + err.Error()))
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		return fail(err)
	}
	if err := unix.Pipe(wake[:]); err != nil {
		return fail(err)
	}
	unix.CloseOnExec(wake[0])
	unix.CloseOnExec(wake[1])
	l := &sockListener{fd: fd, wakeR: wake[0], wakeW: wake[1], addr: ap.String()}
	if got, err := unix.Getsockname(fd); err == nil {
		switch a := got.(type) {
		case *unix.SockaddrInet4:
			l.addr = netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)).String()
		case *unix.SockaddrInet6:
			l.addr = netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port)).String()
		}
	}
	return l, nil
}

// sockListener is a listening socket. Close only wakes the Accept that
// waits, through a pipe; that Accept closes the socket, so no descriptor
// is closed while another goroutine still polls it.
type sockListener struct {
	fd, wakeR, wakeW int
	addr             string
	closed           atomic.Bool
	mu               sync.Mutex // one Accept at a time
	done             bool
}

func (l *sockListener) Addr() string { return l.addr }

func (l *sockListener) Close() error {
	if !l.closed.Swap(true) {
		unix.Write(l.wakeW, []byte{0})
	}
	return nil
}

func (l *sockListener) Accept() (Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		if l.done {
			return nil, ErrClosed
		}
		if l.closed.Load() {
			l.done = true
			unix.Close(l.fd)
			unix.Close(l.wakeR)
			unix.Close(l.wakeW)
			return nil, ErrClosed
		}
		fds := []unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLIN}, {Fd: int32(l.wakeR), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
			return nil, err
		}
		if fds[1].Revents != 0 {
			continue // Close woke us
		}
		syscall.ForkLock.RLock()
		nfd, _, err := unix.Accept(l.fd)
		if err == nil {
			unix.CloseOnExec(nfd)
		}
		syscall.ForkLock.RUnlock()
		switch {
		case err == unix.EAGAIN || err == unix.EINTR || err == unix.ECONNABORTED:
			continue // the connection went away before it was taken
		case err != nil:
			return nil, err
		}
		// A socket accepted on a BSD inherits non-blocking mode: reads and
		// writes here block, each connection on its own goroutine.
		if err := unix.SetNonblock(nfd, false); err != nil {
			unix.Close(nfd)
			continue
		}
		return &sockConn{fd: nfd}, nil
	}
}

// sockConn is one accepted connection, read and written with blocking
// system calls bounded by the socket's own timeouts.
type sockConn struct{ fd int }

// timeout is the error of a read or write past the deadline.
type timeout struct{}

func (timeout) Error() string { return "i/o timeout" }
func (timeout) Timeout() bool { return true }

func (c *sockConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(c.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, timeout{}
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *sockConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Write(c.fd, p[done:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return done, timeout{}
		case err != nil:
			return done, err
		}
		done += n
	}
	return done, nil
}

func (c *sockConn) Close() error { return unix.Close(c.fd) }

func (c *sockConn) SetDeadline(t time.Time) error {
	d := time.Until(t)
	if d < time.Millisecond {
		d = time.Millisecond
	}
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if err := unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return err
	}
	return unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
}
