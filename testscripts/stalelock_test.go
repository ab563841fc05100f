//go:build unix

package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// stalelock FILE leaves FILE as a td process killed while holding it
// would: the lock file, and td's record of it in .git/td-locks naming a
// process that has ended. With --no-record only the lock file is made, as
// git or a person would leave it.
func cmdStaleLock(ts *testscript.TestScript, neg bool, args []string) {
	record := true
	if len(args) > 0 && args[0] == "--no-record" {
		record, args = false, args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stalelock [--no-record] FILE")
	}
	lock := ts.MkAbs(args[0])
	ts.Check(os.WriteFile(lock, nil, 0o644))
	if !record {
		return
	}
	cmd := exec.Command("git", "--version")
	ts.Check(cmd.Run())
	pid := strconv.Itoa(cmd.Process.Pid)
	fi, err := os.Lstat(lock)
	ts.Check(err)
	ino := int64(0)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = int64(st.Ino)
	}
	// Start 0, which no process the git program runs as has: should the
	// system give the ended process's ID to another one, the record still
	// names a process that is gone.
	rec := "td " + pid + " 0\nlock " + strconv.FormatInt(ino, 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + " " + strconv.FormatInt(fi.Size(), 10) + " " + lock + "\n"
	dir := ts.MkAbs(filepath.Join(".git", "td-locks"))
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.WriteFile(filepath.Join(dir, pid), []byte(rec), 0o644))
}
