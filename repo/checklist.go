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
	return ChecklistOf(is).Items()
}

func ChecklistOf(is *Issue) *markdown.Checklist {
	if is.Doc == nil {
		return markdown.ParseChecklist(nil)
	}
	return markdown.ParseChecklist(is.Doc.Body)
}

// completedCount counts the completed items of a list.
func CompletedCount(items []markdown.Item) int {
	n := 0
	for _, it := range items {
		if it.Status == domain.TodoCompleted {
			n++
		}
	}
	return n
}

// openCriteriaOf returns the texts of the acceptance criteria not yet done
// or dropped.
func OpenCriteriaOf(items []markdown.Item) []string {
	var out []string
	for _, it := range items {
		if it.Kind == domain.KindCriterion && it.Status != domain.TodoCompleted && it.Status != domain.TodoAbandoned {
			out = append(out, it.Text)
		}
	}
	return out
}
