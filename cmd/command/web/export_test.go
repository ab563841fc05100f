package web

// SetBuildHook calls f before each page is built, until the test ends.
func SetBuildHook(f func(p string)) (undo func()) {
	buildHook = f
	return func() { buildHook = nil }
}
