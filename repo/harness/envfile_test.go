package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestAppendEnvFileVar(t *testing.T) {
	p := filepath.Join(t.TempDir(), "env")
	check := func(want string) {
		t.Helper()
		got, _ := os.ReadFile(p)
		if string(got) != want {
			t.Fatalf("env file:\n%q\nwant\n%q", got, want)
		}
	}
	if err := AppendEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check("export TD_SESSION=ses_aaaaaaaa\n")
	// The same session again: the last export already says it.
	if err := AppendEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check("export TD_SESSION=ses_aaaaaaaa\n")
	// A sibling's line without its newline: td ends it, in its own write.
	os.WriteFile(p, []byte("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2"), 0o644)
	if err := AppendEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2")
	if err := AppendEnvFileVar(p, "TD_SESSION", "ses_bbbbbbbb"); err != nil {
		t.Fatal(err)
	}
	check("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2\nexport TD_SESSION=ses_bbbbbbbb\n")
	// Another session after: appended, the earlier line kept (the last wins).
	if err := AppendEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2\nexport TD_SESSION=ses_bbbbbbbb\nexport TD_SESSION=ses_aaaaaaaa\n")
}

// TestAppendEnvFileVarBesideParallelHooks runs 25 sibling hooks appending
// their lines to the env file while td writes its own, over and over: no
// sibling's line may be lost, and td's last line must be there.
func TestAppendEnvFileVarBesideParallelHooks(t *testing.T) {
	const hooks, rounds = 25, 20
	for r := 0; r < rounds; r++ {
		p := filepath.Join(t.TempDir(), "env")
		os.WriteFile(p, []byte("export PATH=/opt/tools/bin:$PATH\n"), 0o644)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, hooks+10)
		for h := 0; h < hooks; h++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					errs <- err
					return
				}
				defer f.Close()
				if _, err := fmt.Fprintf(f, "export HOOK_%d=%d\n", h, r); err != nil {
					errs <- err
				}
			}()
		}
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if err := AppendEnvFileVar(p, "TD_SESSION", fmt.Sprintf("ses_%08d", i%2)); err != nil {
					errs <- err
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		got := string(data)
		for h := 0; h < hooks; h++ {
			if !strings.Contains(got, fmt.Sprintf("export HOOK_%d=%d\n", h, r)) {
				t.Fatalf("round %d: hook %d's line was lost:\n%s", r, h, got)
			}
		}
		if !strings.HasPrefix(got, "export PATH=/opt/tools/bin:$PATH\n") || !strings.Contains(got, "export TD_SESSION=ses_0000000") {
			t.Fatalf("round %d: the env file lost its first line or td's:\n%s", r, got)
		}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if !strings.HasPrefix(l, "export ") || strings.Count(l, "export ") != 1 {
				t.Fatalf("round %d: a torn line %q in:\n%s", r, l, got)
			}
		}
	}
}
