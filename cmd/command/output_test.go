package command

import (
	"bytes"
	"os"
	"testing"
)

// /dev/null is a character device but not a terminal: colour codes sent
// "to the terminal" there would end up in redirected output.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("%s counted as a terminal", os.DevNull)
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer counted as a terminal")
	}
}
