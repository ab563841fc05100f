package repo

import (
	"github.com/tdproject/td/markdown"
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
