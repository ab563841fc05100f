package gitrepo

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// statData is the file system information git keeps in an index entry to
// tell whether a file changed without reading it.
type statData struct {
	ctimeSec, ctimeNsec uint32
	mtimeSec, mtimeNsec uint32
	dev, ino            uint32
	uid, gid            uint32
	size                uint32
}

// statFromFileInfo fills the portable part of statData; the per-platform
// fillSys adds ctime, device, inode and owner where the system has them.
func statFromFileInfo(fi fs.FileInfo) statData {
	var sd statData
	mt := fi.ModTime()
	sd.mtimeSec, sd.mtimeNsec = timeParts(mt)
	sd.ctimeSec, sd.ctimeNsec = sd.mtimeSec, sd.mtimeNsec
	sd.size = uint32(fi.Size()) // git keeps the size modulo 2^32
	fillSys(&sd, fi)
	return sd
}

// timeParts splits t into the 32-bit seconds and nanoseconds git stores.
func timeParts(t time.Time) (sec, nsec uint32) {
	if t.Unix() < 0 {
		return 0, 0
	}
	return uint32(t.Unix()), uint32(t.Nanosecond())
}

// lstatPath returns the stat data git keeps of the file name (slash-
// separated, relative to root), and whether it is a regular file.
func lstatPath(root, name string) (statData, bool) {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil || !fi.Mode().IsRegular() {
		return statData{}, false
	}
	return statFromFileInfo(fi), true
}
