package command

// todoStartVerb is td todo start: its help. Its Options and run function are
// todo_mark.go's, which every status verb shares.
func todoStartVerb() markVerb {
	return markVerb{usage: "mark a todo in progress (the previous one goes back to pending)",
		desc: "Examples:\n   td todo start callback", reason: false}
}
