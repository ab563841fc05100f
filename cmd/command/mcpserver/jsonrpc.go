package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxMessage is the longest message the server reads: far more than any
// tool call, little enough that a runaway client cannot exhaust memory.
const maxMessage = 16 << 20

// JSON-RPC 2.0 error codes td answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
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
		return nil, id, &rpcError{codeInvalidRequest, `invalid request: the message has no "method", such as initialize, tools/list or tools/call`}
	}
	if json.Unmarshal(raw, &m.method) != nil {
		return nil, id, &rpcError{codeInvalidRequest, `invalid request: "method" must be a string`}
	}
	return m, nil, nil
}
