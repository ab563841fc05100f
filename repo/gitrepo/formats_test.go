package gitrepo

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestTrailersAgreeWithGit parses messages shaped like the edge cases of
// git's trailer rules with parseTrailers and with git interpret-trailers.
func TestTrailersAgreeWithGit(t *testing.T) {
	t.Parallel()
	git := gitBinary(t)
	for _, msg := range []string{
		"Title\n\nTd-Session: ses_1\nTd-Action: started\n",
		"Title only\n",
		"",
		"Title\n\nBody.\n\nTd-Action: started\n\n\n\n",
		"Title\n\nTd-Action: started\n# a comment line\nTd-Issue: td-1\n",
		"Title\r\n\r\nTd-Action: closed\r\nTd-Issue: td-2\r\n",
		"Title\n\nTd-Note: one\n two\n\tthree\nTd-Issue: td-3\n",
		"Title\n\nKey : spaced\nKey2:tight\n",
		"Title\n\nx-y-9: digits and dashes\n",
		"Title\n\nTd-Link: http://example.com/a:b\n",
		"Title\n\nhttp://example.com: not a trailer\n",
		"Title\n\nSigned-off-by: Ada <ada@example.com>\nprose\nprose\nprose\n",
		"Title\n\nSigned-off-by: Ada <ada@example.com>\nprose\nprose\nprose\nprose\n",
		"Title\n\n(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)\n",
		"Title\n\nprose first\nTd-Action: started\n",
		"Title\n\n  indented: first line\nTd-Action: started\n",
		"Title\n\nTd-Action:\n",
		"Title\nsecond title line\n\nTd-Action: started\n",
	} {
		out := runGitIn(t, git, msg, "interpret-trailers", "--parse")
		var gitSays []Trailer
		for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				gitSays = append(gitSays, Trailer{k, strings.TrimSpace(v)})
			}
		}
		if got := parseTrailers(msg); !slices.Equal(got, gitSays) {
			t.Errorf("message %q: trailers %q, git interpret-trailers says %q", msg, got, gitSays)
		}
	}
}

// TestTreeLookupAgreesWithGit commits names that sort around each other
// in git's tree order (a directory sorts as if its name ended in "/") and
// reads each back with FileAt, loose and packed, comparing with git.
func TestTreeLookupAgreesWithGit(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	names := []string{"a", "a-b", "a.b", "a0", "ab", "a b", "b/c", "b-c", "b.c", "b0", "bc/d", "bc.d", "z"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = "content of " + n + "\n"
	}
	h.commit("names\n", files)
	for _, label := range []string{"loose", "packed"} {
		var in strings.Builder
		for _, n := range names {
			in.WriteString("HEAD:" + n + "\n")
		}
		gitSays := strings.Split(h.git(nil, in.String(), "cat-file", "--batch-check=%(objectname)"), "\n")
		for i, n := range names {
			got, err := h.r.FileAt("HEAD", n)
			if err != nil || string(got) != files[n] {
				t.Errorf("%s: FileAt(%s) = %q, %v", label, n, got, err)
			}
			if BlobHash(got) != gitSays[i] {
				t.Errorf("%s: %s reads as blob %s, git says %s", label, n, BlobHash(got), gitSays[i])
			}
		}
		for _, missing := range []string{"a/b", "b", "bc", "a-", "b/d", "bc/c"} {
			if _, err := h.r.FileAt("HEAD", missing); err == nil {
				t.Errorf("%s: FileAt(%s) found something", label, missing)
			}
		}
		h.git(nil, "", "repack", "-adq")
	}
}

// runGitIn runs git with stdin in the current directory and returns its
// standard output.
func runGitIn(t *testing.T, git, stdin string, args ...string) string {
	t.Helper()
	out, err := commandOutput(git, stdin, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func commandOutput(name, stdin string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, b)
	}
	return string(b), nil
}
