package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tdproject/td/repo"
)

// OnboardVersion is the version of the onboarding block td onboard prints.
// It goes up whenever OnboardText changes, so that td onboard --check can
// tell a repository's copy is older than the td reading it; a unit test
// holds the text's hash beside the version and fails when one changes
// without the other.
const OnboardVersion = 2

// onboardTextSHA256 is the SHA-256 of OnboardText at OnboardVersion.
const onboardTextSHA256 = "141c4df8f3d6c09fb9779e6ff8a041a1a853aea881000b377fde89002e6f0277"

// OnboardText is the onboarding block's body: how an agent works with td,
// for a repository's AGENTS.md or CLAUDE.md.
const OnboardText = `## Issues and todos: td

This repository tracks its work with td: issues are markdown files under
` + "`.todos/`" + `, committed with the code. You act as one td session (` + "`$TD_SESSION`" + `),
bound to one issue; that issue's checklist is your plan.

- ` + "`td context`" + ` shows who you are, the bound issue with its checklist, the
  anchors and the next step. Read it when you start, after a compaction and
  after a pause.
- Not bound? Ask the operator which issue to take (` + "`td ready`" + ` lists open
  ones) and bind it with ` + "`td session bind ID`" + `, or file the work you are
  doing with ` + "`td promote TITLE`" + `. Work found on the way: ` + "`td create TITLE`" + `
  files it under your issue.
- ` + "`td todo view`" + ` shows the checklist. Name todos by their text, never by an
  ID: ` + "`td todo set \"step one\" \"step two\"`" + `, ` + "`td todo add TEXT [--phase P]`" + `,
  ` + "`td todo start TEXT`" + `, ` + "`td todo done TEXT`" + `, ` + "`td todo block TEXT --reason R`" + `,
  ` + "`td todo note TEXT NOTE`" + `, ` + "`td todo drop TEXT`" + `. One todo is in progress at
  a time; td starts the next step for you.
- **Steps** (` + "`## Todos`" + `) are your plan: change them as you learn.
  **Criteria** (` + "`## Acceptance criteria`" + `) are the operator's definition of
  done: claim one with ` + "`td todo done TEXT`" + ` only when it holds. You may
  propose one (` + "`td todo add --kind criterion TEXT`" + `); never drop or reopen one.
- When every criterion is done, ask for sign-off: ` + "`td review ID`" + `. The
  operator's approval closes the issue; ending your session never does.
- Leading other agents? ` + "`td send ID --agent worker`" + ` hands an issue to a
  worker. As your own session you may approve an issue you never worked on,
  or one you created and a worker implemented, with a reason (audited):
  ` + "`td approve ID --session $TD_SESSION --reason WHY`" + `. An issue with
  acceptance criteria waits for the operator's sign-off.
- Keep what must survive a compaction as an anchor:
  ` + "`td anchor add TEXT --priority critical`" + `. Report a failure you keep hitting
  with ` + "`td session error MESSAGE`" + `; when td says you are stalled, change course.
- A subagent (an agent path with a dot) cannot change issues or todos: it
  proposes steps with ` + "`td todo propose TEXT...`" + `, and its root agent accepts them.
- Commit td's files with your code: td stages what it writes.
`

// Onboarding block markers: the start carries the version.
const (
	onboardStartPrefix = "<!-- td:onboard v"
	onboardStartSuffix = " -->"
	onboardEnd         = "<!-- /td:onboard -->"
)

// OnboardBlock is the whole block, markers included, as td onboard prints
// it and td onboard --write puts it in a file.
func OnboardBlock() string {
	return onboardStartPrefix + strconv.Itoa(OnboardVersion) + onboardStartSuffix + "\n" + OnboardText + onboardEnd + "\n"
}

// Onboarding block states in a file.
const (
	OnboardCurrent = "current" // the block td prints, byte for byte
	OnboardStale   = "stale"   // an older version's block
	OnboardEdited  = "edited"  // this version's markers around other text
	OnboardNewer   = "newer"   // written by a newer td
	OnboardMissing = "missing" // the file has no block
	OnboardNoFile  = "no file" // the file does not exist
)

// OnboardCheck is what td found in one file.
type OnboardCheck struct {
	Path    string `json:"path"`
	Status  string `json:"status"`
	Version int    `json:"version,omitempty"` // the block's version, 0 when none
}

// OK reports whether the file needs nothing: its block is current, or a
// newer td wrote it.
func (c OnboardCheck) OK() bool { return c.Status == OnboardCurrent || c.Status == OnboardNewer }

// maxOnboardFile bounds the files td onboard reads.
const maxOnboardFile = 4 << 20

// CheckOnboard reads a file's onboarding block against this td's.
func CheckOnboard(path string) (OnboardCheck, error) {
	c := OnboardCheck{Path: path}
	data, err := readOnboardFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		c.Status = OnboardNoFile
		return c, nil
	}
	if err != nil {
		return c, err
	}
	b, err := findOnboard(path, data)
	if err != nil {
		return c, err
	}
	c.Status, c.Version = b.status(data), b.version
	return c, nil
}

// WriteOnboard puts the onboarding block into a file: in place of the
// block already there (of any version), else at the end after a blank
// line, else as a new file. The rest of the file is untouched, CRLF files
// get CRLF lines, and the file is replaced atomically. It returns the
// file's state before.
func WriteOnboard(path string) (OnboardCheck, error) {
	c := OnboardCheck{Path: path}
	if err := OnboardTarget(path); err != nil {
		return c, err
	}
	data, err := readOnboardFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	exists := err == nil
	b, err := findOnboard(path, data)
	if err != nil {
		return c, err
	}
	c.Status, c.Version = b.status(data), b.version
	if !exists {
		c.Status = OnboardNoFile
	}
	if c.Status == OnboardCurrent {
		return c, nil
	}
	block := OnboardBlock()
	if bytes.Contains(data, []byte("\r\n")) {
		block = strings.ReplaceAll(block, "\n", "\r\n")
	}
	var out []byte
	if b.found {
		out = append(append(append(out, data[:b.start]...), block...), data[b.end:]...)
	} else {
		out = append(out, data...)
		eol := "\n"
		if strings.HasSuffix(block, "\r\n") {
			eol = "\r\n"
		}
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, eol...)
		}
		if len(bytes.TrimSpace(out)) > 0 && !bytes.HasSuffix(out, []byte(eol+eol)) {
			out = append(out, eol...)
		}
		out = append(out, block...)
	}
	if err := repo.WriteFileAtomic(path, out); err != nil {
		return c, fmt.Errorf("write %s: %w", path, err)
	}
	return c, nil
}

// OnboardTarget refuses a file the onboarding block must not be written
// into: anything but a markdown file, and anything inside .todos (td's own
// files, which a block would break) or .git, however the path reaches it.
func OnboardTarget(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
	default:
		return repo.Errorf(repo.CodeRefused, "%s is not a markdown file; td onboard --write puts its block only into one such as AGENTS.md or CLAUDE.md", path)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; ; d = filepath.Dir(d) {
		if b := filepath.Base(d); b == repo.TodosDir || b == ".git" {
			return repo.Errorf(repo.CodeRefused, "%s is inside %s, which td onboard --write never writes; name a markdown file outside it, such as AGENTS.md", path, b)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

func readOnboardFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, repo.Errorf(repo.CodeRefused, "%s is not a regular file", path)
	}
	if fi.Size() > maxOnboardFile {
		return nil, repo.Errorf(repo.CodeRefused, "%s is over %d bytes; td onboard reads files the size of an AGENTS.md", path, maxOnboardFile)
	}
	return os.ReadFile(path)
}

// onboardSpan is where a block lies in a file: from the start of its
// first marker's line to the end of its last marker's line.
type onboardSpan struct {
	found      bool
	start, end int
	version    int
	body       []byte // between the marker lines, line endings as written
}

// status compares a found block with this td's.
func (b onboardSpan) status(data []byte) string {
	switch {
	case !b.found:
		return OnboardMissing
	case b.version < OnboardVersion:
		return OnboardStale
	case b.version > OnboardVersion:
		return OnboardNewer
	case string(bytes.ReplaceAll(b.body, []byte("\r\n"), []byte("\n"))) != OnboardText:
		return OnboardEdited
	}
	return OnboardCurrent
}

// findOnboard finds the block: marker lines are matched whole, ignoring
// surrounding spaces. A start without an end, or two blocks, is refused,
// since td could not tell which bytes are its own.
func findOnboard(path string, data []byte) (onboardSpan, error) {
	var b onboardSpan
	bodyStart := 0
	off := 0
	for line := 1; off < len(data); line++ {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		t := strings.TrimSpace(string(data[off:next]))
		switch {
		case strings.HasPrefix(t, onboardStartPrefix) && strings.HasSuffix(t, onboardStartSuffix):
			if b.found {
				return b, repo.Errorf(repo.CodeRefused, "%s:%d: a second td onboard block; delete one, then run td onboard --write %s", path, line, path)
			}
			v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(t, onboardStartPrefix), onboardStartSuffix))
			if err != nil || v < 0 {
				return b, repo.Errorf(repo.CodeRefused, "%s:%d: the td onboard marker has no version number; fix the line to read %s%d%s", path, line, onboardStartPrefix, OnboardVersion, onboardStartSuffix)
			}
			b.found, b.start, b.end, b.version = true, off, -1, v
			bodyStart = next
		case t == onboardEnd:
			if !b.found || b.end >= 0 {
				return b, repo.Errorf(repo.CodeRefused, "%s:%d: a td onboard end marker without its start; delete it, then run td onboard --write %s", path, line, path)
			}
			b.body, b.end = data[bodyStart:off], next
		}
		off = next
	}
	if b.found && b.end < 0 {
		return b, repo.Errorf(repo.CodeRefused, "%s: the td onboard block has no end marker (%s), so td cannot tell where it ends; add the marker or delete the block", path, onboardEnd)
	}
	return b, nil
}
