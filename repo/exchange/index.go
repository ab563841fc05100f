package exchange

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/tdproject/td/repo"
	"gopkg.in/yaml.v3"
)

// ImportedIndex maps the imported_from of every issue that has one to the
// issue's ID: how a second import finds the issues of the first. It reads
// only the frontmatter lines of each file, in parallel; a file it cannot
// read is left out (td check reports it).
func ImportedIndex(s *repo.Store) (map[string]string, error) {
	ents, err := os.ReadDir(s.Path(repo.IssuesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, s.FileError(s.Path(repo.IssuesDir), err)
	}
	ids := make([]string, 0, len(ents))
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".md"); ok && repo.ValidIssueID(id) && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	found := make([]string, len(ids))
	repo.ForEach(len(ids), repo.IOWorkers(), 64, func(i int) {
		data, err := os.ReadFile(s.IssuePath(ids[i]))
		if err == nil {
			found[i] = importedFrom(data)
		}
	})
	out := map[string]string{}
	for i, src := range found {
		if _, dup := out[src]; src != "" && !dup {
			out[src] = ids[i]
		}
	}
	return out, nil
}

// importedFrom finds the imported_from value in a file's frontmatter.
func importedFrom(data []byte) string {
	if !bytes.HasPrefix(data, []byte("---")) {
		return ""
	}
	rest := data[3:]
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		var line []byte
		if nl < 0 {
			line, rest = rest, nil
		} else {
			line, rest = rest[:nl], rest[nl+1:]
		}
		line = bytes.TrimRight(line, "\r")
		if bytes.Equal(line, []byte("---")) {
			return ""
		}
		if v, ok := bytes.CutPrefix(line, []byte(KeyImportedFrom+":")); ok {
			var s string
			if yaml.Unmarshal(v, &s) != nil {
				return ""
			}
			return s
		}
	}
	return ""
}
