package command

// todoBlockVerb is td todo block: its help. Its Options and run function are
// todo_mark.go's, which every status verb shares.
func todoBlockVerb() markVerb {
	return markVerb{usage: "mark todos blocked (never started automatically)",
		desc: "Examples:\n   td todo block \"Login button\" --reason \"waiting for the design tokens\"", reason: true}
}
