// Package help holds td's reference pages: markdown topics embedded in the
// binary and printed by td help TOPIC, the way git help and gh help print
// their guides. The README is the user's guide; these pages are the
// reference it points to.
package help

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// files is the topics directory. Each topic is topics/NAME.md: a
// frontmatter block with a one-line summary, then markdown.
//
//go:embed topics/*.md
var files embed.FS

// Topic is one help page.
type Topic struct {
	// Name is what td help TOPIC takes: the file name without .md.
	Name string
	// Summary is the one line td help lists beside the name.
	Summary string
	// Markdown is the page after its frontmatter, as written.
	Markdown string
}

// Topics returns every topic, in name order.
func Topics() ([]Topic, error) {
	ents, err := fs.ReadDir(files, "topics")
	if err != nil {
		return nil, fmt.Errorf("read help topics: %w", err)
	}
	var out []Topic
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() {
			continue
		}
		t, err := load(name)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Lookup returns the topic called name; ok is false when there is none.
func Lookup(name string) (t Topic, ok bool, err error) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return Topic{}, false, nil
	}
	if _, err := fs.Stat(files, path.Join("topics", name+".md")); err != nil {
		return Topic{}, false, nil
	}
	t, err = load(name)
	return t, err == nil, err
}

// Names returns the topic names, in order, for messages that list them.
func Names() []string {
	ts, err := Topics()
	if err != nil {
		return nil
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return names
}

func load(name string) (Topic, error) {
	p := path.Join("topics", name+".md")
	data, err := files.ReadFile(p)
	if err != nil {
		return Topic{}, fmt.Errorf("read help topic %s: %w", name, err)
	}
	summary, body, err := splitFrontmatter(data)
	if err != nil {
		return Topic{}, fmt.Errorf("help topic %s: %w", p, err)
	}
	return Topic{Name: name, Summary: summary, Markdown: body}, nil
}

// splitFrontmatter reads the "summary:" line of the page's frontmatter
// and returns the markdown after it, without leading blank lines.
func splitFrontmatter(data []byte) (summary, body string, err error) {
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return "", "", fmt.Errorf("no frontmatter: the page must start with ---")
	}
	front, after, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return "", "", fmt.Errorf("frontmatter has no closing ---")
	}
	for _, line := range strings.Split(string(front), "\n") {
		if v, ok := strings.CutPrefix(line, "summary:"); ok {
			summary = strings.TrimSpace(v)
		}
	}
	if summary == "" {
		return "", "", fmt.Errorf("frontmatter has no summary")
	}
	return summary, strings.TrimLeft(string(after), "\n"), nil
}
