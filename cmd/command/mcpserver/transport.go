package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve answers MCP messages read from in, one JSON-RPC message a line,
// with the official Go SDK, writing its answers to out, one a line, until
// in ends. The SDK speaks every revision of the protocol it knows,
// negotiating the client's (the stateless 2026-07-28 one included); td
// adds what a line of standard input needs before it is a message (a line
// that is not one is answered with td's JSON-RPC error and the server goes
// on), answers requests in the order they came, one at a time (an agent's
// calls are a sequence, and a command reads what the one before it
// wrote), and words its own refusals of a tool it does not offer. Serve
// returns an error only when in or out fails.
func (s *Server) Serve(in io.Reader, out io.Writer) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "td", Title: "td issues and todos", Version: s.version},
		&mcp.ServerOptions{Instructions: s.instructions(), Logger: slog.New(slog.DiscardHandler)})
	for _, t := range s.tools {
		srv.AddTool(&mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return s.callTool(t, req.Params.Arguments), nil
			})
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
				if err := s.unknownTool(p.Name); err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	})
	conn := newLineConn(in, out)
	ss, err := srv.Connect(context.Background(), lineTransport{conn}, nil)
	if err != nil {
		return err
	}
	err = ss.Wait()
	if err := conn.err(); err != nil {
		return err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// callTool runs one call of the tool t. Arguments td cannot use, and
// everything td refuses, are tool errors, which the agent reads and can
// correct.
func (s *Server) callTool(t *tool, args json.RawMessage) *mcp.CallToolResult {
	var res *toolResult
	if tc, err := t.call(args); err != nil {
		res = textResult(true, "error: "+err.Error()+"\n")
	} else {
		res = s.run(tc)
	}
	out := &mcp.CallToolResult{IsError: res.IsError}
	for _, c := range res.Content {
		out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
	}
	if res.StructuredContent != nil {
		out.StructuredContent = res.StructuredContent
	}
	return out
}

// unknownTool is td's refusal of a call to a tool it does not offer.
func (s *Server) unknownTool(name string) error {
	if slices.ContainsFunc(s.tools, func(t *tool) bool { return t.Name == name }) {
		return nil
	}
	msg := ""
	switch {
	case name == "":
		msg = fmt.Sprintf(`invalid params: tools/call needs "name", the tool to call: %s`, strings.Join(s.Tools(), " or "))
	case name == "issue":
		msg = `invalid params: a subagent has no issue tool; it views its root agent's todos and proposes items with the todo tool`
	case len(s.tools) == 1:
		msg = fmt.Sprintf("invalid params: td has no tool %q; the only tool is %s", name, s.tools[0].Name)
	default:
		msg = fmt.Sprintf("invalid params: td has no tool %q; the tools are %s", name, strings.Join(s.Tools(), " and "))
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// lineTransport hands the SDK td's connection on standard input and
// output.
type lineTransport struct{ c *lineConn }

func (t lineTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// lineConn reads one JSON-RPC message a line. A line that is not one is
// answered by td itself and the next is read; a request goes to the SDK
// only once the one before it has been answered, so that answers come in
// the order of the requests, one call at a time.
type lineConn struct {
	r   *bufio.Reader
	out io.Writer
	wmu sync.Mutex // one line written at a time
	// busy holds a token from the reading of a request to the writing of
	// its answer; answering is the id it waits for.
	busy      chan struct{}
	mu        sync.Mutex
	answering jsonrpc.ID
	failed    error
	closed    chan struct{}
	once      sync.Once
}

func newLineConn(in io.Reader, out io.Writer) *lineConn {
	return &lineConn{r: bufio.NewReaderSize(in, 64<<10), out: out, busy: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// err is the failure to write to the client, if any.
func (c *lineConn) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		// The request read before must have its answer first.
		select {
		case c.busy <- struct{}{}:
			<-c.busy
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		line, tooLong, err := readLine(c.r)
		if tooLong {
			c.writeResponse(errorResponse(nullID(), codeInvalidRequest, fmt.Sprintf("invalid request: the message is longer than %d MiB; send smaller tool calls", maxMessage>>20)))
		} else if len(bytes.TrimSpace(line)) > 0 {
			m, id, rerr := parseMessage(line)
			switch {
			case rerr != nil:
				c.writeResponse(&response{JSONRPC: "2.0", ID: id, Error: rerr})
			case m == nil:
				// A response to a request td never sent.
			default:
				msg, derr := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
				if derr != nil {
					id := m.id
					if id == nil {
						id = nullID()
					}
					c.writeResponse(errorResponse(id, codeInvalidRequest, "invalid request: "+derr.Error()))
					break
				}
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					c.busy <- struct{}{}
					c.mu.Lock()
					c.answering = req.ID
					c.mu.Unlock()
				}
				return msg, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("read from the MCP client: %w", err)
		}
	}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if err := c.write(b); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if resp.ID == c.answering {
			c.answering = jsonrpc.ID{}
			select {
			case <-c.busy:
			default:
			}
		}
		c.mu.Unlock()
	}
	return nil
}

// writeResponse writes one of td's own answers.
func (c *lineConn) writeResponse(resp *response) {
	if b, err := marshal(resp); err == nil {
		c.write(b)
	}
}

// write writes one message as one line, in one write.
func (c *lineConn) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.out.Write(append(b, '\n')); err != nil {
		err = fmt.Errorf("write to the MCP client: %w", err)
		c.mu.Lock()
		if c.failed == nil {
			c.failed = err
		}
		c.mu.Unlock()
		return err
	}
	return nil
}
