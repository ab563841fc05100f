package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tdproject/td/repo"
)

// SetEnvFileVar makes an env file a harness sources before each shell
// command export key=value: td's earlier line for key is replaced, every
// other line is kept, and the file is replaced atomically. value must need
// no quoting (a session id).
func SetEnvFileVar(path, key, value string) error {
	line := "export " + key + "=" + value
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read the env file %s: %w", path, err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		t := strings.TrimSpace(l)
		if t == line {
			return nil
		}
		if l == "" || strings.HasPrefix(t, "export "+key+"=") {
			continue
		}
		if !strings.HasSuffix(l, "\n") {
			l += "\n"
		}
		kept = append(kept, l)
	}
	out := strings.Join(kept, "") + line + "\n"
	return repo.WriteFileAtomic(path, []byte(out))
}
