package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/tdproject/td/repo"
)

// maxEnvFileTail bounds how much of an env file AppendEnvFileVar reads to
// find td's last line for the key: the file's end is where that line is.
const maxEnvFileTail = 64 << 10

// AppendEnvFileVar makes an env file a harness sources before each shell
// command export key=value, the way the harness expects of hooks that run
// in parallel: one line appended in one write to a file opened for
// appending, never a rewrite, so a sibling hook's line written at the same
// moment is never lost. Nothing is written when the file's last export of
// key already gives value (a resumed conversation); a file that does not
// end its last line gets a newline first, in the same write. The shell
// reads the file top to bottom, so the last export of key wins. value must
// need no quoting (a session id).
func AppendEnvFileVar(path, key, value string) error {
	line := "export " + key + "=" + value
	tail, err := repo.ReadTail(path, maxEnvFileTail)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read the env file %s: %w", path, err)
	}
	if lastExport(tail, key) == line {
		return nil
	}
	out := line + "\n"
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		out = "\n" + out
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write([]byte(out)); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// lastExport is the last line of data exporting key, trimmed; "" when none.
func lastExport(data []byte, key string) string {
	prefix := []byte("export " + key + "=")
	last := ""
	for _, l := range bytes.Split(data, []byte("\n")) {
		if t := bytes.TrimSpace(l); bytes.HasPrefix(t, prefix) {
			last = string(t)
		}
	}
	return last
}
