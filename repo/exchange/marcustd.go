package exchange

import (
	"os"
	"path/filepath"

	"github.com/tdproject/td/repo"
)

// marcus/td is another tracker whose binary is also called td and which
// keeps its data in .todos/ too: a SQLite database, .todos/issues.db,
// beside .todos/security_events.jsonl. td init in such a folder must say
// so, and td never writes that file.

// MarcusTDDatabase is where marcus/td keeps its database, relative to the
// work tree root.
const MarcusTDDatabase = repo.TodosDir + "/issues.db"

// HasMarcusTD reports whether the work tree at root holds marcus/td's
// database: a file at .todos/issues.db, a name td itself never uses.
func HasMarcusTD(root string) bool {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(MarcusTDDatabase)))
	return err == nil && !fi.IsDir()
}
