package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxTranscriptRead bounds what Compressed reads of a transcript: the
// records Gemini appended in one turn.
const maxTranscriptRead = 8 << 20

// transcriptMark is the mark of a PreCompress: the transcript's path and
// size, "" when the payload names no transcript td can read (then no
// compaction is counted: PreCompress alone proves none).
func transcriptMark(path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return path + "\n" + strconv.FormatInt(fi.Size(), 10)
}

// Compressed reports whether the Gemini CLI compressed the conversation
// since a PreCompress marked its transcript. Gemini fires PreCompress at
// every compression attempt, before it compares the history with its
// threshold; when it does compress, it starts the chat again on the
// summary and its recording appends a record setting the session id,
// {"$set": {"sessionId": …}}, which nothing else writes alone. A
// transcript that shrank was written anew, which Gemini also does only
// then.
func Compressed(mark string) bool {
	path, sizeText, ok := strings.Cut(mark, "\n")
	if !ok {
		return false
	}
	size, err := strconv.ParseInt(sizeText, 10, 64)
	if err != nil || size < 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	switch {
	case fi.Size() < size:
		return true
	case fi.Size() == size:
		return false
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return false
	}
	sc := bufio.NewScanner(io.LimitReader(f, maxTranscriptRead))
	sc.Buffer(make([]byte, 64<<10), maxTranscriptRead)
	for sc.Scan() {
		if restartRecord(sc.Bytes()) {
			return true
		}
	}
	return false
}

// restartRecord reports whether a transcript line is the record a chat
// started again on a summary appends: an update of the session id alone.
func restartRecord(line []byte) bool {
	line = bytes.TrimSpace(line)
	if !bytes.HasPrefix(line, []byte(`{"$set"`)) {
		return false
	}
	var rec map[string]map[string]json.RawMessage
	if json.Unmarshal(line, &rec) != nil || len(rec) != 1 {
		return false
	}
	set, ok := rec["$set"]
	if !ok || len(set) != 1 {
		return false
	}
	_, ok = set["sessionId"]
	return ok
}
