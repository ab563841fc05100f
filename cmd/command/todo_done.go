package command

// todoDoneVerb is td todo done: its help. Its Options and run function are
// todo_mark.go's, which every status verb shares.
func todoDoneVerb() markVerb {
	return markVerb{usage: "mark todos done",
		desc: "Claiming a criterion done is recorded in the issue's ledger.\n\nExamples:\n   td todo done callback\n   td todo done \"OAuth app\" callback", reason: false}
}
