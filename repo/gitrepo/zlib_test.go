package gitrepo

import (
	"bytes"
	"compress/zlib"
	"io"
	"strings"
	"testing"
)

func TestWriteStoredZlibReadsBack(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 9000) // 144,000 bytes: three blocks
	for _, tc := range []struct {
		name  string
		parts []string
	}{
		{"empty", nil},
		{"one empty part", []string{""}},
		{"header and content", []string{"blob 5\x00", "hello"}},
		{"one full block", []string{strings.Repeat("x", maxStoredBlock)}},
		{"one byte over a block", []string{strings.Repeat("x", maxStoredBlock), "y"}},
		{"parts across blocks", []string{"tree 144000\x00", big}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts [][]byte
			for _, p := range tc.parts {
				parts = append(parts, []byte(p))
			}
			var buf bytes.Buffer
			if err := writeStoredZlib(&buf, parts...); err != nil {
				t.Fatal(err)
			}
			zr, err := zlib.NewReader(&buf)
			if err != nil {
				t.Fatalf("not a zlib stream: %v", err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("reading it back: %v", err)
			}
			if want := strings.Join(tc.parts, ""); string(got) != want {
				t.Errorf("read back %d bytes, want %d", len(got), len(want))
			}
			if err := zr.Close(); err != nil {
				t.Errorf("checksum: %v", err)
			}
		})
	}
}

func TestZlibWritersReuse(t *testing.T) {
	r := &Repo{}
	for i, want := range []string{"first stream", "second, longer stream", ""} {
		var buf bytes.Buffer
		if err := r.writeZlib(&buf, []byte(want)); err != nil {
			t.Fatal(err)
		}
		zr, err := zlib.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || string(got) != want {
			t.Errorf("stream %d = %q, %v; want %q", i, got, err, want)
		}
	}
	if n := len(r.blobWriters.free); n != 1 {
		t.Errorf("%d writers kept after three streams in turn, want 1", n)
	}
}
