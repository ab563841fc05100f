package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Str returns a string scalar. It is plain when a YAML reader reads it back
// as that same string and double quoted otherwise: the empty string, words
// such as yes, no, null or true, numbers, and text with leading or trailing
// spaces, special characters or line breaks are quoted. Timestamps such as
// 2026-11-21T10:04:11Z stay plain; decoded into a Go string they read back
// as the same text.
func Str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if !plainOK(s, false) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// Bool returns a boolean scalar, true or false.
func Bool(b bool) *yaml.Node {
	v := "false"
	if b {
		v = "true"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
}

// FlowStrings returns a flow sequence of strings, written as [a, b], or []
// when ss is empty.
func FlowStrings(ss []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, s := range ss {
		n.Content = append(n.Content, flowStr(s))
	}
	return n
}

// BlockStrings returns a block sequence of strings, written one a line as
// "  - a", or [] when ss is empty. td writes labels so: a label added or
// removed is a line added or removed, which a line merge (a forge's merge
// button, a rebase) merges with a change to another label.
func BlockStrings(ss []string) *yaml.Node {
	if len(ss) == 0 {
		return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range ss {
		n.Content = append(n.Content, Str(s))
	}
	return n
}

// FlowMaps returns a block sequence whose items are flow mappings of string
// pairs, written one item a line as "  - {kind: child_of, to: td-a0b1c2}",
// or [] when ms is empty.
func FlowMaps(ms [][][2]string) *yaml.Node {
	if len(ms) == 0 {
		return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, m := range ms {
		item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
		for _, kv := range m {
			item.Content = append(item.Content, flowStr(kv[0]), flowStr(kv[1]))
		}
		n.Content = append(n.Content, item)
	}
	return n
}

// flowStr is Str for a scalar inside a flow collection.
func flowStr(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if !plainOK(s, true) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// plainOK reports whether s can be written as a plain scalar and read back
// as the string s, inside a flow collection when flow is set. It errs on the
// side of quoting.
func plainOK(s string, flow bool) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`<=~. \t", rune(s[0])) {
		return false
	}
	last := s[len(s)-1]
	if last == ' ' || last == '\t' || last == ':' {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	if flow && strings.ContainsAny(s, ",[]{}:#?") {
		return false
	}
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
		return false
	}
	tag := (&yaml.Node{Kind: yaml.ScalarNode, Value: s}).ShortTag()
	if tag == "!!timestamp" {
		return true
	}
	if tag != "!!str" {
		return false
	}
	// Numbers in the forms older YAML readers know (1_000, 1:30, 0o17, +1).
	if s[0] >= '0' && s[0] <= '9' || s[0] == '+' && len(s) > 1 && s[1] >= '0' && s[1] <= '9' {
		return false
	}
	return true
}

// quote writes s as a YAML double-quoted scalar on one line.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			switch {
			case r == ' ' || r != 0xFEFF && unicode.IsPrint(r):
				b.WriteRune(r)
			case r <= 0xFF:
				fmt.Fprintf(&b, `\x%02X`, r)
			case r <= 0xFFFF:
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				fmt.Fprintf(&b, `\U%08X`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// checkValue refuses nodes that cannot be written as a frontmatter value.
func checkValue(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return errors.New("YAML anchors and aliases are not allowed")
	}
	switch n.Kind {
	case yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode:
	default:
		return errors.New("the value is not a scalar, sequence or mapping")
	}
	if n.Kind == yaml.MappingNode && len(n.Content)%2 != 0 {
		return errors.New("a mapping node has a key without a value")
	}
	for _, c := range n.Content {
		if c == nil {
			return errors.New("the value holds a nil node")
		}
		if err := checkValue(c); err != nil {
			return err
		}
	}
	return nil
}

// renderEntry returns the lines of "key: value" in canonical form, without
// indentation or line endings.
func renderEntry(key string, v *yaml.Node) ([]string, error) {
	k := scalarText(Str(key), false)
	if s, ok := inline(v, false); ok {
		return []string{k + ": " + s}, nil
	}
	if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 {
		if len(v.Content) == 0 {
			return []string{k + ": []"}, nil
		}
		lines := []string{k + ":"}
		ok := true
		for _, item := range v.Content {
			s, good := inline(item, false)
			if !good {
				ok = false
				break
			}
			lines = append(lines, "  - "+s)
		}
		if ok {
			return lines, nil
		}
	}
	return encodeEntry(key, v)
}

// inline renders v on a single line: scalars, flow collections, and (in
// flow context) any collection. It reports false when v needs block lines.
func inline(v *yaml.Node, flow bool) (string, bool) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return "", false
		}
		s := scalarText(v, flow)
		return s, s != ""
	case yaml.SequenceNode:
		if !flow && v.Style&yaml.FlowStyle == 0 {
			return "", false
		}
		parts := make([]string, len(v.Content))
		for i, c := range v.Content {
			s, ok := inline(c, true)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case yaml.MappingNode:
		if !flow && v.Style&yaml.FlowStyle == 0 {
			return "", false
		}
		parts := make([]string, 0, len(v.Content)/2)
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, ok := inline(v.Content[i], true)
			if !ok || v.Content[i].Kind != yaml.ScalarNode {
				return "", false
			}
			val, ok := inline(v.Content[i+1], true)
			if !ok {
				return "", false
			}
			parts = append(parts, k+": "+val)
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return "", false
}

// scalarText renders a scalar on one line, or returns "" when it cannot.
func scalarText(v *yaml.Node, flow bool) string {
	tag := v.ShortTag()
	plainTag := (&yaml.Node{Kind: yaml.ScalarNode, Value: v.Value}).ShortTag()
	quoted := v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	if tag == "!!str" {
		if !quoted && plainOK(v.Value, flow) {
			return v.Value
		}
		if !utf8.ValidString(v.Value) {
			return ""
		}
		return quote(v.Value)
	}
	if quoted || tag != plainTag || v.Value == "" {
		return ""
	}
	if strings.ContainsAny(v.Value, "\r\n") || v.Value != strings.TrimSpace(v.Value) {
		return ""
	}
	if flow && strings.ContainsAny(v.Value, ",[]{}#") {
		return ""
	}
	return v.Value
}

// encodeEntry renders "key: value" with the YAML encoder, for values the
// canonical forms do not cover.
func encodeEntry(key string, v *yaml.Node) (lines []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the value cannot be encoded as YAML: %v", r)
		}
	}()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{Str(key), v}}
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("the value cannot be encoded as YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("the value cannot be encoded as YAML: %w", err)
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	return strings.Split(text, "\n"), nil
}

// sameNode reports whether a and b hold the same data: the same kinds,
// resolved tags and values. With lenient set, a string may read back as a
// timestamp of the same text, since it decodes into a Go string unchanged.
func sameNode(a, b *yaml.Node, lenient bool) bool {
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yaml.ScalarNode {
		ta, tb := a.ShortTag(), b.ShortTag()
		if ta == "!!null" && tb == "!!null" {
			return true
		}
		if a.Value != b.Value {
			return false
		}
		if ta != tb && !(lenient && ta == "!!str" && tb == "!!timestamp") {
			return false
		}
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i], lenient) {
			return false
		}
	}
	return true
}
