package command

import (
	"errors"
	"io"

	"github.com/tdproject/td/cmd/command/mcpserver"
	"github.com/urfave/cli/v2"
)

// mcpCommands are td mcp: td's todo and issue commands served to agents
// over the Model Context Protocol.
func (r *runner) mcpCommands() []*cli.Command {
	return []*cli.Command{r.mcpCommand(nil)}
}

// MCPOptions are td mcp's inputs, as parsed from the command line.
type MCPOptions struct {
	// Session is --session: the session every call acts as ("" for the
	// default, resolved once at start).
	Session string
	// Dir is --dir: the directory the calls act in, as typed.
	Dir string
}

// mcpCommand is td mcp. runF, when not nil, replaces runMCP.
func (r *runner) mcpCommand(runF func(*MCPOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the todo and issue tools to an agent over MCP (stdio)",
		Description: `Runs a Model Context Protocol server on standard input and output, for an
agent harness to launch. It offers two tools:

   todo    the bound issue's checklist: view, set, add, start, done, drop,
           note, block, unblock, propose (td todo ...)
   issue   create, show, list, comment, link, start, review (td create,
           td show, ...); root sessions only: a subagent sees only todo

A tool call runs the same td command, as the session the server started
as, so the rules, refusals and output are the CLI's: the result's text is
what the command printed (stdout, then stderr when there is any), and a
refusal is a tool error whose text is td's error line. Give "json": true in
a call for the command's --json output, also returned as structured content
when it is a JSON object.

The session is fixed when the server starts: --session, else $TD_SESSION,
else the checkout's current session, else your default operator session.
Put TD_SESSION in the harness's server config (td send and td session start
print it). The server refuses to start outside a td repository or as a
session td does not know.

td speaks the protocol itself: JSON-RPC 2.0, one message a line, nothing
but answers on standard output. It ends when standard input does.

Examples:
   TD_SESSION=ses_qmt3y9ft td mcp
   td mcp --session ses_qmt3y9ft -C ~/src/app
   {"mcpServers": {"td": {"command": "td", "args": ["mcp"], "env": {"TD_SESSION": "ses_qmt3y9ft"}}}}`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--session ID] [--dir DIR]"); err != nil {
				return err
			}
			if r.st.wantsJSON() {
				return usagef("td mcp speaks JSON-RPC on standard input and output and takes no --json; a tool call asks for JSON with \"json\": true")
			}
			o := &MCPOptions{Session: c.String("session"), Dir: c.String("dir")}
			if runF != nil {
				return runF(o)
			}
			return r.runMCP(o)
		},
	}
}

// runMCP finds the session, then serves the tools on standard input and
// output until standard input ends; each call runs through mcpRunner.
func (r *runner) runMCP(o *MCPOptions) error {
	srv, err := mcpserver.New(mcpserver.Options{
		Runner:  &mcpRunner{dir: r.dir, dirFlag: o.Dir, session: o.Session, getenv: r.getenv},
		Version: Version,
	})
	var se *mcpserver.StartError
	if errors.As(err, &se) {
		// td whoami's own warnings and error line, as it prints them.
		io.WriteString(r.st.errOut, se.Printed)
		return silentFailure{}
	}
	if err != nil {
		return err
	}
	return srv.Serve(r.st.in, r.st.out)
}
