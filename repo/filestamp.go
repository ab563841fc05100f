package repo

// A stamp tells one version of a file or directory from another by its
// inode, size and modification time. td replaces a file by renaming a new
// one into place (a new inode), and a directory's time moves whenever a
// name in it is added, removed or renamed.

// fileStampOf stamps the regular file at path; ok is false when there is
// none, or no inode numbers to stamp with.
func fileStampOf(path string) (stamp [3]int64, ok bool) {
	fi, ino, ok := lstatStamp(path)
	if !ok || !fi.Mode().IsRegular() {
		return stamp, false
	}
	return [3]int64{ino, fi.Size(), fi.ModTime().UnixNano()}, true
}

// dirStamp returns a directory's inode and modification time (ns).
func dirStamp(path string) (ino, mtime int64, ok bool) {
	fi, ino, ok := lstatStamp(path)
	if !ok || !fi.IsDir() {
		return 0, 0, false
	}
	return ino, fi.ModTime().UnixNano(), true
}
