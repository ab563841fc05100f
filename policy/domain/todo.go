package domain

import "slices"

// TodoStatus is where one todo stands. It is a different word from an
// issue's Status even where the spelling is shared ("in_progress").
type TodoStatus string

// Todo statuses. Each has one marker character in the file: ' ', '/', 'x'
// (or 'X'), '-' and '!'.
const (
	// TodoPending is a todo not started: "[ ]".
	TodoPending TodoStatus = "pending"
	// TodoInProgress is the todo being worked on: "[/]".
	TodoInProgress TodoStatus = "in_progress"
	// TodoCompleted is a finished todo: "[x]" or "[X]".
	TodoCompleted TodoStatus = "completed"
	// TodoAbandoned is a dropped todo, kept for the record: "[-]".
	TodoAbandoned TodoStatus = "abandoned"
	// TodoBlocked is a todo that waits on something: "[!]".
	TodoBlocked TodoStatus = "blocked"
)

// TodoStatuses lists the todo statuses.
func TodoStatuses() []TodoStatus {
	return []TodoStatus{TodoPending, TodoInProgress, TodoCompleted, TodoAbandoned, TodoBlocked}
}

// Valid reports whether s is one of the todo statuses.
func (s TodoStatus) Valid() bool { return slices.Contains(TodoStatuses(), s) }

// Finished reports whether a todo in status s needs no more work:
// completed or abandoned.
func (s TodoStatus) Finished() bool { return s == TodoCompleted || s == TodoAbandoned }

// Words says the status the way a sentence (or a screen reader, which
// does not read a checkbox's marker) would: "in progress", "done",
// "dropped"; "pending" and "blocked" as they are.
func (s TodoStatus) Words() string {
	switch s {
	case TodoInProgress:
		return "in progress"
	case TodoCompleted:
		return "done"
	case TodoAbandoned:
		return "dropped"
	}
	return string(s)
}

// TodoKind says which section of an issue a todo belongs to.
type TodoKind string

// Todo kinds.
const (
	// KindCriterion is an acceptance criterion: the operator's definition
	// of done, under "## Acceptance criteria".
	KindCriterion TodoKind = "criterion"
	// KindStep is a step of the agent's plan, under "## Todos".
	KindStep TodoKind = "step"
)

// Valid reports whether k is one of the todo kinds.
func (k TodoKind) Valid() bool { return k == KindCriterion || k == KindStep }

// Todo is one item of an issue's checklist.
type Todo struct {
	Kind   TodoKind
	Status TodoStatus
	// Text is the item's first paragraph, its lines trimmed and joined
	// with one space. Within an issue it is unique: todos are addressed by
	// text.
	Text string
	// Phase is the "###" phase holding a step, "" before the first phase
	// and for criteria.
	Phase string
	// Origin is the agent path of the subagent whose proposal the phase
	// came from, or "".
	Origin AgentPath
	// Notes holds the item's notes, oldest first; they are append-only,
	// but for a "blocked: …" note, which goes when the item stops being
	// blocked.
	Notes []string
}

// Summary counts a checklist: how many steps are done, open, dropped and
// blocked, how many criteria (counted apart, never as steps) are met, and
// which item is in progress.
type Summary struct {
	Done          int         `json:"done"`
	Open          int         `json:"open"`
	Dropped       int         `json:"dropped"`
	Blocked       int         `json:"blocked"`
	CriteriaTotal int         `json:"criteria_total"`
	CriteriaDone  int         `json:"criteria_done"`
	Active        *ActiveTodo `json:"active"`
}

// ActiveTodo names the todo in progress in a Summary.
type ActiveTodo struct {
	Text  string   `json:"text"`
	Kind  TodoKind `json:"kind"`
	Phase string   `json:"phase"`
}

// Add counts one more todo.
func (s *Summary) Add(t Todo) {
	if t.Kind == KindCriterion {
		if t.Status != TodoAbandoned {
			s.CriteriaTotal++
			if t.Status == TodoCompleted {
				s.CriteriaDone++
			}
		}
	} else {
		s.addStep(t.Status)
	}
	if t.Status == TodoInProgress && s.Active == nil {
		s.Active = &ActiveTodo{Text: t.Text, Kind: t.Kind, Phase: t.Phase}
	}
}

// addStep counts a step by its status.
func (s *Summary) addStep(status TodoStatus) {
	switch status {
	case TodoCompleted:
		s.Done++
	case TodoAbandoned:
		s.Dropped++
	case TodoBlocked:
		s.Blocked++
	default:
		s.Open++
	}
}

// CriteriaMet reports whether the checklist has criteria and every one
// that was not dropped is done.
func (s Summary) CriteriaMet() bool { return s.CriteriaTotal > 0 && s.CriteriaDone == s.CriteriaTotal }

// OpenCriteria reports how many criteria still wait to be done.
func (s Summary) OpenCriteria() int { return s.CriteriaTotal - s.CriteriaDone }

// AnchorPriority says how pressing an anchor is.
type AnchorPriority string

// Anchor priorities, most pressing first.
const (
	AnchorCritical AnchorPriority = "critical"
	AnchorHigh     AnchorPriority = "high"
	AnchorNormal   AnchorPriority = "normal"
)

// AnchorPriorities lists the anchor priorities, most pressing first.
func AnchorPriorities() []AnchorPriority {
	return []AnchorPriority{AnchorCritical, AnchorHigh, AnchorNormal}
}

// Valid reports whether p is one of the anchor priorities.
func (p AnchorPriority) Valid() bool { return slices.Contains(AnchorPriorities(), p) }
