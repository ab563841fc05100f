//go:build !unix

package gitrepo

import (
	"io/fs"
	"os"
	"os/signal"
)

// stampOf identifies a version of a file by modification time and size.
func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{mtime: fi.ModTime().UnixNano(), size: fi.Size()}
}

// processAlive reports whether a process with this ID exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

// signalWatch removes a lock set's locks when the process is interrupted.
type signalWatch struct {
	ch   chan os.Signal
	done chan struct{}
}

// startSignalWatch catches an interrupt while s holds anything, removes
// the locks and the record, and ends the process with status 130.
func startSignalWatch(s *lockSet) *signalWatch {
	w := &signalWatch{ch: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(w.ch, os.Interrupt)
	go func() {
		select {
		case <-w.ch:
			s.mu.Lock()
			s.removeAllLocked()
			os.Exit(130)
		case <-w.done:
		}
	}()
	return w
}

func (w *signalWatch) stop() {
	signal.Stop(w.ch)
	close(w.done)
}
