package gitrepo

import (
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// dirStats stats work tree files by their name in their directory, open
// once: td check --base compares 20,000 files with the index at 10,000
// issues, and an os.Lstat of each absolute path walked every directory
// above it and built a FileInfo, three times the cost of one fstatat.
type dirStats struct {
	root string
	fds  map[string]int // slash-separated directory -> open descriptor
	open []*os.File
}

// newDirStats opens the directories of names (slash-separated, relative
// to root); one that cannot be opened leaves its files to os.Lstat.
func newDirStats(root string, names []string) *dirStats {
	d := &dirStats{root: root, fds: map[string]int{}}
	for _, n := range names {
		dir := path.Dir(n)
		if _, ok := d.fds[dir]; ok {
			continue
		}
		d.fds[dir] = -1
		f, err := os.Open(root + "/" + dir)
		if err != nil {
			continue
		}
		d.open = append(d.open, f)
		d.fds[dir] = int(f.Fd())
	}
	return d
}

func (d *dirStats) close() {
	for _, f := range d.open {
		f.Close()
	}
}

// lstat returns the stat data git keeps of the file name, and whether it
// is a regular file (false for anything else, or when it is missing).
func (d *dirStats) lstat(name string) (statData, bool) {
	fd := d.fds[path.Dir(name)]
	if fd < 0 {
		return lstatPath(d.root, name)
	}
	var st unix.Stat_t
	var err error
	for {
		err = unix.Fstatat(fd, path.Base(name), &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return statData{}, false
	}
	var sd statData
	if sec, nsec := st.Mtim.Unix(); sec >= 0 {
		sd.mtimeSec, sd.mtimeNsec = uint32(sec), uint32(nsec)
	}
	sd.ctimeSec, sd.ctimeNsec = sd.mtimeSec, sd.mtimeNsec
	if sec, nsec := st.Ctim.Unix(); sec >= 0 {
		sd.ctimeSec, sd.ctimeNsec = uint32(sec), uint32(nsec)
	}
	sd.size = uint32(st.Size) // git keeps the size modulo 2^32
	sd.dev, sd.ino = uint32(st.Dev), uint32(st.Ino)
	sd.uid, sd.gid = st.Uid, st.Gid
	return sd, true
}
