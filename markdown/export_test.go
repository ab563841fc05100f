package markdown

// ParseFastAccepts reports whether the fast frontmatter path reads raw, for
// the tests outside the package that check td's writer against it.
func ParseFastAccepts(raw []byte) bool {
	_, ok := parseFast(raw)
	return ok
}
