package command

import (
	"io"
)

// jsonWriter is a result that writes its own JSON, byte for byte what
// encoding/json with a two-space indent would write (td list --json at
// 10,000 issues, for one).
type jsonWriter interface {
	WriteJSON(w io.Writer) error
}

// export is the one place a command's result leaves td: with --json the
// value model returns is encoded on stdout (a jsonWriter writes itself),
// otherwise text prints the result for a person. No command tests --json
// itself; model is called only when JSON was asked for, so the plain path
// builds no JSON structs. Either function may be nil: a nil model prints
// nothing with --json, a nil text nothing without it.
func (s *streams) export(model func() any, text func() error) error {
	if s.json {
		if model == nil {
			return nil
		}
		v := model()
		if w, ok := v.(jsonWriter); ok {
			return w.WriteJSON(s.jsonOut())
		}
		return s.emitJSON(v)
	}
	if text == nil {
		return nil
	}
	return text()
}

// wantsJSON reports whether the caller asked for JSON, for the few
// decisions that are not output: a prompt that a JSON caller cannot
// answer, a progress line it must not see.
func (s *streams) wantsJSON() bool { return s.json }
