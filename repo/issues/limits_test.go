package issues

import (
	"os"
	"strings"
	"testing"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

// Every entry point (CLI, MCP, hooks) reaches td through these use cases,
// so the size limit td reads issue files within is applied here: nothing
// td writes is over it, and a refused write leaves nothing behind.
func TestIssueSizeLimit(t *testing.T) {
	big := strings.Repeat("a", repo.MaxIssueFileSize+100_000)
	half := strings.Repeat("b", repo.MaxIssueFileSize/2+10)
	for _, tt := range []struct {
		name string
		do   func(s *repo.Store, se *repo.Session, id string) error
		want string
	}{
		{"create", func(s *repo.Store, se *repo.Session, _ string) error {
			_, err := Create(s, se, CreateOptions{Title: "Big", Description: big})
			return err
		}, "over the 1048576 byte limit of an issue file"},
		{"edit", func(s *repo.Store, se *repo.Session, id string) error {
			_, _, err := Edit(s, se, id, EditOptions{Description: &big})
			return err
		}, "over the 1048576 byte limit of an issue file"},
		{"edit --append, twice", func(s *repo.Store, se *repo.Session, id string) error {
			if _, _, err := Edit(s, se, id, EditOptions{Append: half}); err != nil {
				return err
			}
			_, _, err := Edit(s, se, id, EditOptions{Append: half})
			return err
		}, "over the 1048576 byte limit of an issue file"},
		{"comment", func(s *repo.Store, se *repo.Session, id string) error {
			_, _, err := Comment(s, se, id, big)
			return err
		}, "the comment is 1148576 bytes, over the 1048576 byte limit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := repotest.NewStore(t)
			se := repotest.Actor(t, s)
			is, err := Create(s, se, CreateOptions{Title: "Sign in"})
			if err != nil {
				t.Fatal(err)
			}
			before := snapshotTodos(t, s)
			err = tt.do(s, se, is.ID)
			if err == nil || !strings.Contains(err.Error(), tt.want) || repo.CodeOf(err) != repo.CodeInvalid {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			after := snapshotTodos(t, s)
			for p, b := range after {
				if len(b) > repo.MaxIssueFileSize {
					t.Errorf("%s is %d bytes", p, len(b))
				}
				if strings.HasSuffix(p, ".md") && b != before[p] && tt.name != "edit --append, twice" {
					t.Errorf("%s changed", p)
				}
			}
			if _, err := s.ReadIssueFile(is.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// snapshotTodos reads the issue files and ledgers.
func snapshotTodos(t *testing.T, s *repo.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range []string{repo.IssuesDir, repo.HistoryDir} {
		ents, _ := os.ReadDir(s.Path(d))
		for _, e := range ents {
			b, err := os.ReadFile(s.Path(d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[d+"/"+e.Name()] = string(b)
		}
	}
	return out
}
