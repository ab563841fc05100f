package exchange

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Inputs at the sizes that once hung or exhausted memory are read in
// linear time, and refused by size before anything is allocated for them.

// TestCleanLabelsLinear: a row of 100,000 labels (once quadratic, a hang)
// is cleaned in well under a second's work, each label once.
func TestCleanLabelsLinear(t *testing.T) {
	in := make([]string, 100000)
	for i := range in {
		in[i] = fmt.Sprintf("label-%d", i%60000)
	}
	start := time.Now()
	out := cleanLabels(in)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("100,000 labels took %v", d)
	}
	if len(out) != 60000 || out[0] != "label-0" || out[59999] != "label-59999" {
		t.Errorf("cleaned to %d labels", len(out))
	}
}

// TestBacklogSparseFile: an 8 GB sparse task file is refused by its size,
// never read.
func TestBacklogSparseFile(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "backlog", "tasks")
	if err := os.MkdirAll(tasks, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(tasks, "task-1 - Huge.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	start := time.Now()
	p, err := ParseBacklog(filepath.Join(dir, "backlog"), "backlog")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("an 8 GB sparse file took %v: it was read", d)
	}
	if len(p.Bad) != 1 || !strings.Contains(p.Bad[0].Reason, fmt.Sprintf("the file is over %d bytes", maxTaskFile)) {
		t.Errorf("bad: %+v", p.Bad)
	}
}

// TestGitHubHugeBody: an issue whose body is 16 MB, more than an issue
// file may hold, is refused by its size; its neighbours are imported.
func TestGitHubHugeBody(t *testing.T) {
	data := `[{"number": 1, "title": "Huge", "body": "` + strings.Repeat("x", 16<<20) + `", "state": "OPEN"},
  {"number": 2, "title": "Small", "body": "fine", "state": "OPEN"}]`
	p, err := ParseGitHub("issues.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != 1 || p.Records[0].Title != "Small" {
		t.Errorf("records: %d", len(p.Records))
	}
	if len(p.Bad) != 1 || !strings.Contains(p.Bad[0].Reason, "issue 1's body is 16777216 bytes, over the 1048576 an issue file may hold") {
		t.Errorf("bad: %+v", p.Bad)
	}
}
