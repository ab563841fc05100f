package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// streams is the one place that decides where output goes, whether it is
// JSON, and whether it is coloured.
type streams struct {
	in     io.Reader
	out    io.Writer
	errOut io.Writer
	json   bool
	color  bool // colour on stdout
	// errColor is colour on stderr, decided on its own: stdout may be a
	// pipe while a person reads the errors, or the other way round.
	errColor bool
	// tty is set when stdout is a terminal: a person reads it, so long
	// lists are cut to a page.
	tty bool
}

// isTerminal reports whether w is a terminal. A character device is not
// enough: /dev/null is one too, and colour codes sent there would reach a
// file when the other stream is redirected.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isInteractiveFile(f)
}

func (s *streams) printf(format string, args ...any) { fmt.Fprintf(s.out, format, args...) }

// print writes text on stdout as it is: a board of 10,000 cards is a
// megabyte and a half that printf("%s") would copy once more.
func (s *streams) print(text string) { io.WriteString(s.out, text) }

// warnf prints a warning on stderr. It often quotes a file or a ledger,
// so its text goes through safe.
func (s *streams) warnf(format string, args ...any) {
	fmt.Fprintf(s.errOut, "warning: %s\n", safe(fmt.Sprintf(format, args...)))
}

// emitJSON writes v as indented JSON on stdout.
func (s *streams) emitJSON(v any) error {
	enc := json.NewEncoder(s.jsonOut())
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonOut is where JSON is written: the output, with the C1 control
// characters (U+0080 to U+009F) escaped as \u0080 to \u009f. encoding/json
// escapes only the C0 ones, and a terminal shown JSON takes U+009B as the
// start of an escape sequence, as it takes ESC [, which text output
// escapes already (safe).
func (s *streams) jsonOut() io.Writer { return &c1Escaper{w: s.out} }

// c1Escaper escapes the C1 control characters of the UTF-8 it passes on.
// In JSON they can only stand inside strings, where \u00XX means the same.
type c1Escaper struct {
	w       io.Writer
	pending bool // the last byte written was 0xC2, held back
}

func (e *c1Escaper) Write(p []byte) (int, error) {
	if !e.pending && bytes.IndexByte(p, 0xc2) < 0 {
		// Nothing to escape, as in nearly all output: no copy. The JSON of
		// 75,000 issues is some 30 MB, and copying it byte by byte was a
		// sixth of td list --json.
		if _, err := e.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); i++ {
		b := p[i]
		if e.pending {
			e.pending = false
			if b >= 0x80 && b <= 0x9f {
				out = append(out, '\\', 'u', '0', '0', hexDigit(b>>4), hexDigit(b&0xf))
				continue
			}
			out = append(out, 0xc2)
		}
		if b == 0xc2 {
			e.pending = true
			continue
		}
		out = append(out, b)
	}
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func hexDigit(b byte) byte { return "0123456789abcdef"[b] }

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// paint wraps text in an ANSI style when colour is on.
func (s *streams) paint(style, text string) string {
	if !s.color || style == "" {
		return text
	}
	return style + text + ansiReset
}

func (s *streams) statusColor(status domain.Status) string {
	text := string(status)
	switch status {
	case domain.StatusInProgress:
		return s.paint(ansiYellow, text)
	case domain.StatusBlocked:
		return s.paint(ansiRed, text)
	case domain.StatusInReview:
		return s.paint(ansiCyan, text)
	case domain.StatusClosed:
		return s.paint(ansiGreen, text)
	}
	return text
}

// usageError is a mistake in how a command was called: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// silentFailure ends a command with exit status 1 after it has printed
// its own findings (td audit verify listing problems, for example).
type silentFailure struct{}

func (silentFailure) Error() string { return "failed" }

// exitCode maps an error to td's exit status: 2 for usage, 1 otherwise.
func exitCode(err error) int {
	var u *usageError
	if errors.As(err, &u) || repo.CodeOf(err) == repo.CodeInvalid {
		return 2
	}
	return 1
}

// reportError prints err the way the caller asked: one line on stderr, or a
// JSON object on stdout with --json.
func (s *streams) reportError(err error) {
	if errors.As(err, new(silentFailure)) {
		return
	}
	code := string(repo.CodeOf(err))
	var u *usageError
	if errors.As(err, &u) {
		code = "usage"
	}
	msg := err.Error()
	if s.json {
		e := map[string]any{"code": code, "message": msg}
		// An agent that named a todo ambiguously gets the candidates, or
		// the nearest text, as data it can act on.
		var ae *markdown.AddressError
		if errors.As(err, &ae) {
			if len(ae.Candidates) > 0 {
				e["candidates"] = ae.Candidates
			}
			if ae.Nearest != "" {
				e["nearest"] = ae.Nearest
			}
		}
		s.emitJSON(map[string]any{"error": e})
		return
	}
	label := "error:"
	if s.errColor {
		label = ansiRed + label + ansiReset
	}
	fmt.Fprintf(s.errOut, "%s %s\n", label, safe(firstLine(msg)))
	if rest := strings.SplitN(msg, "\n", 2); len(rest) == 2 {
		fmt.Fprintln(s.errOut, safe(rest[1]))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
