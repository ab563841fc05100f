package command

// todoDropVerb is td todo drop: its help. Its Options and run function are
// todo_mark.go's, which every status verb shares.
func todoDropVerb() markVerb {
	return markVerb{usage: "mark todos abandoned (kept in the list, never deleted)",
		desc: "Only an operator may drop an acceptance criterion.\n\nExamples:\n   td todo drop \"device flow\"", reason: false}
}
