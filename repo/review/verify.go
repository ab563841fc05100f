package review

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// SecurityReport is td audit verify's answer.
type SecurityReport struct {
	Path     string          `json:"path"`
	Events   int             `json:"events"`
	Base     string          `json:"base"`
	Problems []audit.Problem `json:"problems"`
}

// VerifySecurity checks security_events.jsonl: every hash, every prev, no
// repeats, and, against the base revision (HEAD when base is empty and the
// repository has commits), that no line present there is missing or
// altered. A union merge of two branches verifies clean.
func VerifySecurity(s *repo.Store, base string) (*SecurityReport, error) {
	data, err := s.ReadSecurityEvents()
	if err != nil {
		return nil, err
	}
	rel := repo.TodosDir + "/" + repo.SecurityEvents
	rep := &SecurityReport{Path: rel, Problems: []audit.Problem{}}
	events, _ := audit.ParseSecurityEvents(data)
	rep.Events = len(events)
	var baseData []byte
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	switch {
	case g == nil && base != "":
		return nil, repo.Errorf(repo.CodeRefused, "--base needs a git repository")
	case g != nil:
		rev := base
		if rev == "" {
			rev = "HEAD"
		}
		baseData, err = g.FileAt(rev, rel)
		switch {
		case err == nil:
			rep.Base = rev
		case errors.Is(err, fs.ErrNotExist):
			rep.Base = rev
			baseData = nil
		case errors.Is(err, gitrepo.ErrUnknownRevision) && base == "":
			// No commits yet: nothing to compare with.
		default:
			if errors.Is(err, gitrepo.ErrUnknownRevision) {
				return nil, repo.Errorf(repo.CodeNotFound, "unknown revision %q", base)
			}
			return nil, fmt.Errorf("read %s at %s: %w", rel, rev, err)
		}
	}
	if p := audit.VerifySecurityEvents(data, baseData); len(p) > 0 {
		rep.Problems = p
	}
	return rep, nil
}
