package command

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/review"
	"github.com/urfave/cli/v2"
)

// defaultServeAddr is where td serve listens unless told: this machine, a
// port of its own.
const defaultServeAddr = "127.0.0.1:7420"

// ServeOptions are td serve's inputs, as parsed from the command line.
type ServeOptions struct {
	// Addr is --addr: host:port, a loopback address.
	Addr string
	// Ranges are --diff: revision ranges the pages link to.
	Ranges []string
	// Labels, Assignee and Epic narrow the board page as td board's flags.
	Labels   []string
	Assignee string
	Epic     string
	// ready, when not nil, is told the URL once the server listens (tests).
	ready func(url string)
	// stop, when not nil, stops the server when closed (tests); else
	// SIGINT or SIGTERM does.
	stop <-chan struct{}
}

// serveCommand is td serve. runF, when not nil, replaces runServe.
func (r *runner) serveCommand(runF func(*ServeOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the board and issue pages to your browser, live and read-only, on this machine only",
		Description: `Serves the pages td board --html writes, built from .todos as they are
asked for: the board, a page per issue (its description, criteria, todos,
links, ledger and the commits that touched it) and a page per revision range
(td diff, as a pull request shows it). A page is built again when anything
under .todos, or git's HEAD, has changed since it was last built: reload the
page after a td command.

td serve listens on this machine only: an address that is not a loopback one
(127.0.0.1, ::1, localhost) is refused. It reads and never writes. Ctrl-C
stops it.

The navigation links to the changes since the default branch (origin/HEAD,
main or master) when there is one; --diff names other ranges, as td diff takes
them: BASE (to the work tree) or BASE..HEAD. Any range is also served at
diff/BASE..HEAD.html.

Examples:
   td serve
   td serve --addr 127.0.0.1:8080
   td serve --addr 127.0.0.1:0          # any free port; td prints the URL
   td serve --diff main --diff v1.2..v1.3 -l auth`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: defaultServeAddr, Usage: "listen on `HOST:PORT`, a loopback address (port 0: any free one)"},
			&cli.StringSliceFlag{Name: "diff", Usage: "link to the changes of `RANGE` (BASE or BASE..HEAD); repeatable"},
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "the board shows only issues with `LABEL` (repeatable: all of them)"},
			&cli.StringFlag{Name: "assignee", Usage: "the board shows only issues assigned to `WHO`"},
			&cli.StringFlag{Name: "epic", Usage: "the board shows only the issues below the epic `ID`"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[flags]"); err != nil {
				return err
			}
			if _, _, err := web.SplitHostPort(c.String("addr")); err != nil {
				return usagef("--addr %q must be HOST:PORT, such as %s", c.String("addr"), defaultServeAddr)
			}
			o := &ServeOptions{Addr: c.String("addr"), Ranges: c.StringSlice("diff"), Labels: c.StringSlice("label"),
				Assignee: c.String("assignee"), Epic: c.String("epic")}
			if runF != nil {
				return runF(o)
			}
			return r.runServe(o)
		},
	}
}

// runServe serves the pages until it is stopped.
func (r *runner) runServe(o *ServeOptions) error {
	if !web.Loopback(o.Addr) {
		return repo.Errorf(repo.CodeRefused, "td serve listens on this machine only, and %q is not a loopback address; use 127.0.0.1:PORT or localhost:PORT", o.Addr)
	}
	s, err := r.openStore()
	if err != nil {
		return err
	}
	ranges, err := siteRanges(s, o.Ranges)
	if err != nil {
		return err
	}
	open := func() (*repo.Store, error) {
		opts, err := r.options()
		if err != nil {
			return nil, err
		}
		return repo.Open(s.Root, opts)
	}
	f := board.Filter{Labels: o.Labels, Assignee: o.Assignee, Epic: o.Epic}
	if o.Epic != "" {
		// Refused now, with td's words, rather than on every page.
		if _, err := board.Build(s, f); err != nil {
			return err
		}
	}
	ln, err := web.Listen(o.Addr)
	if err != nil {
		return repo.Errorf(repo.CodeRefused, "td serve cannot listen on %s: %v; choose another port with --addr 127.0.0.1:PORT", o.Addr, err)
	}
	url := "http://" + ln.Addr().String() + "/"
	sv := web.NewServer(open, Version, ranges, f)
	r.st.export(func() any { return map[string]string{"url": url} }, func() error {
		r.st.printf("Serving the board of %s at %s (read-only; Ctrl-C stops)\n", s.Root, url)
		return nil
	})
	if o.ready != nil {
		o.ready(url)
	}
	stop := o.stop
	if stop == nil {
		ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer cancel()
		stop = ctx.Done()
	}
	return sv.Serve(ln, stop)
}

// siteRanges are the revision ranges the pages link to: those given, else
// the changes since the default branch when the repository has one.
func siteRanges(s *repo.Store, given []string) ([]string, error) {
	if len(given) > 0 {
		for _, g := range given {
			if g == "" {
				return nil, usagef("--diff needs a range: BASE or BASE..HEAD")
			}
		}
		return given, nil
	}
	rg, err := review.ResolveDiffRange(s, "", "")
	if err != nil {
		// No git, no default branch, no commit yet: no diff page.
		return nil, nil
	}
	return []string{fmt.Sprint(rg.BaseRev)}, nil
}
