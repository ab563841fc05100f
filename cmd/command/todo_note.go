package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoNoteOptions are td todo note's inputs, as parsed from the command
// line.
type TodoNoteOptions struct {
	TodoScope
	// Target is the todo, by its text or a unique part of it.
	Target string
	// Note is the note, from the second argument or --text.
	Note string
}

// todoNoteCommand is td todo note. runF, when not nil, replaces
// runTodoNote.
func (r *runner) todoNoteCommand(runF func(*TodoNoteOptions) error) *cli.Command {
	return &cli.Command{
		Name: "note", Usage: "append a note to a todo", ArgsUsage: "TEXT NOTE",
		Flags: append(append([]cli.Flag{}, todoScopeFlags()...),
			&cli.StringFlag{Name: "text", Usage: "the note (instead of the second argument)"}),
		Description: "Notes are blockquotes under the item, appended, never edited.\n\nExamples:\n   td todo note callback \"state parameter must be verified\"",
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 2, "TEXT NOTE")
			if err != nil {
				return err
			}
			note := c.String("text")
			if len(a) == 2 {
				if note != "" {
					return usagef("give the note as the second argument or with --text, not both")
				}
				note = a[1]
			}
			o := &TodoNoteOptions{TodoScope: todoScopeOf(c), Target: a[0], Note: note}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoNote(o)
		},
	}
}

// runTodoNote appends the note and prints the list.
func (r *runner) runTodoNote(o *TodoNoteOptions) error {
	return r.runTodoOp(todos.TodoNote, o.TodoScope, todos.TodoRequest{Targets: []string{o.Target}, Text: o.Note})
}
