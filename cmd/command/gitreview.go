package command

import "github.com/urfave/cli/v2"

// gitReviewCommands are td diff and td check: what changed in .todos between revisions, and whether it obeys td's rules.
func (r *runner) gitReviewCommands() []*cli.Command { return nil }
