package exchange

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"gopkg.in/yaml.v3"
)

// apiSchema is the part of an OpenAPI schema the check below reads.
type apiSchema struct {
	Type       string               `yaml:"type"`
	Properties map[string]apiSchema `yaml:"properties"`
	Required   []string             `yaml:"required"`
	Items      *apiSchema           `yaml:"items"`
	OneOf      []apiSchema          `yaml:"oneOf"`
	Enum       []string             `yaml:"enum"`
	Nullable   bool                 `yaml:"nullable"`
}

// conforms says why v does not fit s, "" when it does.
func (s apiSchema) conforms(path string, v any) string {
	if v == nil {
		if s.Nullable {
			return ""
		}
		return path + " is null"
	}
	if len(s.OneOf) > 0 {
		for _, o := range s.OneOf {
			if o.conforms(path, v) == "" {
				return ""
			}
		}
		return fmt.Sprintf("%s = %v fits none of its forms", path, v)
	}
	switch s.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return path + " is not a string"
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return fmt.Sprintf("%s = %q is not one of %v", path, str, s.Enum)
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			return path + " is not an integer"
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return path + " is not an array"
		}
		for i, it := range a {
			if why := s.Items.conforms(fmt.Sprintf("%s[%d]", path, i), it); why != "" {
				return why
			}
		}
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return path + " is not an object"
		}
		for _, k := range s.Required {
			if _, ok := m[k]; !ok {
				return fmt.Sprintf("%s lacks the required %q", path, k)
			}
		}
		if s.Properties == nil {
			return ""
		}
		for k, kv := range m {
			p, ok := s.Properties[k]
			if !ok {
				return fmt.Sprintf("%s has %q, which the operation does not take", path, k)
			}
			if why := p.conforms(path+"."+k, kv); why != "" {
				return why
			}
		}
	}
	return ""
}

// TestGitHubFormFitsTheAPI holds td export --format github to GitHub's
// OpenAPI description (an excerpt in testdata, its source named there):
// "create" is a body issues/create takes, with no key it does not know
// (no state, no td); "update", for a closed issue only, one issues/update
// takes.
func TestGitHubFormFitsTheAPI(t *testing.T) {
	data, err := os.ReadFile("testdata/github-issues-create.openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ops map[string]apiSchema
	if err := yaml.Unmarshal(data, &ops); err != nil {
		t.Fatal(err)
	}
	create, update := ops["issues/create"], ops["issues/update"]
	if create.Properties["title"].OneOf == nil || update.Properties["state"].Enum == nil {
		t.Fatalf("the excerpt lost its schemas: %+v", ops)
	}
	for _, tc := range []struct {
		name   string
		issue  ExportedIssue
		closed string // the state_reason of update; "" for no update
	}{
		{"open task", ExportedIssue{ID: "td-a", Title: "Sign in", Status: domain.StatusOpen, Type: domain.TypeTask, Priority: "P2", Labels: []string{"auth"}, Assignee: "alice"}, ""},
		{"in progress, an agent's", ExportedIssue{ID: "td-b", Title: "Sign out", Status: domain.StatusInProgress, Type: domain.TypeBug, Priority: "P1", Assignee: "session:ses_x"}, ""},
		{"closed done", ExportedIssue{ID: "td-c", Title: "Old", Status: domain.StatusClosed, Resolution: domain.ResolutionDone, Type: domain.TypeEpic, Priority: "P3"}, "completed"},
		{"closed wontfix", ExportedIssue{ID: "td-d", Title: "No", Status: domain.StatusClosed, Resolution: domain.ResolutionWontfix, Type: domain.TypeChore, Priority: "P4"}, "not_planned"},
		{"closed duplicate", ExportedIssue{ID: "td-e", Title: "Same", Status: domain.StatusClosed, Resolution: domain.ResolutionDuplicate, Type: domain.TypeFeature, Priority: "P2"}, "duplicate"},
	} {
		form := GitHubForm(&tc.issue)
		b, err := json.Marshal(form)
		if err != nil {
			t.Fatal(err)
		}
		var item map[string]any
		if err := json.Unmarshal(b, &item); err != nil {
			t.Fatal(err)
		}
		if why := create.conforms("create", item["create"]); why != "" {
			t.Errorf("%s: %s", tc.name, why)
		}
		if got := item["create"].(map[string]any)["type"]; got == "" || got == nil {
			t.Errorf("%s: create has no type", tc.name)
		}
		u, has := item["update"]
		switch {
		case tc.closed == "" && has:
			t.Errorf("%s: an open issue has an update %v", tc.name, u)
		case tc.closed != "" && !has:
			t.Errorf("%s: a closed issue has no update", tc.name)
		case tc.closed != "":
			if why := update.conforms("update", u); why != "" {
				t.Errorf("%s: %s", tc.name, why)
			}
			if r := u.(map[string]any)["state_reason"]; r != tc.closed {
				t.Errorf("%s: state_reason %v, want %s", tc.name, r, tc.closed)
			}
		}
	}
}
