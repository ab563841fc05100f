package command

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/urfave/cli/v2"
)

// mcpProgram is the program that serves MCP: td mcp hands over to it, so
// the MCP SDK (and the network stack it brings) is never loaded when td
// starts for any other command.
const mcpProgram = "td-mcp"

// mcpCommands are td mcp: td's todo and issue commands served to agents
// over the Model Context Protocol.
func (r *runner) mcpCommands() []*cli.Command {
	return []*cli.Command{{
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

The server is the td-mcp program, installed beside td (go install
./cmd/td-mcp): it carries the MCP library, which would slow every other td
command's start.

Examples:
   TD_SESSION=ses_qmt3y9ft td mcp
   td mcp --session ses_qmt3y9ft -C ~/src/app
   {"mcpServers": {"td": {"command": "td", "args": ["mcp"], "env": {"TD_SESSION": "ses_qmt3y9ft"}}}}`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--session ID] [--dir DIR]"); err != nil {
				return err
			}
			if r.st.json {
				return usagef("td mcp speaks JSON-RPC on standard input and output and takes no --json; a tool call asks for JSON with \"json\": true")
			}
			path, err := findMCPProgram(executableDir(), r.getenv("PATH"))
			if err != nil {
				return err
			}
			argv := []string{path}
			if s := c.String("session"); s != "" {
				argv = append(argv, "--session="+s)
			}
			if d := c.String("dir"); d != "" {
				argv = append(argv, "--dir="+d)
			}
			return r.handOver(path, argv)
		},
	}}
}

// executableDir is the directory of the running td, symlinks resolved, or
// "" when the system cannot say.
func executableDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	return filepath.Dir(exe)
}

// findMCPProgram finds td-mcp: beside td first, so a td and a td-mcp
// installed together are used together, then on the search path.
func findMCPProgram(exeDir, searchPath string) (string, error) {
	name := mcpProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var dirs []string
	if exeDir != "" {
		dirs = append(dirs, exeDir)
	}
	dirs = append(dirs, filepath.SplitList(searchPath)...)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return p, nil
		}
	}
	where := "on PATH"
	if exeDir != "" {
		where = fmt.Sprintf("beside td (in %s) or on PATH", exeDir)
	}
	return "", fmt.Errorf("td mcp runs the MCP server program %s, which is not %s; install it with go install github.com/tdproject/td/cmd/td-mcp (from a checkout: go install ./cmd/td-mcp)", mcpProgram, where)
}

// handOver runs the MCP server on td's own standard streams and waits for
// it: the client talks to td-mcp directly, and td's exit status is the
// server's.
func (r *runner) handOver(path string, argv []string) error {
	files := make([]*os.File, 0, 3)
	for _, s := range []any{r.st.in, r.st.out, r.st.errOut} {
		f, ok := s.(*os.File)
		if !ok {
			return errors.New("td mcp serves on the process's own standard input and output; run td mcp as a program")
		}
		files = append(files, f)
	}
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Env: os.Environ(), Files: files})
	if err != nil {
		return fmt.Errorf("start the MCP server %s: %w; reinstall it with go install ./cmd/td-mcp", path, err)
	}
	st, err := p.Wait()
	if err != nil {
		return fmt.Errorf("wait for the MCP server %s: %w", path, err)
	}
	if !st.Success() {
		// The server printed its own error line.
		return silentFailure{}
	}
	return nil
}
