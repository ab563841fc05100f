package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// txFiles is what the test transaction touches, as a reader sees it:
// path relative to .todos → content ("" for absent).
type txFiles map[string]string

var txPaths = []string{"issues/td-aaaaaa.md", "history/td-aaaaaa.jsonl", SecurityEvents, "sessions/ses_aaaaaaaa.yaml"}

func readTxFiles(t *testing.T, s *Store) txFiles {
	t.Helper()
	out := txFiles{}
	for _, rel := range txPaths {
		b, err := os.ReadFile(s.Path(filepath.FromSlash(rel)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		out[rel] = string(b)
	}
	return out
}

// txStore is a store holding an issue and its one-line ledger, and no
// security log and no session file yet.
func txStore(t *testing.T) *Store {
	s := newTestStore(t)
	writeIssueFile(t, s, "td-aaaaaa", "---\nid: td-aaaaaa\ntitle: t\npriority: P2\n---\n")
	if err := os.MkdirAll(s.Path(HistoryDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(HistoryDir, "td-aaaaaa.jsonl"), []byte(`{"n":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// txWrite is a transaction touching four files in the ways td does:
// replace an issue, append to its ledger twice, start the security log,
// create a session file.
func txWrite(tx *Tx) error {
	steps := []func() error{
		func() error {
			return tx.WriteFile([]byte("---\nid: td-aaaaaa\ntitle: t\npriority: P1\n---\n"), IssuesDir, "td-aaaaaa.md")
		},
		func() error { return tx.AppendLine([]byte(`{"n":2}`), HistoryDir, "td-aaaaaa.jsonl") },
		func() error { return tx.AppendLine([]byte(`{"ev":1}`), SecurityEvents) },
		func() error { return tx.WriteFile([]byte("id: ses_aaaaaaaa\n"), SessionsDir, "ses_aaaaaaaa.yaml") },
		func() error { return tx.AppendLine([]byte(`{"n":3}`), HistoryDir, "td-aaaaaa.jsonl") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// errCrash stands for the process dying: the test's fault panics with it.
type crash struct{}

// runTx runs txWrite with faults, turning a crash panic into crashed.
func runTx(s *Store, faults func(step, path string) error) (err error, crashed bool) {
	s.faults = faults
	defer func() {
		s.faults = nil
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
			crashed = true
		}
	}()
	return s.Update(txWrite), false
}

// Every step of a transaction, failed or crashed at, leaves the four files
// as they were before; the transaction run to its end leaves them all new.
// After a crash the next Open rolls back before anything is read.
func TestTransactionLandsWholeOrNotAtAll(t *testing.T) {
	ref := txStore(t)
	before := readTxFiles(t, ref)
	var steps []string
	if err, _ := runTx(ref, func(step, p string) error {
		steps = append(steps, step+" "+ref.rel(p))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	after := readTxFiles(t, ref)
	if after["history/td-aaaaaa.jsonl"] != "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n" || after[SecurityEvents] != "{\"ev\":1}\n" {
		t.Fatalf("the transaction wrote %q", after)
	}
	// 4 files: 4 undo records (the second append needs none), 5 writes, 1 commit.
	if len(steps) != 10 {
		t.Fatalf("steps = %q", steps)
	}
	for i, step := range steps {
		for _, mode := range []string{"error", "crash", "error, then crash undoing", "error, then a failed undo"} {
			t.Run(fmt.Sprintf("%s at %d %s", mode, i, step), func(t *testing.T) {
				if testing.Short() && strings.Contains(mode, "then") {
					t.Skip("-short: the failed undo and the crash while undoing need the long run")
				}
				t.Parallel()
				s := txStore(t)
				n, undone := 0, 0
				err, crashed := runTx(s, func(st, _ string) error {
					if st == stepUndone {
						undone++
						switch {
						case mode == "error, then crash undoing" && undone == 1:
							panic(crash{})
						case mode == "error, then a failed undo" && undone == 1:
							return syscall.EIO
						}
						return nil
					}
					n++
					if n-1 != i {
						return nil
					}
					if mode == "crash" {
						panic(crash{})
					}
					return syscall.ENOSPC
				})
				if mode == "crash" && !crashed {
					t.Fatal("the crash did not happen")
				}
				if !crashed && !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("Update = %v, want the injected error", err)
				}
				_, leftLog := os.Lstat(s.undoPath())
				if mode == "error" && leftLog == nil {
					t.Fatal("a rolled-back transaction left its undo log")
				}
				if mode == "error" {
					if got := readTxFiles(t, s); fmt.Sprint(got) != fmt.Sprint(before) {
						t.Fatalf("after a failed write:\n%q\nwant\n%q", got, before)
					}
				}
				// The next td command recovers before reading.
				s2, err := Open(s.Root, s.opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := readTxFiles(t, s2); fmt.Sprint(got) != fmt.Sprint(before) {
					t.Fatalf("after recovery:\n%q\nwant\n%q", got, before)
				}
				if _, err := os.Lstat(s.undoPath()); err == nil {
					t.Fatal("recovery left the undo log")
				}
				// And the transaction, run again, lands whole.
				if err := s2.Update(txWrite); err != nil {
					t.Fatal(err)
				}
				if got := readTxFiles(t, s2); fmt.Sprint(got) != fmt.Sprint(after) {
					t.Fatalf("run again:\n%q\nwant\n%q", got, after)
				}
			})
		}
	}
}

// A refusal is the command's answer, not an abort: what the transaction
// wrote before it (a security event recording the refusal) lands.
func TestRefusalKeepsWhatWasWritten(t *testing.T) {
	s := txStore(t)
	refused := Errorf(CodeRefused, "no")
	err := s.Update(func(tx *Tx) error {
		if err := tx.AppendLine([]byte(`{"ev":1}`), SecurityEvents); err != nil {
			return err
		}
		return refused
	})
	if err != refused {
		t.Fatalf("Update = %v", err)
	}
	if got := readTxFiles(t, s)[SecurityEvents]; got != "{\"ev\":1}\n" {
		t.Fatalf("security log = %q", got)
	}
	if _, err := os.Lstat(s.undoPath()); err == nil {
		t.Fatal("undo log left behind")
	}
}

// An undo log td cannot trust stops td with the way out; a torn last
// record was never acted on and is ignored.
func TestParseUndo(t *testing.T) {
	rec := `{"path":"history/td-aaaaaa.jsonl","op":"append","size":8}`
	for _, tt := range []struct {
		name, data string
		n          int
		err        string
	}{
		{"empty", "", 0, ""},
		{"one record", rec + "\n", 1, ""},
		{"torn tail ignored", rec + "\n" + `{"path":"iss`, 1, ""},
		{"garbage line", rec + "\nnope\n", 0, "x:2: unreadable record of an unfinished transaction"},
		{"outside .todos", `{"path":"../x","op":"append","size":0}` + "\n", 0, `path "../x" is not inside .todos`},
		{"absolute", `{"path":"/etc/passwd","op":"replace","absent":true,"size":0}` + "\n", 0, "is not inside .todos"},
		{"local state", `{"path":"local/lock","op":"replace","absent":true,"size":0}` + "\n", 0, "is under .todos/local"},
		{"unknown op", `{"path":"a","op":"rm","size":0}` + "\n", 0, `op "rm"`},
		{"size mismatch", `{"path":"a","op":"replace","size":3,"old":"YQ=="}` + "\n", 0, "size 3 does not match"},
		{"unknown field", `{"path":"a","op":"append","size":0,"x":1}` + "\n", 0, "unknown field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := parseUndo("x", []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if !strings.Contains(err.Error(), "then delete x") {
					t.Fatalf("err = %v names no way out", err)
				}
				return
			}
			if err != nil || len(recs) != tt.n {
				t.Fatalf("got %d records, %v; want %d", len(recs), err, tt.n)
			}
		})
	}
}

// needsRecord: one record per file, and a second when a replace follows
// appends (truncation cannot undo a rename).
func TestUndoNeedsRecord(t *testing.T) {
	u := &undoLog{records: []undoRecord{{Path: "a", Op: opAppend}, {Path: "b", Op: opReplace}}}
	for _, tt := range []struct {
		path, op string
		want     bool
	}{
		{"a", opAppend, false}, {"a", opReplace, true}, {"b", opAppend, false},
		{"b", opReplace, false}, {"c", opAppend, true}, {"c", opReplace, true},
	} {
		if got := u.needsRecord(tt.path, tt.op); got != tt.want {
			t.Errorf("needsRecord(%s, %s) = %v, want %v", tt.path, tt.op, got, tt.want)
		}
	}
}

// diskFull writes half of what it is given, then fails as a full disk does.
func diskFull(f *os.File, b []byte) (int, error) {
	n, _ := f.Write(b[:len(b)/2])
	return n, syscall.ENOSPC
}

// A full disk in the middle of a ledger line: the line is cut back, the
// issue file written before it is restored, and nothing else is left: no
// undo log, no temporary file. The ledger stays parseable and the next
// entry lands on a line of its own.
func TestFullDiskLeavesNothingBehind(t *testing.T) {
	s := newTestStore(t)
	se := actor(t, s)
	is, err := createIssue(s, se, "Sign in")
	if err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]string {
		m := map[string]string{}
		filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(s.rel(p), ".todos/local/") && !strings.Contains(p, UndoFile) {
				return err
			}
			b, _ := os.ReadFile(p)
			m[s.rel(p)] = string(b)
			return nil
		})
		return m
	}
	before := snapshot()
	edit := func(tx *Tx) error {
		is, err := s.ReadIssueFile(is.ID)
		if err != nil {
			return err
		}
		if err := is.SetField("priority", "P1"); err != nil {
			return err
		}
		return s.WriteIssue(tx, se, is, "edited", nil, "")
	}
	s.appendWrite = diskFull
	err = s.Update(edit)
	s.appendWrite = nil
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "nothing was appended") {
		t.Fatalf("Update = %v", err)
	}
	if got := snapshot(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("a failed edit changed the files:\n%q\nwant\n%q", got, before)
	}
	if err := s.Update(edit); err != nil {
		t.Fatal(err)
	}
	entries, perrs, err := s.Ledger(is.ID)
	if err != nil || len(perrs) > 0 || len(entries) != 2 || entries[1].Action != "edited" {
		t.Fatalf("ledger = %v, %v, %v", entries, perrs, err)
	}
}

// appendLine cuts back a failed write, removes a log it created, and ends
// a torn last line before appending, warning with its line number.
func TestAppendLine(t *testing.T) {
	for _, tt := range []struct {
		name, before string // "-" for no file
		write        func(*os.File, []byte) (int, error)
		want, warn   string // want "-": no file
		err          bool
	}{
		{"append", "a\n", nil, "a\nb\n", "", false},
		{"create", "-", nil, "b\n", "", false},
		{"full disk cut back", "a\n", diskFull, "a\n", "", true},
		{"full disk on a new log", "-", diskFull, "-", "", true},
		{"torn tail ended", "a\nb\n{\"x", nil, "a\nb\n{\"x\nb\n", ":3: the last line was cut short", false},
		{"torn tail, then a full disk", "{\"x", diskFull, "{\"x", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "log.jsonl")
			if tt.before != "-" {
				os.WriteFile(p, []byte(tt.before), 0o644)
			}
			warn, err := appendLine(p, []byte("b"), tt.write)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if !strings.HasPrefix(warn, tt.warn) || (tt.warn == "") != (warn == "") {
				t.Errorf("warn = %q, want %q…", warn, tt.warn)
			}
			b, rerr := os.ReadFile(p)
			got := string(b)
			if errors.Is(rerr, fs.ErrNotExist) {
				got = "-"
			}
			if got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
		})
	}
}

// Recovery of a log left by a killed process: the files come back and
// the command warns with what it restored.
func TestOpenRollsBackAnUnfinishedTransaction(t *testing.T) {
	s := txStore(t)
	before := readTxFiles(t, s)
	_, crashed := runTx(s, func(step, _ string) error {
		if step == stepCommit {
			panic(crash{})
		}
		return nil
	})
	if !crashed {
		t.Fatal("no crash")
	}
	s2, err := Open(s.Root, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	want := "rolled back a transaction a td process left unfinished: restored .todos/issues/td-aaaaaa.md, .todos/history/td-aaaaaa.jsonl, .todos/security_events.jsonl, .todos/sessions/ses_aaaaaaaa.yaml; what it had written is kept in .todos/local/undone/20261121T100000Z/"
	if w := s2.Warnings(); len(w) != 1 || w[0] != want {
		t.Fatalf("warnings = %q", w)
	}
	if got := readTxFiles(t, s2); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("after recovery %q, want %q", got, before)
	}
	// Nothing the killed transaction wrote is lost unseen: the replaced
	// files whole, the appended lines alone.
	kept := map[string]string{
		"issues/td-aaaaaa.md":        "---\nid: td-aaaaaa\ntitle: t\npriority: P1\n---\n",
		"history/td-aaaaaa.jsonl":    "{\"n\":2}\n{\"n\":3}\n",
		SecurityEvents:               "{\"ev\":1}\n",
		"sessions/ses_aaaaaaaa.yaml": "id: ses_aaaaaaaa\n",
	}
	for rel, want := range kept {
		b, err := os.ReadFile(s.Path(LocalDir, "undone", "20261121T100000Z", filepath.FromSlash(rel)))
		if err != nil || string(b) != want {
			t.Errorf("kept %s = %q, %v; want %q", rel, b, err, want)
		}
	}
	// A second roll back in the same second keeps its copies apart.
	if _, crashed := runTx(s2, func(step, _ string) error {
		if step == stepCommit {
			panic(crash{})
		}
		return nil
	}); !crashed {
		t.Fatal("no crash")
	}
	s3, err := Open(s.Root, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	if w := s3.Warnings(); len(w) != 1 || !strings.HasSuffix(w[0], "kept in .todos/local/undone/20261121T100000Z-2/") {
		t.Fatalf("warnings = %q", w)
	}
}

// A write that failed left its file as it was: rolling back leaves that
// file alone (on a full disk, restoring it would need the space the write
// did not find), so the same inode is still there.
func TestRollbackLeavesAnUnchangedFileAlone(t *testing.T) {
	s := txStore(t)
	p := s.Path(IssuesDir, "td-aaaaaa.md")
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	err, _ = runTx(s, func(step, path string) error {
		if step == stepWrite && path == p {
			return syscall.ENOSPC
		}
		return nil
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Update = %v", err)
	}
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Fatal("the roll back rewrote a file the transaction never changed")
	}
	if _, err := os.Lstat(s.undoPath()); err == nil {
		t.Fatal("undo log left behind")
	}
}

func TestSweepUndone(t *testing.T) {
	s := newTestStore(t) // its clock reads 2026-11-21T10:00:00Z
	dir := s.Path(LocalDir, "undone")
	for _, name := range []string{
		"20261001T100000Z",   // 51 days old: swept
		"20261021T100000Z-2", // 31 days old, a second one that second: swept
		"20261023T100000Z",   // 29 days old: kept
		"20261121T095900Z",   // a minute old: kept
		"notes",              // not td's: kept
	} {
		if err := os.MkdirAll(filepath.Join(dir, name, "issues"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "20200101T000000Z"), nil, 0o644); err != nil {
		t.Fatal(err) // a file, not a kept copy: left alone
	}
	s.sweepUndone()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := []string{"20200101T000000Z", "20261023T100000Z", "20261121T095900Z", "notes"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("left %v, want %v", got, want)
	}
}
