package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// inputSchema is a tool's input as JSON Schema: an object of the fields of
// a tool's input struct, in the struct's order, with action required and
// no other field allowed. td writes it itself: the few keywords a tool
// needs are not worth a schema library in the td binary.
type inputSchema struct {
	properties []property
	required   []string
}

// property is one field of an input schema.
type property struct {
	name        string
	typ         string
	items       string // the element type of an array
	description string
	enum        []string
}

// schemaFor builds the input schema of the struct type t from its fields:
// the name from the json tag, the JSON type from the Go type, the
// description from the desc tag; enums by field name. A field without
// omitempty is required.
func schemaFor(t reflect.Type, enums map[string][]string) (*inputSchema, error) {
	s := &inputSchema{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := property{name: name, description: f.Tag.Get("desc"), enum: enums[name]}
		switch {
		case f.Type.Kind() == reflect.String:
			p.typ = "string"
		case f.Type.Kind() == reflect.Bool:
			p.typ = "boolean"
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			p.typ, p.items = "array", "string"
		default:
			return nil, fmt.Errorf("field %s: no JSON Schema type for %s", f.Name, f.Type)
		}
		s.properties = append(s.properties, p)
		if !strings.Contains(opts, "omitempty") {
			s.required = append(s.required, name)
		}
	}
	for name := range enums {
		if !s.has(name) {
			return nil, fmt.Errorf("an enum for %q, which is not a field", name)
		}
	}
	return s, nil
}

// fields are the schema's field names, in order.
func (s *inputSchema) fields() []string {
	names := make([]string, len(s.properties))
	for i, p := range s.properties {
		names[i] = p.name
	}
	return names
}

func (s *inputSchema) has(name string) bool {
	for _, p := range s.properties {
		if p.name == name {
			return true
		}
	}
	return false
}

// MarshalJSON writes the schema with its properties in field order, which
// is the order a client shows them in.
func (s *inputSchema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, p := range s.properties {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := marshal(p.name)
		b.Write(name)
		b.WriteByte(':')
		v := struct {
			Type        string            `json:"type"`
			Items       map[string]string `json:"items,omitempty"`
			Description string            `json:"description,omitempty"`
			Enum        []string          `json:"enum,omitempty"`
		}{Type: p.typ, Description: p.description, Enum: p.enum}
		if p.items != "" {
			v.Items = map[string]string{"type": p.items}
		}
		pb, err := marshal(v)
		if err != nil {
			return nil, err
		}
		b.Write(pb)
	}
	b.WriteString(`},"required":`)
	req, _ := marshal(append([]string{}, s.required...))
	b.Write(req)
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes(), nil
}

// marshal is json.Marshal without the escaping of <, > and & that only
// HTML needs: a client shows td's text as td wrote it.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeC1(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// escapeC1 writes the C1 control characters (U+0080 to U+009F) of JSON
// as \u0080 to \u009f: encoding/json escapes only the C0 ones, and a
// terminal that shows the JSON (a client's log) takes U+009B as the start
// of an escape sequence. In JSON they stand only inside strings, where
// the escape means the same.
func escapeC1(b []byte) []byte {
	if bytes.IndexByte(b, 0xc2) < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); i++ {
		if b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			out = append(out, fmt.Sprintf(`\u%04x`, b[i+1])...)
			i++
			continue
		}
		out = append(out, b[i])
	}
	return out
}
