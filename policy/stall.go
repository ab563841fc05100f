package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Stall thresholds of the session lifecycle: the same error three times in
// a row, five todo changes in a row that finish nothing, more than twenty
// errors in one session.
const (
	SameErrorLimit  = 3
	NoProgressLimit = 5
	ErrorCountLimit = 20
)

// Stall kinds.
const (
	StallRepeatedError = "repeated_error"
	StallNoProgress    = "no_progress"
	StallManyErrors    = "many_errors"
)

// StallFacts are the counters a session's runtime keeps for stall
// detection.
type StallFacts struct {
	// SameErrorRun is how many errors in a row had the signature LastError.
	SameErrorRun int
	// LastError is the last error's message, for the warning.
	LastError string
	// NoProgressRun is how many todo changes in a row completed nothing.
	NoProgressRun int
	// Errors is every error the session reported.
	Errors int
}

// Stall is one warning: the session looks stuck and should change course.
type Stall struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Stalls returns the warnings the facts call for, most specific first.
func Stalls(f StallFacts) []Stall {
	var out []Stall
	if f.SameErrorRun >= SameErrorLimit {
		out = append(out, Stall{StallRepeatedError, fmt.Sprintf("the same error %d times in a row (%s): stop retrying; read the error, change the approach, or ask the operator", f.SameErrorRun, f.LastError)})
	}
	if f.NoProgressRun >= NoProgressLimit {
		out = append(out, Stall{StallNoProgress, fmt.Sprintf("%d todo changes in a row completed nothing: finish the active todo, or re-plan with td todo set", f.NoProgressRun)})
	}
	if f.Errors > ErrorCountLimit {
		out = append(out, Stall{StallManyErrors, fmt.Sprintf("%d errors in this session (more than %d): step back and summarise what is failing before going on", f.Errors, ErrorCountLimit)})
	}
	return out
}

// ErrorSignature names an error so repeats can be counted: the message
// with runs of whitespace collapsed, case folded and digits masked (so
// timestamps, counters and addresses do not make one failure look like
// many), plus the location as given. Twelve hex digits of its SHA-256.
func ErrorSignature(msg, at string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(msg) {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			space = true
			continue
		case r >= '0' && r <= '9':
			r = '#'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteString(strings.ToLower(string(r)))
	}
	sum := sha256.Sum256([]byte(b.String() + "\x00" + strings.TrimSpace(at)))
	return hex.EncodeToString(sum[:6])
}
