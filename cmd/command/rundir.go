package command

// runDir is the directory the running command acts in: its --dir, else
// the directory td runs in. What a run function uses where a command
// reads workDir, having no cli.Context.
func (r *runner) runDir() string {
	if r.dirFlag != "" {
		return r.path(r.dirFlag)
	}
	return r.path(".")
}
