package todos

import (
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// AnchorRequest says where an anchor goes or comes from: the session's
// bound issue, another issue (operators, --issue), or the project.
type AnchorRequest struct {
	Issue    string
	Project  bool
	Priority domain.AnchorPriority
	Text     string
}

// AnchorResult is the anchors of one place after a change.
type AnchorResult struct {
	// Issue is the issue's ID; "" for the project.
	Issue   string
	Anchors []repo.Anchor
	// Changed names the anchor added or removed.
	Changed repo.Anchor
}

// anchorsHeadingsAfter are the sections an issue's Anchors section is
// placed before: it belongs with the description, ahead of the checklists.
var anchorsHeadingsAfter = []string{"Acceptance criteria", "Todos"}

// anchorTarget is the issue an anchor request acts on, "" for the project.
func anchorTarget(s *repo.Store, se *repo.Session, r AnchorRequest, read bool) (string, error) {
	if r.Project {
		if r.Issue != "" {
			return "", repo.Errorf(repo.CodeInvalid, "give --project or --issue, not both")
		}
		return "", nil
	}
	return todoIssue(s, se, r.Issue, read)
}

// ListAnchors returns the anchors of the project and of the session's
// bound issue (or the --issue one), project first.
func ListAnchors(s *repo.Store, se *repo.Session, r AnchorRequest) ([]repo.Anchor, error) {
	out, err := s.ProjectAnchors()
	if err != nil || r.Project {
		return out, err
	}
	id := r.Issue
	if id == "" {
		if id, err = s.BoundIssue(se); err != nil || id == "" {
			return out, err
		}
	} else if id, err = anchorTarget(s, se, r, true); err != nil {
		return nil, err
	}
	is, err := s.ReadIssueFile(id)
	if err != nil {
		return nil, err
	}
	return append(out, is.Anchors()...), nil
}

// AddAnchor adds an anchor to the bound issue, the --issue one, or the
// project. Subagents may not; an issue anchor is a ledger event.
func AddAnchor(s *repo.Store, se *repo.Session, r AnchorRequest) (*AnchorResult, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, err
	}
	if r.Priority == "" {
		r.Priority = domain.AnchorNormal
	}
	if err := policy.CheckText("anchor", r.Text); err != nil {
		return nil, err
	}
	r.Text = strings.TrimSpace(r.Text)
	if err := markdown.CheckAnchor(r.Priority, r.Text); err != nil {
		return nil, repo.Errorf(repo.CodeInvalid, "%v", err)
	}
	id, err := anchorTarget(s, se, r, false)
	if err != nil {
		return nil, err
	}
	res := &AnchorResult{Issue: id, Changed: repo.Anchor{Priority: r.Priority, Text: r.Text, Issue: id}}
	err = s.Update(func(tx *repo.Tx) error {
		return editAnchors(s, tx, se, id, func(body []byte, list []markdown.Anchor) ([]byte, string, error) {
			for _, a := range list {
				if strings.EqualFold(a.Text, r.Text) {
					return nil, "", repo.Errorf(repo.CodeRefused, "%s already has the anchor %q (%s); td anchor rm it first to change its priority", anchorPlace(id), a.Text, a.Priority)
				}
			}
			out, err := markdown.AddAnchor(body, r.Priority, r.Text, anchorsHeadingsAfter...)
			return out, audit.ActionAnchorAdded, err
		}, res)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// RemoveAnchor removes the anchor whose text matches r.Text: exactly, then
// ignoring case, then as a unique substring.
func RemoveAnchor(s *repo.Store, se *repo.Session, r AnchorRequest) (*AnchorResult, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, err
	}
	id, err := anchorTarget(s, se, r, false)
	if err != nil {
		return nil, err
	}
	res := &AnchorResult{Issue: id}
	err = s.Update(func(tx *repo.Tx) error {
		return editAnchors(s, tx, se, id, func(body []byte, list []markdown.Anchor) ([]byte, string, error) {
			i, err := findAnchor(list, r.Text, anchorPlace(id))
			if err != nil {
				return nil, "", err
			}
			res.Changed = repo.Anchor{Priority: list[i].Priority, Text: list[i].Text, Issue: id}
			return markdown.RemoveAnchor(body, list[i]), audit.ActionAnchorRemoved, nil
		}, res)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func anchorPlace(id string) string {
	if id == "" {
		return "the project"
	}
	return id
}

// editAnchors applies edit to the anchors of an issue or of the project
// and writes the result, inside the caller's locked update.
func editAnchors(s *repo.Store, tx *repo.Tx, se *repo.Session, id string, edit func(body []byte, list []markdown.Anchor) ([]byte, string, error), res *AnchorResult) error {
	if id == "" {
		body, err := s.ReadProjectAnchors()
		if err != nil {
			return err
		}
		if len(body) == 0 {
			body = []byte(repo.ProjectAnchorsHeader)
		}
		out, _, err := edit(body, markdown.ParseAnchors(body))
		if err != nil {
			return err
		}
		res.Anchors = repo.ToAnchors(markdown.ParseAnchors(out), "")
		return tx.WriteFile(out, repo.AnchorsFile)
	}
	is, err := s.ReadIssueFile(id)
	if err != nil {
		return err
	}
	out, action, err := edit(is.Doc.Body, markdown.ParseAnchors(is.Doc.Body))
	if err != nil {
		return err
	}
	is.Doc.Body = out
	res.Anchors = is.Anchors()
	return s.WriteIssue(tx, se, is, action, map[string]any{"priority": string(res.Changed.Priority), "text": res.Changed.Text}, "")
}

func findAnchor(list []markdown.Anchor, target, place string) (int, error) {
	target = strings.TrimSpace(target)
	if target == "" {
		return -1, repo.Errorf(repo.CodeInvalid, "name the anchor to remove by its text")
	}
	for i, a := range list {
		if a.Text == target {
			return i, nil
		}
	}
	for i, a := range list {
		if strings.EqualFold(a.Text, target) {
			return i, nil
		}
	}
	var hits []int
	for i, a := range list {
		if strings.Contains(strings.ToLower(a.Text), strings.ToLower(target)) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		if len(list) == 0 {
			return -1, repo.Errorf(repo.CodeNotFound, "%s has no anchors", place)
		}
		return -1, repo.Errorf(repo.CodeNotFound, "no anchor of %s matches %q; td anchor list shows them", place, target)
	}
	var texts []string
	for _, i := range hits {
		texts = append(texts, list[i].Text)
	}
	return -1, repo.Errorf(repo.CodeRefused, "%q matches %d anchors of %s: %s; give more of the text", target, len(hits), place, domain.QuoteList(texts))
}
