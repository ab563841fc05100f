package command

import (
	"bytes"
	"io"
	"testing"
)

type selfWriting struct{}

func (selfWriting) WriteJSON(w io.Writer) error {
	_, err := io.WriteString(w, "custom\n")
	return err
}

func TestExport(t *testing.T) {
	tests := []struct {
		name  string
		json  bool
		model func() any
		want  string
	}{
		{"text", false, func() any { return map[string]int{"a": 1} }, "plain\n"},
		{"json", true, func() any { return map[string]int{"a": 1} }, "{\n  \"a\": 1\n}\n"},
		{"json writer", true, func() any { return selfWriting{} }, "custom\n"},
		{"json nil model", true, nil, ""},
		{"html kept", true, func() any { return "<b>" }, "\"<b>\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s := &streams{out: &out, json: tt.json}
			err := s.export(tt.model, func() error { s.printf("plain\n"); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got %q, want %q", out.String(), tt.want)
			}
		})
	}
}
