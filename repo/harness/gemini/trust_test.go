package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/repo/harness"
)

// A transcript as the Gemini CLI 0.61.0 records one (JSON Lines: the
// session's metadata, then one record per message or update).
const transcript = `{"sessionId":"8f1c","projectHash":"ab12","startTime":"2026-11-21T10:00:00.000Z","lastUpdated":"2026-11-21T10:00:00.000Z","kind":"main"}
{"id":"m1","timestamp":"2026-11-21T10:00:01.000Z","type":"user","content":[{"text":"Sign in with GitHub"}]}
{"$set":{"lastUpdated":"2026-11-21T10:00:02.000Z"}}
`

// write appends text to the transcript and returns its path.
func writeTranscript(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "session-2026-11-21T10-00-8f1c.jsonl")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(text)
	f.Close()
	return p
}

func TestCompressed(t *testing.T) {
	dir := t.TempDir()
	p := writeTranscript(t, dir, transcript)
	mark := transcriptMark(p)
	if mark == "" || Compressed(mark) {
		t.Fatalf("nothing appended: mark %q", mark)
	}
	// A turn under the threshold: messages and metadata, no restart.
	writeTranscript(t, dir, `{"id":"m2","timestamp":"2026-11-21T10:01:00.000Z","type":"gemini","content":"Done."}
{"$set":{"lastUpdated":"2026-11-21T10:01:00.000Z"}}
{"$set":{"summary":"Sign in"}}
`)
	if Compressed(mark) {
		t.Fatal("a turn without compression read as one")
	}
	mark = transcriptMark(p)
	// Compressed: the chat starts again on the summary and its recording
	// sets the session id.
	writeTranscript(t, dir, `{"$set":{"sessionId":"8f1c"}}
{"id":"m3","timestamp":"2026-11-21T10:02:00.000Z","type":"user","content":[{"text":"go on"}]}
`)
	if !Compressed(mark) {
		t.Fatal("a compression was missed")
	}
	// A transcript written anew (shorter) was compressed too.
	os.WriteFile(p, []byte(`{"sessionId":"8f1c"}`+"\n"), 0o644)
	if !Compressed(mark) {
		t.Fatal("a transcript written anew was missed")
	}
	for _, m := range []string{"", "no newline", p + "\nx", p + "\n-1", filepath.Join(dir, "gone") + "\n0"} {
		if Compressed(m) {
			t.Errorf("mark %q read as a compression", m)
		}
	}
	if transcriptMark("relative.jsonl") != "" || transcriptMark(filepath.Join(dir, "gone.jsonl")) != "" || transcriptMark(dir) != "" {
		t.Error("a mark for a transcript td cannot read")
	}
}

func TestRestartRecord(t *testing.T) {
	for line, want := range map[string]bool{
		`{"$set":{"sessionId":"8f1c"}}`:                   true,
		` {"$set": {"sessionId": "8f1c"}} `:               true,
		`{"$set":{"sessionId":"8f1c","lastUpdated":"x"}}`: false,
		`{"$set":{"lastUpdated":"x"}}`:                    false,
		`{"$set":{"sessionId":"8f1c"},"id":"m"}`:          false,
		`{"sessionId":"8f1c","projectHash":"ab"}`:         false,
		`{"$set":`: false,
		`{"$set":{"sessionId":"a"}}{"$set":{"sessionId":"b"}}`: false,
	} {
		if got := restartRecord([]byte(line)); got != want {
			t.Errorf("%s: %v, want %v", line, got, want)
		}
	}
}

func FuzzRestartRecord(f *testing.F) {
	f.Add(`{"$set":{"sessionId":"8f1c"}}`)
	f.Add(`{"$set":{"lastUpdated":"2026-11-21T10:01:00.000Z"}}`)
	f.Add(`{"id":"m1","type":"user"}`)
	f.Fuzz(func(t *testing.T, line string) {
		if restartRecord([]byte(line)) && !strings.Contains(line, "sessionId") {
			t.Fatalf("%q read as a restart without a session id", line)
		}
	})
}

func TestFolderTrusted(t *testing.T) {
	for _, c := range []struct {
		rules map[string]string
		want  bool
	}{
		{nil, false},
		{map[string]string{"/w/app": "TRUST_FOLDER"}, true},
		{map[string]string{"/w": "TRUST_FOLDER"}, true},
		{map[string]string{"/w/app/sub": "TRUST_FOLDER"}, false},
		{map[string]string{"/w/app": "TRUST_PARENT"}, true},
		{map[string]string{"/w/app/x": "TRUST_PARENT"}, true},
		{map[string]string{"/w": "TRUST_FOLDER", "/w/app": "DO_NOT_TRUST"}, false},
		{map[string]string{"/w": "DO_NOT_TRUST", "/w/app": "TRUST_FOLDER"}, true},
		{map[string]string{"/w/application": "TRUST_FOLDER"}, false},
	} {
		if got := folderTrusted(c.rules, "/w/app"); got != c.want {
			t.Errorf("%v: %v, want %v", c.rules, got, c.want)
		}
	}
}

func TestReadiness(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home}
	get := func(k string) string { return env[k] }
	if r, err := Readiness(root, get); err != nil || r.Installed || r.Runs != harness.RunsNo {
		t.Fatalf("not installed: %+v %v", r, err)
	}
	if _, err := Config().Install(root); err != nil {
		t.Fatal(err)
	}
	if r, err := Readiness(root, get); err != nil || r.Runs != harness.RunsUnknown || !strings.Contains(r.Notes[0], "has not run on this machine") {
		t.Fatalf("never ran: %+v %v", r, err)
	}
	gem := filepath.Join(home, ".gemini")
	os.MkdirAll(gem, 0o755)
	r, err := Readiness(root, get)
	if err != nil || r.Runs != harness.RunsNo || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "has not been asked to trust") {
		t.Fatalf("folder never trusted: %+v %v", r, err)
	}
	os.WriteFile(filepath.Join(gem, "trustedFolders.json"), []byte("{\n  // the work tree\n  \""+root+"\": \"TRUST_FOLDER\"\n}\n"), 0o644)
	r, err = Readiness(root, get)
	if err != nil || r.Runs != harness.RunsYes || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "has not seen td's SessionStart, BeforeAgent") {
		t.Fatalf("trusted, hooks unseen: %+v %v", r, err)
	}
	var seen []string
	for _, e := range Config().Entries {
		seen = append(seen, `":`+e.Command+`"`)
	}
	os.WriteFile(filepath.Join(gem, "trusted_hooks.json"), []byte(`{"`+root+`": [`+strings.Join(seen, ",")+`]}`), 0o644)
	if r, err := Readiness(root, get); err != nil || r.Runs != harness.RunsYes || len(r.Notes) != 0 {
		t.Fatalf("trusted and seen: %+v %v", r, err)
	}
	os.WriteFile(filepath.Join(gem, "settings.json"), []byte(`{"hooksConfig": {"disabled": ["td hook gemini AfterTool"]}}`), 0o644)
	if r, err := Readiness(root, get); err != nil || r.Runs != harness.RunsNo || !strings.Contains(r.Notes[0], "turns off td's AfterTool") {
		t.Fatalf("one turned off: %+v %v", r, err)
	}
	env["GEMINI_CLI_TRUST_WORKSPACE"] = "false"
	os.WriteFile(filepath.Join(gem, "settings.json"), []byte(`{}`), 0o644)
	if r, err := Readiness(root, get); err != nil || r.Runs != harness.RunsNo || !strings.Contains(r.Notes[0], "trusts no folder") {
		t.Fatalf("trust off by the environment: %+v %v", r, err)
	}
}
