//go:build unix

package gitrepo

import (
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stampOf identifies a version of a file by inode, modification time and
// size.
func stampOf(fi fs.FileInfo) fileStamp {
	s := fileStamp{mtime: fi.ModTime().UnixNano(), size: fi.Size()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = int64(st.Ino)
	}
	return s
}

// processAlive reports whether a process with this ID exists; one owned by
// another user counts.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// signalWatch removes a lock set's locks when the process is told to stop.
type signalWatch struct {
	ch   chan os.Signal
	done chan struct{}
}

// startSignalWatch catches SIGINT, SIGTERM and SIGHUP while s holds
// anything: the locks and the record are removed, then the signal is
// raised again with its default action, so the process ends as the signal
// says (a shell sees 130, 143 or 129), as git's own commands do.
func startSignalWatch(s *lockSet) *signalWatch {
	w := &signalWatch{ch: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(w.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-w.ch:
			s.mu.Lock() // held until the process ends: no lock moves after this
			s.removeAllLocked()
			signal.Reset(sig)
			n, _ := sig.(syscall.Signal)
			_ = syscall.Kill(os.Getpid(), n)
			time.Sleep(time.Second)
			os.Exit(128 + int(n))
		case <-w.done:
		}
	}()
	return w
}

func (w *signalWatch) stop() {
	signal.Stop(w.ch)
	close(w.done)
}
