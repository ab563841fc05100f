package gitrepo

import (
	"encoding/binary"
	"encoding/hex"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// CleanIndexHashes returns the object names the index records for the
// regular files below dir (slash-separated, relative to the work tree
// root) that git would call unchanged without reading them: the work
// tree file's modification time, size and, where the system keeps them,
// inode and change time equal the entry's stat data, and the file was
// modified before the index was written (an entry written in the same
// second as its file is "racily clean" and proves nothing). A file not
// in the map must be read to learn its object name. Only version 2 and 3
// indexes are read this way; others give an empty map.
func (r *Repo) CleanIndexHashes(dir string) (map[string]string, error) {
	data, indexSec, err := readIndexFile(r.gitDir, filepath.Join(r.gitDir, "index"))
	if err != nil || data == nil {
		return map[string]string{}, err
	}
	be := binary.BigEndian
	prefix := strings.TrimSuffix(dir, "/") + "/"
	if dir == "" {
		prefix = ""
	}
	type candidate struct {
		name string
		sd   statData
		hash []byte
	}
	var cands []candidate
	if len(data) >= indexHeaderLen {
		cands = make([]candidate, 0, min(int(be.Uint32(data[8:])), len(data)/62)) // 62: the smallest entry
	}
	err = walkIndex(data, func(off int, rec indexRecord) {
		e := data[off:]
		mode := be.Uint32(e[entryModeOffset:])
		if !strings.HasPrefix(string(rec.name), prefix) || rec.flags&flagStageMask != 0 || rec.xflags&xflagIntentToAdd != 0 || mode&modeTypeMask != modeRegular {
			return
		}
		var sd statData
		sd.ctimeSec, sd.ctimeNsec = be.Uint32(e[0:]), be.Uint32(e[4:])
		sd.mtimeSec, sd.mtimeNsec = be.Uint32(e[8:]), be.Uint32(e[12:])
		sd.dev, sd.ino = be.Uint32(e[16:]), be.Uint32(e[20:])
		sd.size = be.Uint32(e[entrySizeOffset:])
		if sd.mtimeSec >= indexSec {
			return // racily clean
		}
		cands = append(cands, candidate{name: string(rec.name), sd: sd, hash: e[entryHashOffset : entryHashOffset+hashLen]})
	}, func(string, []byte, []byte) {})
	if err != nil {
		return map[string]string{}, nil // another version, or damaged: git status rebuilds a damaged index
	}
	// One lstat per file, a few at a time per core: they are system calls,
	// each of a name in its directory, open once.
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.name
	}
	stats := newDirStats(r.root, names)
	defer stats.close()
	clean := make([]bool, len(cands))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(cands), 2*runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(cands); i = int(next.Add(1) - 1) {
				c := cands[i]
				now, ok := stats.lstat(c.name)
				if !ok {
					continue
				}
				sd := c.sd
				// The change time cannot be set by hand: an edit that puts
				// the size and modification time back still moves it.
				clean[i] = now.mtimeSec == sd.mtimeSec && now.mtimeNsec == sd.mtimeNsec && now.size == sd.size &&
					(sd.ino == 0 || now.ino == sd.ino) &&
					(sd.ctimeSec == 0 || (now.ctimeSec == sd.ctimeSec && now.ctimeNsec == sd.ctimeNsec))
			}
		}()
	}
	wg.Wait()
	out := make(map[string]string, len(cands))
	for i, c := range cands {
		if clean[i] {
			out[c.name] = hex.EncodeToString(c.hash)
		}
	}
	return out, nil
}
