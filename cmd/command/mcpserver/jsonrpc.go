package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// protocolVersions are the MCP revisions td speaks, newest first. What
// td's server does is the same in each: the later revisions add what td
// does not offer (resources, prompts, tasks) or make optional what it
// leaves out.
func protocolVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}

// maxMessage is the longest message the server reads: far more than any
// tool call, little enough that a runaway client cannot exhaust memory.
const maxMessage = 16 << 20

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// nullID is the id of an answer to a message whose own id could not be
// read.
func nullID() json.RawMessage { return json.RawMessage("null") }

// response is a JSON-RPC response: a result or an error, for the request
// with the same id.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// Serve answers MCP messages read from in, one JSON-RPC message a line,
// with responses written to out, one a line, until in ends. Requests are
// answered in the order they came, one at a time: an agent's calls are a
// sequence, and a command reads what the one before it wrote. Nothing but
// responses is written to out. A line td cannot read is answered with a
// JSON-RPC error and the server goes on; Serve returns an error only when
// in or out fails.
func (s *Server) Serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			if werr := writeResponse(out, errorResponse(nullID(), codeInvalidRequest, fmt.Sprintf("invalid request: the message is longer than %d MiB; send smaller tool calls", maxMessage>>20))); werr != nil {
				return werr
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			if resp := s.handle(line); resp != nil {
				if werr := writeResponse(out, resp); werr != nil {
					return werr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read from the MCP client: %w", err)
		}
	}
}

// readLine reads one line without its newline. A line longer than
// maxMessage is read to its end and dropped: tooLong reports it.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxMessage+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// writeResponse writes one response as one line, in one write.
func writeResponse(out io.Writer, resp *response) error {
	b, err := marshal(resp)
	if err != nil {
		b, _ = marshal(errorResponse(resp.ID, codeInternalError, fmt.Sprintf("internal error: td could not encode its answer (%v); the server is still running", err)))
	}
	if _, err := out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to the MCP client: %w", err)
	}
	return nil
}

func errorResponse(id json.RawMessage, code int, message string) *response {
	return &response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: message}}
}

// message is one JSON-RPC message as read: a request when it has an id, a
// notification when it has none.
type message struct {
	id     json.RawMessage
	method string
	params json.RawMessage
}

// parseMessage reads one line as a JSON-RPC message. A message that is
// not one is refused with the id it carried, when that could be read. A
// response (the client answering a request) is returned as nil: td sends
// no requests, so there is nothing to match it with.
func parseMessage(line []byte) (*message, json.RawMessage, *rpcError) {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return nil, nullID(), &rpcError{codeParseError, fmt.Sprintf("parse error: the line is not JSON (%v); send one JSON-RPC message a line", err)}
	}
	if line[0] == '[' {
		return nil, nullID(), &rpcError{codeInvalidRequest, "invalid request: td does not take JSON-RPC batches, which MCP removed in 2025-06-18; send one message a line"}
	}
	var obj map[string]json.RawMessage
	if line[0] != '{' || json.Unmarshal(line, &obj) != nil {
		return nil, nullID(), &rpcError{codeInvalidRequest, `invalid request: a JSON-RPC message is a JSON object with "jsonrpc": "2.0"`}
	}
	m := &message{params: obj["params"]}
	if raw, ok := obj["id"]; ok {
		var id any
		_ = json.Unmarshal(raw, &id)
		switch id.(type) {
		case string, float64:
			m.id = raw
		default:
			return nil, nullID(), &rpcError{codeInvalidRequest, `invalid request: "id" must be a string or a number`}
		}
	}
	id := m.id
	if id == nil {
		id = nullID()
	}
	if v, ok := obj["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, id, &rpcError{codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`}
	}
	raw, ok := obj["method"]
	if !ok {
		_, result := obj["result"]
		_, failed := obj["error"]
		if m.id != nil && (result || failed) {
			return nil, nil, nil
		}
		return nil, id, &rpcError{codeInvalidRequest, `invalid request: the message has no "method"; td answers initialize, ping, tools/list and tools/call`}
	}
	if json.Unmarshal(raw, &m.method) != nil {
		return nil, id, &rpcError{codeInvalidRequest, `invalid request: "method" must be a string`}
	}
	return m, nil, nil
}

// handle answers one line: a response for a request or for a line that is
// no message, nil for a notification or a response.
func (s *Server) handle(line []byte) (resp *response) {
	m, id, rerr := parseMessage(line)
	if rerr != nil {
		return &response{JSONRPC: "2.0", ID: id, Error: rerr}
	}
	if m == nil || m.id == nil {
		// notifications/initialized and notifications/cancelled need
		// nothing: calls run one at a time, so one the client cancels
		// has ended before td reads the cancellation.
		return nil
	}
	defer func() {
		// A fault in td must not end the server.
		if p := recover(); p != nil {
			resp = errorResponse(m.id, codeInternalError, fmt.Sprintf("internal error: td failed on %s (%v); the server is still running", m.method, p))
		}
	}()
	if p := bytes.TrimSpace(m.params); len(p) > 0 && p[0] != '{' && string(p) != "null" {
		return errorResponse(m.id, codeInvalidParams, fmt.Sprintf(`invalid params: the params of %s must be a JSON object`, m.method))
	}
	result, rerr := s.answer(m.method, m.params)
	if rerr != nil {
		return &response{JSONRPC: "2.0", ID: m.id, Error: rerr}
	}
	return &response{JSONRPC: "2.0", ID: m.id, Result: result}
}

// answer is the result of one request.
func (s *Server) answer(method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "initialize":
		return s.initialize(params)
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return map[string]any{"tools": s.tools}, nil
	case "tools/call":
		return s.callTool(params)
	}
	return nil, &rpcError{codeMethodNotFound, fmt.Sprintf("method not found: td's MCP server has no method %q; it answers initialize, ping, tools/list and tools/call", method)}
}

// implementation names the server to the client.
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

// initializeResult is the answer to initialize.
type initializeResult struct {
	ProtocolVersion string                     `json:"protocolVersion"`
	Capabilities    map[string]json.RawMessage `json:"capabilities"`
	ServerInfo      implementation             `json:"serverInfo"`
	Instructions    string                     `json:"instructions"`
}

// initialize answers the handshake: the client's protocol version when td
// speaks it, else td's latest, which the client may then refuse; td
// offers tools and nothing else.
func (s *Server) initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
	}
	var version string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.ProtocolVersion, &version) != nil || version == "" {
		return nil, &rpcError{codeInvalidParams, fmt.Sprintf(`invalid params: initialize needs "protocolVersion", the MCP revision the client speaks, such as %s`, protocolVersions()[0])}
	}
	if !slices.Contains(protocolVersions(), version) {
		version = protocolVersions()[0]
	}
	return &initializeResult{
		ProtocolVersion: version,
		Capabilities:    map[string]json.RawMessage{"tools": json.RawMessage("{}")},
		ServerInfo:      implementation{Name: "td", Title: "td issues and todos", Version: s.version},
		Instructions:    s.instructions(),
	}, nil
}

// callTool runs a tools/call. A tool that does not exist is a protocol
// error; arguments td cannot use, and everything td refuses, are tool
// errors, which the agent reads and can correct.
func (s *Server) callTool(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	var name string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Name, &name) != nil || name == "" {
		return nil, &rpcError{codeInvalidParams, fmt.Sprintf(`invalid params: tools/call needs "name", the tool to call: %s`, strings.Join(s.Tools(), " or "))}
	}
	i := slices.IndexFunc(s.tools, func(t *tool) bool { return t.Name == name })
	if i < 0 {
		if name == "issue" {
			return nil, &rpcError{codeInvalidParams, `invalid params: a subagent has no issue tool; it views its root agent's todos and proposes items with the todo tool`}
		}
		if len(s.tools) == 1 {
			return nil, &rpcError{codeInvalidParams, fmt.Sprintf("invalid params: td has no tool %q; the only tool is %s", name, s.tools[0].Name)}
		}
		return nil, &rpcError{codeInvalidParams, fmt.Sprintf("invalid params: td has no tool %q; the tools are %s", name, strings.Join(s.Tools(), " and "))}
	}
	tc, err := s.tools[i].call(p.Arguments)
	if err != nil {
		return textResult(true, "error: "+err.Error()+"\n"), nil
	}
	return s.run(tc), nil
}
