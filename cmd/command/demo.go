package command

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/tdproject/td/repo/gitrepo"
	"github.com/urfave/cli/v2"
)

// DemoOptions are td demo's inputs, as parsed from the command line.
type DemoOptions struct {
	// Keep is --keep: keep the temporary repository and print its path.
	Keep bool
}

// demoCommand is td demo. runF, when not nil, replaces runDemo.
func (r *runner) demoCommand(runF func(*DemoOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run td's main story in a temporary git repository and print it",
		Description: `Creates a temporary git repository, runs a scripted story through td's real
commands (in this process, never through a shell) and prints each command with
its output. The repository is removed afterwards unless --keep is given.

Examples:
   td demo
   td demo --keep`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep", Usage: "keep the temporary repository and print its path"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--keep]"); err != nil {
				return err
			}
			o := &DemoOptions{Keep: c.Bool("keep")}
			if runF != nil {
				return runF(o)
			}
			return r.runDemo(o)
		},
	}
}

// runDemo plays the story in a temporary repository, printing each step
// as it runs (with --json, the steps at the end).
func (r *runner) runDemo(o *DemoOptions) error {
	dir, err := os.MkdirTemp("", "td-demo-")
	if err != nil {
		return fmt.Errorf("create a temporary directory: %w", err)
	}
	if !o.Keep {
		defer os.RemoveAll(dir)
	}
	d := &demo{r: r, dir: dir, env: map[string]string{
		"GIT_AUTHOR_NAME": "Demo Operator", "GIT_AUTHOR_EMAIL": "operator@demo.invalid",
	}}
	if o.Keep {
		d.kept = dir
	}
	// The story's clock starts now (or at TD_NOW) and moves forward
	// where the story pauses: resume needs hours and days to pass.
	now, err := r.now()
	if err != nil {
		return err
	}
	d.now = now().UTC().Truncate(time.Second)
	d.env["TD_NOW"] = d.now.Format(time.RFC3339)
	if err := d.run(); err != nil {
		return err
	}
	return r.st.export(func() any {
		out := map[string]any{"steps": d.steps}
		if d.kept != "" {
			out["repository"] = d.kept
		}
		return out
	}, func() error {
		r.st.printf("\nThe whole story ran without a shell, a database or a daemon: just files in git.\n")
		if o.Keep {
			r.st.printf("\nThe demo repository is kept at %s\n", dir)
		}
		return nil
	})
}

// demo runs td commands in-process against a temporary repository.
type demo struct {
	r     *runner
	dir   string
	env   map[string]string
	out   bytes.Buffer // output of the last step
	steps []demoStep   // what ran, for --json
	topic string       // the current narration
	kept  string       // the repository's path when --keep
	now   time.Time    // the story's clock (TD_NOW in every step)

	omitted string // what a quiet step's output was, said in its place
}

// demoStep is one command of the demo as --json reports it.
type demoStep struct {
	Topic   string   `json:"topic"`
	Command []string `json:"command"`
	Env     []string `json:"env,omitempty"`
	Exit    int      `json:"exit"`
	Output  string   `json:"output"`
}

func (d *demo) getenv(k string) string {
	if v, ok := d.env[k]; ok {
		return v
	}
	if k == "TD_SESSION" {
		return "" // the demo's sessions are its own
	}
	return d.r.getenv(k)
}

func (d *demo) say(format string, args ...any) {
	d.topic = fmt.Sprintf(format, args...)
	if d.r.st.wantsJSON() {
		return
	}
	d.r.st.printf("\n%s\n", d.r.st.paint(ansiCyan, "# "+fmt.Sprintf(format, args...)))
}

// td runs one command, prints it and its output, and fails the demo when
// the exit status is not the one expected.
func (d *demo) td(wantExit int, args ...string) error { return d.step(wantExit, true, args) }

// quiet runs one command that must succeed and shows the command line
// with a note of what its output was, for steps whose output repeats what
// the story already showed. A command shown with nothing after it would
// read as a failure.
func (d *demo) quiet(omitted string, args ...string) error {
	d.omitted = omitted
	defer func() { d.omitted = "" }()
	return d.step(0, false, args)
}

// step runs one command in-process against the demo repository, records it
// for --json or prints it (with its output when show), and fails the demo
// when the exit status is not the one expected.
func (d *demo) step(wantExit int, show bool, args []string) error {
	prefix := ""
	var env []string
	if s := d.env["TD_SESSION"]; s != "" {
		prefix = "TD_SESSION=" + s + " "
		env = []string{"TD_SESSION=" + s}
	}
	d.out.Reset()
	full := append([]string{"td", "-C", d.dir}, args...)
	code := Run(full, strings.NewReader(""), &d.out, &d.out, d.getenv)
	out := strings.ReplaceAll(d.out.String(), d.dir, "$DEMO")
	if d.r.st.wantsJSON() {
		d.steps = append(d.steps, demoStep{Topic: d.topic, Command: append([]string{"td"}, args...), Env: env, Exit: code, Output: out})
	} else {
		d.r.st.printf("%s %std %s\n", d.r.st.paint(ansiBold, "$"), prefix, quoteArgs(args))
		if show {
			d.r.st.printf("%s", out)
		} else {
			d.r.st.printf("%s\n", d.r.st.paint(ansiDim, "  ("+d.omitted+")"))
		}
	}
	if code != wantExit {
		if !show {
			return fmt.Errorf("demo step `td %s` exited %d, expected %d: %s", quoteArgs(args), code, wantExit, out)
		}
		return fmt.Errorf("demo step `td %s` exited %d, expected %d", quoteArgs(args), code, wantExit)
	}
	return nil
}

// later moves the demo's clock forward, as if the story paused.
func (d *demo) later(by time.Duration) {
	d.now = d.now.Add(by)
	d.env["TD_NOW"] = d.now.Format(time.RFC3339)
}

// cat prints a file of the demo repository, as a person would look at it.
func (d *demo) cat(rel string) error {
	data, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if d.r.st.wantsJSON() {
		d.steps = append(d.steps, demoStep{Topic: d.topic, Command: []string{"cat", rel}, Output: string(data)})
		return nil
	}
	d.r.st.printf("%s cat %s\n", d.r.st.paint(ansiBold, "$"), rel)
	d.r.st.printf("%s", data)
	return nil
}

var idRE = regexp.MustCompile(`\b[a-z][a-z0-9]*-[0-9a-z]{6}\b`)
var sessionRE = regexp.MustCompile(`\bses_[0-9a-z]{8}\b`)

func (d *demo) lastID() string      { return idRE.FindString(d.out.String()) }
func (d *demo) lastSession() string { return sessionRE.FindString(d.out.String()) }

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$`\\|&;<>()*?#") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

// run plays the story, printing each step as it runs unless JSON was
// asked for; the steps are then in d.steps.
func (d *demo) run() error {
	g, err := gitrepo.Init(d.dir)
	if err != nil {
		return fmt.Errorf("create the demo repository: %w", err)
	}
	if err := g.SetConfigValue("user", "", "name", "Demo Operator"); err != nil {
		return err
	}
	if err := g.SetConfigValue("user", "", "email", "operator@demo.invalid"); err != nil {
		return err
	}
	readme := filepath.Join(d.dir, "README.md")
	if err := os.WriteFile(readme, []byte("# shop\n"), 0o644); err != nil {
		return err
	}
	st := d.r.st
	if !st.wantsJSON() {
		st.printf("td demo: an operator, a lead agent and its workers share one temporary git repository.\n")
	}
	steps := []func() error{
		func() error {
			d.say("The operator sets up td. Issues will live in .todos/, committed with the code.")
			return d.td(0, "init")
		},
		func() error {
			d.say("The operator starts a lead agent: a root agent that files the work and hands it to workers.")
			if err := d.td(0, "session", "start", "--agent", "lead", "--name", "lead agent", "--quiet"); err != nil {
				return err
			}
			d.env["TD_SESSION"] = d.lastSession()
			d.env["LEAD"] = d.env["TD_SESSION"]
			return nil
		},
		func() error {
			d.say("The lead files work. Each issue is a markdown file with YAML frontmatter.")
			if err := d.td(0, "create", "Sign in with GitHub", "--type", "feature", "-p", "P1", "-l", "auth",
				"--description", "Users sign in with their GitHub account instead of a password."); err != nil {
				return err
			}
			d.env["ISSUE"] = d.lastID()
			if err := d.td(0, "create", "Fix typo on the pricing page", "--type", "bug", "--minor", "-p", "P3"); err != nil {
				return err
			}
			if err := d.td(0, "create", "Rate-limit the login endpoint", "--type", "task", "-l", "auth,security"); err != nil {
				return err
			}
			d.env["RATE"] = d.lastID()
			return nil
		},
		func() error {
			d.say("Every change names the session that made it: here the lead agent's.")
			return d.td(0, "whoami")
		},
		func() error {
			d.say("The file is plain text: frontmatter for fields, markdown for everything else.")
			return d.cat(".todos/issues/" + d.env["ISSUE"] + ".md")
		},
		func() error {
			d.say("Most urgent and oldest first; closed issues are hidden unless --all.")
			return d.td(0, "list")
		},
		func() error {
			d.say("The operator writes the definition of done: acceptance criteria belong to the operator. Writing them is not working on the issue.")
			d.env["TD_SESSION"] = ""
			id := d.env["ISSUE"]
			if err := d.td(0, "todo", "add", "--issue", id, "--kind", "criterion",
				"A user can sign in with a GitHub account", "Expired tokens refresh without a prompt"); err != nil {
				return err
			}
			if err := d.td(0, "anchor", "add", "--project", "--priority", "critical", "Never log OAuth tokens"); err != nil {
				return err
			}
			return d.td(0, "whoami")
		},
		func() error {
			d.say("The lead sends a worker agent to the issue: a new session, bound, with its first message.")
			d.env["TD_SESSION"] = d.env["LEAD"]
			if err := d.td(0, "send", d.env["ISSUE"], "--agent", "worker", "-m", "Start with the OAuth callback; ask before touching the session store."); err != nil {
				return err
			}
			d.env["TD_SESSION"] = d.lastSession()
			d.env["AGENT"] = d.env["TD_SESSION"]
			return nil
		},
		func() error {
			d.say("The worker reads the issue, refines it and leaves a note. Flags may follow the arguments.")
			id := d.env["ISSUE"]
			if err := d.td(0, "show", id[:len(id)-2]); err != nil {
				return err
			}
			if err := d.td(0, "edit", id, "--append", "The callback must verify the OAuth state parameter.", "--add-label", "backend"); err != nil {
				return err
			}
			return d.td(0, "comment", id, "Callback route sketched; token exchange next.")
		},
		func() error {
			d.say("Bad input is refused with one line and exit status 2 (usage); an issue that is not there, with 1. Nothing is touched.")
			if err := d.td(2, "show", "../../etc/passwd"); err != nil {
				return err
			}
			return d.td(1, "show", "td-zzzzzz")
		},
		func() error {
			d.say("It starts and plans in phases. One todo is in progress at a time; the first pending step starts itself.")
			if err := d.td(0, "start", d.env["ISSUE"]); err != nil {
				return err
			}
			if err := d.td(0, "todo", "set", "Register the OAuth app", "Implement the callback handler",
				"Integration test against a fake provider", "--phase", "Backend"); err != nil {
				return err
			}
			return d.td(0, "todo", "add", "Login button", "--phase", "Frontend")
		},
		func() error {
			d.say("It works by naming todos by their text. Done promotes the next step; notes and blocks are kept.")
			if err := d.td(0, "todo", "done", "OAuth app"); err != nil {
				return err
			}
			if err := d.td(0, "todo", "note", "callback", "state parameter must be verified"); err != nil {
				return err
			}
			return d.td(0, "todo", "block", "Login button", "--reason", "waiting for the design tokens")
		},
		func() error {
			d.say("Work it discovers is filed as a child of the bound issue.")
			return d.td(0, "create", "Refresh tokens in the background", "--type", "task")
		},
		func() error {
			d.say("A subagent may not touch the list. It proposes; the worker, its root agent, sees the proposal and accepts it.")
			d.env["TD_SESSION"] = ""
			if err := d.td(0, "session", "start", "--agent", "worker.subagents.ui", "--name", "ui subagent", "--quiet"); err != nil {
				return err
			}
			d.env["TD_SESSION"] = d.lastSession()
			if err := d.td(1, "todo", "add", "Login button contrast check"); err != nil {
				return err
			}
			if err := d.td(0, "todo", "propose", "Login button contrast check", "--phase", "Frontend"); err != nil {
				return err
			}
			d.env["TD_SESSION"] = d.env["AGENT"]
			return d.td(0, "todo", "accept", "contrast")
		},
		func() error {
			d.say("The worker's memory is compacted. The reminder brings back its last three actions and the critical anchor.")
			d.later(20 * time.Minute)
			return d.td(0, "session", "compact")
		},
		func() error {
			d.say("The session stops mid-task and resumes three hours later: a resume block leads its context.")
			if err := d.td(0, "session", "stop"); err != nil {
				return err
			}
			d.later(3 * time.Hour)
			return d.td(0, "session", "resume")
		},
		func() error {
			d.say("Three days later it starts fresh, binding kept: the issue still holds the whole checklist.")
			if err := d.td(0, "session", "stop"); err != nil {
				return err
			}
			d.later(72 * time.Hour)
			return d.td(0, "session", "resume")
		},
		func() error {
			d.say("It finishes the steps and claims the criteria. The last one tells it to ask for sign-off.")
			for _, st := range []struct {
				omitted string
				args    []string
			}{
				{"the checklist again: the callback done, the integration test started", []string{"todo", "done", "callback"}},
				{"the checklist again: the integration test done", []string{"todo", "done", "integration test"}},
				{"the checklist again: the login button unblocked and started", []string{"todo", "unblock", "login button"}},
				{"the checklist again: the login button done", []string{"todo", "done", "login button"}},
				{"the checklist again: the contrast check done, every step done", []string{"todo", "done", "contrast check"}},
			} {
				if err := d.quiet(st.omitted, st.args...); err != nil {
					return err
				}
			}
			if err := d.td(0, "todo", "done", "sign in with a GitHub account", "Expired tokens"); err != nil {
				return err
			}
			return d.td(0, "review", d.env["ISSUE"])
		},
		func() error {
			d.say("Review policy: the session that implemented the issue may not approve it.")
			return d.td(1, "approve", d.env["ISSUE"], "--reason", "all criteria done")
		},
		func() error {
			d.say("The lead created the issue, but its criteria are the operator's definition of done: only an operator signs them off.")
			d.env["TD_SESSION"] = d.env["LEAD"]
			return d.td(1, "approve", d.env["ISSUE"], "--reason", "the worker's tests pass")
		},
		func() error {
			d.say("The operator wrote the criteria and did none of the work, so the operator signs it off.")
			d.env["TD_SESSION"] = ""
			if err := d.td(0, "reviewable"); err != nil {
				return err
			}
			return d.td(0, "approve", d.env["ISSUE"], "--reason", "criteria met: signed in with GitHub myself")
		},
		func() error {
			d.say("An issue without criteria needs no operator. The lead sends a worker to the rate limit, which it submits.")
			d.env["TD_SESSION"] = d.env["LEAD"]
			if err := d.quiet("the worker's session, bound, and its first message", "send", d.env["RATE"], "--agent", "worker", "-m", "Ten failed logins a minute get a 429."); err != nil {
				return err
			}
			d.env["TD_SESSION"] = d.lastSession()
			if err := d.td(0, "start", d.env["RATE"]); err != nil {
				return err
			}
			return d.td(0, "review", d.env["RATE"])
		},
		func() error {
			d.say("The lead agent created it and another agent did the work: the creator approves with a reason, audited twice.")
			d.env["TD_SESSION"] = d.env["LEAD"]
			if err := d.td(0, "reviewable"); err != nil {
				return err
			}
			if err := d.td(1, "approve", d.env["RATE"]); err != nil {
				return err
			}
			return d.td(0, "approve", d.env["RATE"], "--reason", "Read the diff and ran the rate-limit test")
		},
		func() error {
			d.say("The exception is in the issue's ledger and in the hash-chained security log.")
			d.env["TD_SESSION"] = ""
			if err := d.td(0, "security"); err != nil {
				return err
			}
			return d.td(0, "audit", "verify")
		},
		func() error {
			d.say("The finished issue, as a reviewer sees it in the pull request.")
			return d.cat(".todos/issues/" + d.env["ISSUE"] + ".md")
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
