package ci

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The services' published schemas, shipped under testdata:
//
//   - github-workflow.schema.json is SchemaStore's github-workflow.json
//     (https://json.schemastore.org/github-workflow.json), the schema
//     editors validate GitHub workflows with, byte for byte as the npm
//     package @action-validator/core 0.6.0 embeds it.
//   - gitlab-ci.schema.json is GitLab's own
//     app/assets/javascripts/editor/schema/ci.json, as the npm package
//     gitlab-ci-local 4.75.1 bundles it (re-serialised from its JavaScript
//     bundle; the content is GitLab's).
//
// validator is the subset of JSON Schema draft-07 the two schemas use:
// $ref to local definitions, type, enum, const, properties,
// patternProperties, additionalProperties, required, dependencies, items,
// min/maxItems, uniqueItems, min/maxLength, pattern, min/maxProperties,
// minimum, maximum, allOf, anyOf, oneOf, not and if/then/else. format,
// default, examples and descriptions are annotations and are not checked.
// A pattern Go's regexp cannot compile (ECMA-only syntax) is counted in
// skipped rather than silently passing: the test reports it.
type validator struct {
	root    map[string]any
	skipped map[string]bool
}

func loadSchema(t *testing.T, name string) *validator {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &validator{root: root, skipped: map[string]bool{}}
}

// errs lists every violation of schema by v at path.
func (vd *validator) errs(schema any, v any, path string) []string {
	switch s := schema.(type) {
	case bool:
		if !s {
			return []string{path + ": not allowed"}
		}
		return nil
	case map[string]any:
		return vd.object(s, v, path)
	}
	return []string{path + ": schema is not an object"}
}

func (vd *validator) resolve(ref string) any {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		if ref == "#" {
			return vd.root
		}
		panic("non-local $ref " + ref)
	}
	var cur any = vd.root
	for _, part := range strings.Split(p, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		cur = cur.(map[string]any)[part]
	}
	return cur
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func typeMatches(want string, v any) bool {
	got := jsonType(v)
	return got == want || (want == "number" && got == "integer")
}

func (vd *validator) object(s map[string]any, v any, path string) []string {
	if ref, ok := s["$ref"].(string); ok {
		return vd.errs(vd.resolve(ref), v, path) // draft-07: $ref's siblings are ignored
	}
	var out []string
	fail := func(format string, args ...any) { out = append(out, path+": "+fmt.Sprintf(format, args...)) }
	switch t := s["type"].(type) {
	case string:
		if !typeMatches(t, v) {
			fail("is %s, want %s", jsonType(v), t)
			return out
		}
	case []any:
		ok := false
		for _, x := range t {
			ok = ok || typeMatches(x.(string), v)
		}
		if !ok {
			fail("is %s, want one of %v", jsonType(v), t)
			return out
		}
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || reflect.DeepEqual(x, v)
		}
		if !found {
			fail("%v is not one of %v", v, e)
		}
	}
	if c, ok := s["const"]; ok && !reflect.DeepEqual(c, v) {
		fail("%v is not %v", v, c)
	}
	switch x := v.(type) {
	case map[string]any:
		out = append(out, vd.objectKeywords(s, x, path)...)
	case []any:
		if items, ok := s["items"]; ok {
			if tuple, ok := items.([]any); ok {
				for i := 0; i < len(tuple) && i < len(x); i++ {
					out = append(out, vd.errs(tuple[i], x[i], fmt.Sprintf("%s[%d]", path, i))...)
				}
			} else {
				for i, e := range x {
					out = append(out, vd.errs(items, e, fmt.Sprintf("%s[%d]", path, i))...)
				}
			}
		}
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			fail("has %d items, fewer than %v", len(x), n)
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(x)) > n {
			fail("has %d items, more than %v", len(x), n)
		}
		if u, _ := s["uniqueItems"].(bool); u {
			for i := range x {
				for j := i + 1; j < len(x); j++ {
					if reflect.DeepEqual(x[i], x[j]) {
						fail("items %d and %d are equal", i, j)
					}
				}
			}
		}
	case string:
		n := float64(len([]rune(x)))
		if m, ok := s["minLength"].(float64); ok && n < m {
			fail("is shorter than %v", m)
		}
		if m, ok := s["maxLength"].(float64); ok && n > m {
			fail("is longer than %v", m)
		}
		if p, ok := s["pattern"].(string); ok {
			re, err := regexp.Compile(p)
			if err != nil {
				vd.skipped[p] = true
			} else if !re.MatchString(x) {
				fail("%q does not match %q", x, p)
			}
		}
	case float64:
		if m, ok := s["minimum"].(float64); ok && x < m {
			fail("%v is less than %v", x, m)
		}
		if m, ok := s["maximum"].(float64); ok && x > m {
			fail("%v is more than %v", x, m)
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			out = append(out, vd.errs(sub, v, path)...)
		}
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		ok := false
		for _, sub := range anyOf {
			ok = ok || len(vd.errs(sub, v, path)) == 0
		}
		if !ok {
			fail("matches none of anyOf")
		}
	}
	if oneOf, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, sub := range oneOf {
			if len(vd.errs(sub, v, path)) == 0 {
				n++
			}
		}
		if n != 1 {
			fail("matches %d of oneOf, want exactly 1", n)
		}
	}
	if not, ok := s["not"]; ok && len(vd.errs(not, v, path)) == 0 {
		fail("matches what not forbids")
	}
	if cond, ok := s["if"]; ok {
		if len(vd.errs(cond, v, path)) == 0 {
			if then, ok := s["then"]; ok {
				out = append(out, vd.errs(then, v, path)...)
			}
		} else if els, ok := s["else"]; ok {
			out = append(out, vd.errs(els, v, path)...)
		}
	}
	return out
}

func (vd *validator) objectKeywords(s map[string]any, x map[string]any, path string) []string {
	var out []string
	props, _ := s["properties"].(map[string]any)
	pats, _ := s["patternProperties"].(map[string]any)
	for k, val := range x {
		matched := false
		if sub, ok := props[k]; ok {
			matched = true
			out = append(out, vd.errs(sub, val, path+"."+k)...)
		}
		for p, sub := range pats {
			re, err := regexp.Compile(p)
			if err != nil {
				vd.skipped[p] = true
				continue
			}
			if re.MatchString(k) {
				matched = true
				out = append(out, vd.errs(sub, val, path+"."+k)...)
			}
		}
		if !matched {
			if ap, ok := s["additionalProperties"]; ok {
				out = append(out, vd.errs(ap, val, path+"."+k)...)
			}
		}
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if _, ok := x[r.(string)]; !ok {
				out = append(out, fmt.Sprintf("%s: lacks required %q", path, r))
			}
		}
	}
	if deps, ok := s["dependencies"].(map[string]any); ok {
		for k, d := range deps {
			if _, ok := x[k]; !ok {
				continue
			}
			if names, ok := d.([]any); ok {
				for _, n := range names {
					if _, ok := x[n.(string)]; !ok {
						out = append(out, fmt.Sprintf("%s: %q needs %q", path, k, n))
					}
				}
			} else {
				out = append(out, vd.errs(d, x, path)...)
			}
		}
	}
	if n, ok := s["minProperties"].(float64); ok && float64(len(x)) < n {
		out = append(out, fmt.Sprintf("%s: has %d properties, fewer than %v", path, len(x), n))
	}
	if n, ok := s["maxProperties"].(float64); ok && float64(len(x)) > n {
		out = append(out, fmt.Sprintf("%s: has %d properties, more than %v", path, len(x), n))
	}
	return out
}

// toJSON turns a YAML document into the values encoding/json would
// produce for the same JSON: what a schema validates.
func toJSON(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("the YAML does not parse: %v", err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("the YAML is not JSON data: %v", err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFilesValidateAgainstThePublishedSchemas(t *testing.T) {
	for _, tc := range []struct{ service, path, schema string }{
		{GitHub, ".github/workflows/td.yml", "github-workflow.schema.json"},
		{GitLab, ".gitlab/td.gitlab-ci.yml", "gitlab-ci.schema.json"},
	} {
		t.Run(tc.service, func(t *testing.T) {
			files, err := Content(tc.service)
			if err != nil {
				t.Fatal(err)
			}
			vd := loadSchema(t, tc.schema)
			if errs := vd.errs(vd.root, toJSON(t, files[tc.path]), "$"); len(errs) > 0 {
				t.Fatalf("%s does not validate:\n%s", tc.path, strings.Join(errs, "\n"))
			}
			for p := range vd.skipped {
				t.Logf("pattern not checked (not RE2 syntax): %s", p)
			}
		})
	}
}

// TestTheValidatorRejects holds the validator to finding what the schemas
// forbid, so that a pass above means something.
func TestTheValidatorRejects(t *testing.T) {
	gh, gl := loadSchema(t, "github-workflow.schema.json"), loadSchema(t, "gitlab-ci.schema.json")
	files, _ := Content(GitHub)
	good := files[".github/workflows/td.yml"]
	labFiles, _ := Content(GitLab)
	lab := labFiles[".gitlab/td.gitlab-ci.yml"]
	for _, tc := range []struct {
		name string
		vd   *validator
		doc  string
	}{
		{"a workflow without jobs", gh, "on: push\n"},
		{"an unknown top-level key", gh, good + "triggers: [push]\n"},
		{"an unknown event", gh, strings.Replace(good, "pull_request_target:", "pull_request_merged:", 1)},
		{"a permission level that does not exist", gh, strings.Replace(good, "pull-requests: write", "pull-requests: admin", 1)},
		{"a step with both uses and run", gh, strings.Replace(good, "      - uses: actions/setup-go@v5\n", "      - uses: actions/setup-go@v5\n        run: echo\n", 1)},
		{"a GitLab job with an unknown key", gl, strings.Replace(lab, "  image: golang:1\n", "  image: golang:1\n  imagery: x\n", 1)},
		{"a GitLab rule with an unknown key", gl, strings.Replace(lab, `    - if: $CI_PIPELINE_SOURCE == "merge_request_event"`, "    - when_really: always", 1)},
		{"GitLab artifacts when that does not exist", gl, strings.Replace(lab, "    when: always\n", "    when: sometimes\n", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if errs := tc.vd.errs(tc.vd.root, toJSON(t, tc.doc), "$"); len(errs) == 0 {
				t.Fatalf("validated, but the schema forbids it:\n%s", tc.doc)
			}
		})
	}
}
