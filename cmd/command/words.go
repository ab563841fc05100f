package command

import "strings"

// quoteAll puts each string in double quotes and joins them with commas.
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}

// shortHash abbreviates an object name for people.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
