package repo

import (
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
)

// Todos returns the issue's acceptance criteria and steps as the file has
// them, in document order.
func (is *Issue) Todos() []markdown.Item {
	if is.Doc == nil {
		return nil
	}
	return is.Checklist().Items()
}

func (is *Issue) Checklist() *markdown.Checklist {
	if is.Doc == nil {
		return markdown.ParseChecklist(nil)
	}
	return markdown.ParseChecklist(is.Doc.Body)
}

// Tally counts the issue's checklist as markdown.Summarize does, without
// the item in progress (Active is nil): from the file when it was read,
// from the index cache otherwise, so that a listing shows every issue's
// progress without reading every file.
func (is *Issue) Tally() domain.Summary {
	if is.Doc == nil {
		return is.tally
	}
	if t, ok := markdown.QuickTally(is.Doc.Body); ok {
		return t
	}
	t := markdown.Summarize(is.Todos())
	t.Active = nil
	return t
}
