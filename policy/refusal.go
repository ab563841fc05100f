package policy

// RefusalError is a rule saying no: one sentence naming the rule that applied
// and what would make the action pass. Callers report it as a refusal (exit 1),
// not as a failure of td.
type RefusalError struct {
	Msg string
}

func (e *RefusalError) Error() string { return e.Msg }

func refuse(msg string) error { return &RefusalError{Msg: msg} }
