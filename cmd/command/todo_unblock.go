package command

// todoUnblockVerb is td todo unblock: its help. Its Options and run function are
// todo_mark.go's, which every status verb shares.
func todoUnblockVerb() markVerb {
	return markVerb{usage: "mark blocked todos pending again",
		desc: "Examples:\n   td todo unblock \"Login button\"", reason: false}
}
