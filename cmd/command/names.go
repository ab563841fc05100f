package command

import "github.com/tdproject/td/repo/people"

// who names a session for the reader, "Bob (ses_x)", from the store this
// run opened; the ID alone when there is none or its identity file
// cannot be read.
func (r *runner) who(id string) string {
	if r.store == nil {
		return id
	}
	if n := people.NameOf(r.store, id); n != "" {
		return n + " (" + id + ")"
	}
	return id
}
