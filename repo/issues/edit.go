package issues

import (
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// EditOptions lists the fields to change; nil or empty means unchanged.
type EditOptions struct {
	Title        *string
	Type         *string
	Priority     *string
	Minor        *bool
	Labels       *[]string // replace the whole set
	AddLabels    []string
	RemoveLabels []string
	Assignee     *string
	Description  *string // replace the description
	Append       string  // add a paragraph to the description
}

// checkText refuses text fields holding a control character.
func (o EditOptions) checkText() error {
	for _, f := range []struct {
		name string
		text *string
	}{{"title", o.Title}, {"assignee", o.Assignee}, {"description", o.Description}, {"appended text", &o.Append}} {
		if f.text == nil {
			continue
		}
		if err := policy.CheckText(f.name, *f.text); err != nil {
			return err
		}
	}
	return nil
}

// Change is one field changed by EditIssue.
type Change struct {
	Field string `json:"field"`
	From  any    `json:"from,omitempty"`
	To    any    `json:"to,omitempty"`
}

// EditIssue changes the given fields, rewriting only their bytes, and
// records an "edited" ledger entry. Nothing is written when nothing changes.
func Edit(s *repo.Store, se *repo.Session, ref string, o EditOptions) (*repo.Issue, []Change, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, nil, err
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, nil, err
	}
	var is *repo.Issue
	var changes []Change
	err = s.Update(func(tx *repo.Tx) error {
		if is, err = s.ReadIssueFile(id); err != nil {
			return err
		}
		if changes, err = applyEdit(is, o); err != nil {
			return err
		}
		if len(changes) == 0 {
			return nil
		}
		if err := checkBody(is.Doc.Body); err != nil {
			return err
		}
		return s.WriteIssue(tx, se, is, audit.ActionEdited, editDetails(changes), "")
	})
	return is, changes, err
}

func applyEdit(is *repo.Issue, o EditOptions) ([]Change, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	var changes []Change
	set := func(field string, from, to any) error {
		changes = append(changes, Change{Field: field, From: from, To: to})
		return is.SetField(field, to)
	}
	// setString records and writes a string field only when it changes.
	setString := func(field string, cur *string, to string) error {
		if to != *cur {
			changes = append(changes, Change{Field: field, From: *cur, To: to})
		}
		return repo.SetWord(is, field, cur, to)
	}
	if o.Title != nil {
		t := strings.TrimSpace(*o.Title)
		if t == "" || strings.ContainsAny(t, "\r\n") {
			return nil, repo.Errorf(repo.CodeInvalid, "the title must be one non-empty line")
		}
		if err := policy.CheckTitle(t); err != nil {
			return nil, err
		}
		if err := setString("title", &is.Title, t); err != nil {
			return nil, err
		}
	}
	if o.Type != nil {
		t, err := repo.OneOf(*o.Type, "", domain.IssueTypes(), true)
		if err != nil || t == "" {
			return nil, repo.Errorf(repo.CodeInvalid, "type %q must be one of %s", *o.Type, domain.JoinWords(domain.IssueTypes()))
		}
		if err := setString("type", (*string)(&is.Type), string(t)); err != nil {
			return nil, err
		}
	}
	if o.Priority != nil {
		p, err := repo.OneOf(*o.Priority, "", domain.Priorities(), true)
		if err != nil || p == "" {
			return nil, repo.Errorf(repo.CodeInvalid, "priority %q must be one of %s", *o.Priority, domain.JoinWords(domain.Priorities()))
		}
		if err := setString("priority", (*string)(&is.Priority), string(p)); err != nil {
			return nil, err
		}
	}
	if o.Minor != nil && *o.Minor != is.Minor {
		if err := set("minor", is.Minor, *o.Minor); err != nil {
			return nil, err
		}
		is.Minor = *o.Minor
	}
	if o.Labels != nil || len(o.AddLabels) > 0 || len(o.RemoveLabels) > 0 {
		labels := is.Labels
		if o.Labels != nil {
			labels = *o.Labels
		}
		labels, err := cleanLabels(append(append([]string{}, labels...), o.AddLabels...))
		if err != nil {
			return nil, err
		}
		rm, err := cleanLabels(o.RemoveLabels)
		if err != nil {
			return nil, err
		}
		out := []string{}
		for _, l := range labels {
			if !slices.Contains(rm, l) {
				out = append(out, l)
			}
		}
		if strings.Join(out, "\x00") != strings.Join(is.Labels, "\x00") {
			if err := set("labels", repo.NonNil(is.Labels), out); err != nil {
				return nil, err
			}
			is.Labels = out
		}
	}
	if o.Assignee != nil {
		a := strings.TrimSpace(*o.Assignee)
		if strings.ContainsAny(a, "\r\n") {
			return nil, repo.Errorf(repo.CodeInvalid, "the assignee must be one line")
		}
		if err := setString("assignee", &is.Assignee, a); err != nil {
			return nil, err
		}
	}
	if o.Description != nil || o.Append != "" {
		body := is.Doc.Body
		end := repo.DescriptionEnd(body)
		eol := is.Doc.EOL()
		old := strings.TrimSpace(string(body[:end]))
		desc := old
		if o.Description != nil {
			desc = strings.TrimSpace(*o.Description)
		}
		if a := strings.TrimSpace(o.Append); a != "" {
			if desc != "" {
				desc += "\n\n"
			}
			desc += a
		}
		if desc != strings.TrimSpace(strings.ReplaceAll(old, "\r\n", "\n")) {
			region := ""
			if desc != "" {
				region = eol + strings.ReplaceAll(strings.ReplaceAll(desc, "\r\n", "\n"), "\n", eol) + eol
				if end < len(body) {
					region += eol
				}
			}
			nb := append([]byte(region), body[end:]...)
			is.Doc.Body = nb
			changes = append(changes, Change{Field: "description"})
		}
	}
	return changes, nil
}

func editDetails(changes []Change) map[string]any {
	fields := make([]string, len(changes))
	d := map[string]any{}
	for i, c := range changes {
		fields[i] = c.Field
		if c.Field != "description" {
			d[c.Field] = map[string]any{"from": c.From, "to": c.To}
		}
	}
	d["fields"] = fields
	return d
}
