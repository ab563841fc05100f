package issues

import (
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
)

// Comment appends a comment to the issue's ledger. Comments live in the
// ledger, not the file, so concurrent comments never conflict.
func Comment(s *repo.Store, se *repo.Session, ref, text string) (*repo.Issue, audit.Entry, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, audit.Entry{}, err
	}
	if err := policy.CheckText("comment", text); err != nil {
		return nil, audit.Entry{}, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, audit.Entry{}, repo.Errorf(repo.CodeInvalid, "the comment is empty; pass the text as an argument or with --file")
	}
	if len(text) > repo.MaxIssueFileSize {
		return nil, audit.Entry{}, repo.Errorf(repo.CodeInvalid, "the comment is %d bytes, over the %d byte limit; shorten it or put the bulk in a file and name it", len(text), repo.MaxIssueFileSize)
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, audit.Entry{}, err
	}
	var is *repo.Issue
	e := audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: map[string]any{"text": text}}
	err = s.Update(func(tx *repo.Tx) error {
		if is, err = s.ReadIssueFile(id); err != nil {
			return err
		}
		return s.AppendLedger(tx, id, e)
	})
	return is, e, err
}
