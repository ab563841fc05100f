package gitrepo

import (
	"fmt"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// IndexedFile returns the content the index records for path (stage 0),
// and false when the index has no such entry. path is as for Stage.
func (r *Repo) IndexedFile(path string) ([]byte, bool, error) {
	rel, err := r.relPath(path)
	if err != nil {
		return nil, false, err
	}
	data, _, err := readIndexFile(r.gitDir, filepath.Join(r.gitDir, "index"))
	if err != nil {
		return nil, false, err
	}
	entries, _, err := readIndexEntries(data)
	if err != nil {
		return nil, false, fmt.Errorf("read the index: %w", err)
	}
	for _, e := range entries {
		if string(e.name) != rel || e.stage != 0 || e.ita {
			continue
		}
		if e.mode&modeTypeMask != modeRegular {
			return nil, false, nil
		}
		o := r.openObjects()
		defer o.close()
		typ, content, err := o.read(e.hash)
		if err != nil {
			return nil, false, fmt.Errorf("read the indexed %s: %w", rel, err)
		}
		if typ != plumbing.BlobObject {
			return nil, false, fmt.Errorf("the indexed %s is a %s, not a blob", rel, typ)
		}
		return content, true, nil
	}
	return nil, false, nil
}
