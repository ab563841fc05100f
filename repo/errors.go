package repo

import (
	"errors"
	"fmt"

	"github.com/tdproject/td/policy"
)

// Code classifies a failure so the CLI can report it as a stable JSON error
// code and pick an exit status.
type Code string

// Failure codes. They appear in `--json` error output and are part of td's
// stable interface.
const (
	CodeNotFound       Code = "not_found"
	CodeAmbiguous      Code = "ambiguous"
	CodeInvalid        Code = "invalid_argument"
	CodeParse          Code = "parse_error"
	CodeRefused        Code = "refused"
	CodeNotInitialized Code = "not_initialized"
	CodeConflict       Code = "conflict"
	CodeInternal       Code = "internal"
)

// Error is a failure that ends at the user: one sentence saying what went
// wrong and, where it can, what to do about it.
type Error struct {
	Code Code
	Msg  string
	Err  error // the cause, if any; not shown to the user
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of err, or CodeInternal when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		return CodeParse
	}
	var r *refusal
	if errors.As(err, &r) {
		return CodeRefused
	}
	var pr *policy.RefusalError
	if errors.As(err, &pr) {
		return CodeRefused
	}
	var te *policy.TextError
	if errors.As(err, &te) {
		return CodeInvalid
	}
	var tie *policy.TitleError
	if errors.As(err, &tie) {
		return CodeInvalid
	}
	return CodeInternal
}

// ParseError reports a file td could not read, as path:line: reason. td never
// rewrites a file that produced one.
type ParseError struct {
	Path string // relative to the work tree root, slash-separated
	Line int    // 1-based; 0 when the problem is the file as a whole
	Msg  string
	// Conflict is set when the file holds a merge's conflict markers:
	// td resolve or a person must finish that merge first.
	Conflict bool
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}
