package markdown

import "github.com/tdproject/td/policy/domain"

// CompletedCount counts the completed items of a list.
func CompletedCount(items []Item) int {
	n := 0
	for _, it := range items {
		if it.Status == domain.TodoCompleted {
			n++
		}
	}
	return n
}

// OpenCriteria returns the texts of the acceptance criteria not yet done
// or dropped.
func OpenCriteria(items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Kind == domain.KindCriterion && it.Status != domain.TodoCompleted && it.Status != domain.TodoAbandoned {
			out = append(out, it.Text)
		}
	}
	return out
}
