package markdown

import "testing"

// typicalIssue is a frontmatter and body of the size td usually handles.
const typicalIssue = canonical + `
Users should be able to sign in with their GitHub account instead of a
password. Tokens are stored encrypted and refreshed in the background.

## Acceptance criteria

- [x] A user can sign in with a GitHub account
- [ ] Expired tokens refresh without a prompt

## Todos

### Backend
- [x] Register the OAuth app config
- [/] Implement the callback handler
  > state parameter must be verified
- [ ] Integration test against a fake provider
- [-] Try the device flow

### Frontend (from primary.subagents.ui)
- [!] Login button
  > blocked: waiting for the design tokens
`

// BenchmarkParseDecode measures reading one issue file: Parse and Decode
// into the canonical fields.
func BenchmarkParseDecode(b *testing.B) {
	data := []byte(typicalIssue)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		var is issue
		if err := f.Front.Decode(&is); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSet measures one status change on a parsed file.
func BenchmarkSet(b *testing.B) {
	data := []byte(typicalIssue)
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Front.Set("status", Str("closed")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHeadings measures scanning a typical body for headings.
func BenchmarkHeadings(b *testing.B) {
	f, err := Parse([]byte(typicalIssue))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		DescriptionEnd(f.Body)
	}
}

// BenchmarkParse measures splitting one typical issue file and parsing its
// frontmatter into a node tree, without decoding it into fields.
func BenchmarkParse(b *testing.B) {
	data := []byte(typicalIssue)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
