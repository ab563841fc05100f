package repo

import (
	"errors"
	"io/fs"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
)

// Anchor is one thing a session must keep in mind, from an issue or from
// the project's .todos/anchors.md.
type Anchor struct {
	Priority domain.AnchorPriority `json:"priority"`
	Text     string                `json:"text"`
	// Issue is the issue holding the anchor; "" for a project anchor.
	Issue string `json:"issue,omitempty"`
}

const ProjectAnchorsHeader = "# Anchors\n\nProject anchors: td puts the critical and high ones in every agent session's context.\nOne a line, \"- critical|high|normal: text\"; td anchor add writes them.\n"

func ToAnchors(list []markdown.Anchor, issue string) []Anchor {
	out := make([]Anchor, len(list))
	for i, a := range list {
		out[i] = Anchor{Priority: a.Priority, Text: a.Text, Issue: issue}
	}
	return out
}

// ProjectAnchors reads .todos/anchors.md; a missing file has none.
func (s *Store) ProjectAnchors() ([]Anchor, error) {
	body, err := s.ReadProjectAnchors()
	if err != nil {
		return nil, err
	}
	return ToAnchors(markdown.ParseAnchors(body), ""), nil
}

func (s *Store) ReadProjectAnchors() ([]byte, error) {
	p := s.Path(AnchorsFile)
	data, err := readRegular(p, MaxIssueFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.FileError(p, err)
	}
	return data, nil
}

// Anchors returns the anchors in the issue's body.
func (is *Issue) Anchors() []Anchor {
	if is.Doc == nil {
		return nil
	}
	return ToAnchors(markdown.ParseAnchors(is.Doc.Body), is.ID)
}
