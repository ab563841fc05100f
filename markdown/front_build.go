package markdown

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// KeyValue is one top-level key of a frontmatter to build.
type KeyValue struct {
	Key   string
	Value *yaml.Node
}

// BuildFrontmatter returns a new frontmatter holding the keys in order,
// each in the canonical form Set writes: the same text as NewFrontmatter
// followed by one Set a key, parsed once instead of once a key. It is
// how many new files are made at once (an import). A key given twice, or
// a value that would not read back as given, is an error.
func BuildFrontmatter(kvs []KeyValue) (*Frontmatter, error) {
	return BuildFrontmatterGroups([][]KeyValue{kvs})
}

// BuildFrontmatterGroups is BuildFrontmatter for keys in groups, one empty
// line between two groups: git merges two changes line by line only when
// a line neither changed lies between them, so the keys that change apart
// are written apart (see the issue file's layout in package repo).
func BuildFrontmatterGroups(groups [][]KeyValue) (*Frontmatter, error) {
	var text strings.Builder
	var kvs []KeyValue
	for i, g := range groups {
		if len(g) == 0 {
			continue
		}
		if i > 0 && len(kvs) > 0 {
			text.WriteString("\n")
		}
		kvs = append(kvs, g...)
		if err := writeEntries(&text, g); err != nil {
			return nil, err
		}
	}
	return parseBuilt(text.String(), kvs)
}

// writeEntries writes the canonical lines of kvs.
func writeEntries(text *strings.Builder, kvs []KeyValue) error {
	for _, kv := range kvs {
		if kv.Value == nil {
			return fmt.Errorf("cannot set key %q to a nil node", kv.Key)
		}
		v := kv.Value
		if v.Kind == yaml.DocumentNode && len(v.Content) == 1 {
			v = v.Content[0]
		}
		if err := checkValue(v); err != nil {
			return fmt.Errorf("cannot set key %q: %w", kv.Key, err)
		}
		lines, err := renderEntry(kv.Key, v)
		if err != nil {
			return fmt.Errorf("cannot set key %q: %w", kv.Key, err)
		}
		for _, l := range lines {
			text.WriteString(l)
			text.WriteString("\n")
		}
	}
	return nil
}

// parseBuilt parses the text BuildFrontmatterGroups wrote and checks that
// it reads back as kvs.
func parseBuilt(text string, kvs []KeyValue) (*Frontmatter, error) {
	seen := make(map[string]bool, len(kvs))
	for _, kv := range kvs {
		if seen[kv.Key] {
			return nil, fmt.Errorf("key %q is given twice", kv.Key)
		}
		seen[kv.Key] = true
	}
	raw := []byte(text)
	if msg := delimitable(raw); msg != "" {
		return nil, fmt.Errorf("the frontmatter %s", msg)
	}
	fm, err := parseFront(raw, "\n", 2)
	if err != nil {
		return nil, fmt.Errorf("the frontmatter would not parse (%s)", errMsg(err))
	}
	if len(fm.entries) != len(kvs) {
		return nil, fmt.Errorf("the frontmatter would not read back with its %d keys", len(kvs))
	}
	for i, kv := range kvs {
		v := kv.Value
		if v.Kind == yaml.DocumentNode && len(v.Content) == 1 {
			v = v.Content[0]
		}
		if fm.entries[i].name != kv.Key || !sameNode(v, fm.entries[i].value, true) {
			return nil, fmt.Errorf("key %q would not read back as the value given", kv.Key)
		}
	}
	return fm, nil
}
