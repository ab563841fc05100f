//go:build darwin || freebsd || netbsd

package gitrepo

import (
	"io/fs"
	"syscall"
)

func fillSys(sd *statData, fi fs.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	sec, nsec := st.Ctimespec.Unix()
	if sec >= 0 {
		sd.ctimeSec, sd.ctimeNsec = uint32(sec), uint32(nsec)
	}
	sd.dev, sd.ino = uint32(st.Dev), uint32(st.Ino)
	sd.uid, sd.gid = uint32(st.Uid), uint32(st.Gid)
}
