package issues

import (
	"errors"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// CreateOptions describes a new issue.
type CreateOptions struct {
	Title       string
	Type        string
	Priority    string
	Labels      []string
	Minor       bool
	Description string
	// Parent, when set, links the new issue child_of it: what td create
	// does inside a bound session.
	Parent string
}

// CreateIssue writes a new issue file and its "created" ledger entry.
func Create(s *repo.Store, se *repo.Session, o CreateOptions) (*repo.Issue, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, err
	}
	if err := policy.CheckTitle(strings.TrimSpace(o.Title)); err != nil {
		return nil, err
	}
	if err := policy.CheckText("description", o.Description); err != nil {
		return nil, err
	}
	title := strings.TrimSpace(o.Title)
	if title == "" {
		return nil, repo.Errorf(repo.CodeInvalid, "the title is empty; give the issue a title")
	}
	if strings.ContainsAny(title, "\r\n") {
		return nil, repo.Errorf(repo.CodeInvalid, "the title must be one line")
	}
	typ, err := repo.OneOf(o.Type, domain.DefaultType, domain.IssueTypes(), true)
	if err != nil {
		return nil, repo.Errorf(repo.CodeInvalid, "type %s", err)
	}
	prio, err := repo.OneOf(o.Priority, domain.DefaultPriority, domain.Priorities(), true)
	if err != nil {
		return nil, repo.Errorf(repo.CodeInvalid, "priority %s", err)
	}
	labels, err := cleanLabels(o.Labels)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	is := &repo.Issue{Issue: domain.Issue{Title: title, Status: domain.StatusOpen, Type: typ, Priority: prio, Minor: o.Minor,
		Labels: labels, CreatedBy: se.ID, Links: []domain.Link{}, CreatedAt: now, UpdatedAt: now}}
	if o.Parent != "" {
		parent, err := s.ResolveID(o.Parent)
		if err != nil {
			return nil, err
		}
		is.Links = []domain.Link{{Kind: domain.ChildOf, To: parent}}
	}
	err = s.Update(func(tx *repo.Tx) error {
		id, err := s.NewIssueID()
		if err != nil {
			return err
		}
		is.ID, is.Path = id, s.RelIssue(id)
		doc, err := repo.NewIssueDoc(is, o.Description)
		if err != nil {
			return err
		}
		if err := checkBody(doc.Body); err != nil {
			return err
		}
		if err := tx.WriteFile(doc.Bytes(), repo.IssuesDir, id+".md"); err != nil {
			return err
		}
		details := map[string]any{"title": title}
		if o.Minor {
			details["minor"] = true
		}
		if len(is.Links) > 0 {
			details[string(domain.ChildOf)] = is.Links[0].To
		}
		return s.AppendLedger(tx, id, audit.Entry{TS: now, Session: se.ID, Action: audit.ActionCreated, Details: details})
	})
	if err != nil {
		return nil, err
	}
	return is, nil
}

// checkBody refuses a body td would refuse to read back (see
// markdown.CheckBody), so that no entry point writes an issue file td
// then cannot read.
func checkBody(body []byte) error {
	var e *markdown.Error
	if err := markdown.CheckBody(body, 1); errors.As(err, &e) {
		return repo.Errorf(repo.CodeInvalid, "the description is refused: %s", e.Msg)
	}
	return nil
}

func cleanLabels(in []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, raw := range in {
		for _, l := range strings.Split(raw, ",") {
			l = strings.TrimSpace(l)
			if l == "" || seen[l] {
				continue
			}
			if err := policy.CheckText("label", l); err != nil {
				return nil, err
			}
			if strings.ContainsAny(l, "\r\n[]{},#") {
				return nil, repo.Errorf(repo.CodeInvalid, "label %q may not contain newlines, brackets, braces, commas or #", l)
			}
			seen[l] = true
			out = append(out, l)
		}
	}
	return out, nil
}
