package command

// todoStartVerb is td todo start, also td todo reopen: its help. Its
// Options and run function are todo_mark.go's, which every status verb
// shares.
func todoStartVerb() markVerb {
	return markVerb{usage: "mark a todo in progress, or reopen a done one (the previous one goes back to pending)",
		desc: `td todo reopen is the same command: a done or dropped todo, or an
acceptance criterion the operator reopens, goes back to in progress.

Examples:
   td todo start callback
   td todo reopen "sign in with github"`, aliases: []string{"reopen"}}
}
