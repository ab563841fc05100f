package command

import (
	"fmt"
	"path/filepath"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/harness"
	"github.com/urfave/cli/v2"
)

// harnessCommands are td hook and td onboard: td's session lifecycle mapped
// onto an agent harness's own events, and the text that tells an agent how
// to use td.
func (r *runner) harnessCommands() []*cli.Command {
	return []*cli.Command{r.hookCommand(), r.onboardCommand(nil)}
}

// OnboardOptions are td onboard's inputs, as parsed from the command line.
type OnboardOptions struct {
	// Check is --check: check the block in Files (default: AGENTS.md and
	// CLAUDE.md at the repository root).
	Check bool
	// Files are the files --check reads.
	Files []string
	// Write is --write: the file to put the current block into.
	Write string
}

// onboardCommand is td onboard. runF, when not nil, replaces runOnboard.
func (r *runner) onboardCommand(runF func(*OnboardOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "onboard",
		Usage:     "print the block that tells an agent how to use td, for AGENTS.md or CLAUDE.md",
		ArgsUsage: "[--check [FILE...] | --write FILE]",
		Description: fmt.Sprintf(`Prints a short markdown block, between <!-- td:onboard vN --> and
<!-- /td:onboard --> markers, telling an agent how to work with td: its
session and binding, todo commands by text, steps versus acceptance
criteria, sign-off. This td writes version %d.

--check reads the files named (by default AGENTS.md and CLAUDE.md at the
repository root, those that exist) and exits 1 naming each whose block is
missing, older, or edited by hand; a block a newer td wrote passes. --write
puts the current block into FILE: in place of the block already there, or
at the end, or as a new file; the rest of the file is untouched.

Examples:
   td onboard >> AGENTS.md
   td onboard --write AGENTS.md
   td onboard --check
   td onboard --check docs/agents.md --json`, harness.OnboardVersion),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "check the block in FILEs (default: AGENTS.md and CLAUDE.md)"},
			&cli.StringFlag{Name: "write", Usage: "put the current block into `FILE`"},
		},
		Action: func(c *cli.Context) error {
			files := c.Args().Slice()
			write := c.String("write")
			if write == "" {
				r.ran = "" // reading td's own text says nothing about the session's work
			}
			switch {
			case c.Bool("check") && write != "":
				return usagef("give --check or --write, not both; td onboard --help shows the usage")
			case write != "" && len(files) > 0:
				return usagef("usage: td onboard --write FILE (one file)")
			case !c.Bool("check") && write == "" && len(files) > 0:
				return usagef("usage: td onboard [--check [FILE...] | --write FILE]")
			}
			o := &OnboardOptions{Check: c.Bool("check"), Files: files, Write: write}
			if runF != nil {
				return runF(o)
			}
			return r.runOnboard(o)
		},
	}
}

// runOnboard prints the block, puts it into a file, or checks files for
// it.
func (r *runner) runOnboard(o *OnboardOptions) error {
	switch {
	case o.Write != "":
		return r.onboardWrite(o.Write)
	case o.Check:
		return r.onboardCheck(o.Files)
	}
	return r.st.export(func() any {
		return struct {
			Version int    `json:"version"`
			Block   string `json:"block"`
		}{harness.OnboardVersion, harness.OnboardBlock()}
	}, func() error {
		r.st.printf("%s", harness.OnboardBlock())
		return nil
	})
}

// onboardPath resolves a file named on the command line against -C.
func (r *runner) onboardPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(r.runDir(), name)
}

// onboardWrite puts the current block into the file name and says what
// it found there.
func (r *runner) onboardWrite(name string) error {
	before, err := harness.WriteOnboard(r.onboardPath(name))
	if err != nil {
		return err
	}
	before.Path = name
	return r.st.export(func() any {
		return struct {
			Path          string `json:"path"`
			Before        string `json:"before"`
			BeforeVersion int    `json:"before_version"`
			Version       int    `json:"version"`
		}{name, before.Status, before.Version, harness.OnboardVersion}
	}, func() error {
		v := harness.OnboardVersion
		switch before.Status {
		case harness.OnboardCurrent:
			r.st.printf("%s: the td onboard block is current (v%d); nothing to do.\n", name, v)
		case harness.OnboardNoFile:
			r.st.printf("%s: created with the td onboard block (v%d).\n", name, v)
		case harness.OnboardMissing:
			r.st.printf("%s: added the td onboard block (v%d) at the end.\n", name, v)
		case harness.OnboardEdited:
			r.st.printf("%s: restored the td onboard block (v%d); the hand edits inside its markers are gone.\n", name, v)
		default:
			r.st.printf("%s: replaced the td onboard block v%d with v%d.\n", name, before.Version, v)
		}
		return nil
	})
}

// onboardCheck checks each file's block, by default AGENTS.md and
// CLAUDE.md at the repository root, and fails naming those that lack the
// current one.
func (r *runner) onboardCheck(names []string) error {
	if len(names) == 0 {
		root := r.runDir()
		if s, err := r.openStore(); err == nil {
			root = s.Root
		}
		for _, n := range []string{"AGENTS.md", "CLAUDE.md"} {
			if ck, err := harness.CheckOnboard(filepath.Join(root, n)); err == nil && ck.Status != harness.OnboardNoFile {
				names = append(names, filepath.Join(root, n))
			}
		}
		if len(names) == 0 {
			return &repo.Error{Code: repo.CodeNotFound, Msg: "neither AGENTS.md nor CLAUDE.md is at the repository root; td onboard --write AGENTS.md adds the block, or name the file to check"}
		}
		// Shown relative to where td was asked from, as a path typed there.
		if wd, err := filepath.Abs(r.runDir()); err == nil {
			for i, n := range names {
				if rel, err := filepath.Rel(wd, n); err == nil {
					names[i] = rel
				}
			}
		}
	}
	var checks []harness.OnboardCheck
	bad := 0
	for _, n := range names {
		ck, err := harness.CheckOnboard(r.onboardPath(n))
		if err != nil {
			return err
		}
		ck.Path = n
		checks = append(checks, ck)
		if !ck.OK() {
			bad++
		}
	}
	err := r.st.export(func() any {
		return struct {
			Version int                    `json:"version"`
			OK      bool                   `json:"ok"`
			Files   []harness.OnboardCheck `json:"files"`
		}{harness.OnboardVersion, bad == 0, checks}
	}, func() error {
		v := harness.OnboardVersion
		for _, ck := range checks {
			switch ck.Status {
			case harness.OnboardCurrent:
				r.st.printf("%s: current (v%d)\n", ck.Path, v)
			case harness.OnboardNewer:
				r.st.printf("%s: written by a newer td (v%d; this td writes v%d)\n", ck.Path, ck.Version, v)
			case harness.OnboardStale:
				r.st.printf("%s: stale: its block is v%d, td's is v%d; td onboard --write %s replaces it\n", ck.Path, ck.Version, v, ck.Path)
			case harness.OnboardEdited:
				r.st.printf("%s: edited: its v%d block differs from td's; td onboard --write %s restores it\n", ck.Path, ck.Version, ck.Path)
			case harness.OnboardMissing:
				r.st.printf("%s: no td onboard block; td onboard --write %s adds one\n", ck.Path, ck.Path)
			case harness.OnboardNoFile:
				r.st.printf("%s: no such file; td onboard --write %s creates it\n", ck.Path, ck.Path)
			}
		}
		if bad > 0 {
			return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%d of %d %s lack the current td onboard block (v%d); td onboard --write FILE puts it in",
				bad, len(checks), domain.Plural(len(checks), "file", "files"), v)}
		}
		return nil
	})
	if err == nil && bad > 0 {
		return silentFailure{} // the JSON report named them
	}
	return err
}
