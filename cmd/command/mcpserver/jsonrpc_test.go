package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// fakeTD stands in for command.Run: td whoami answers with a session of
// the given agent path, and every other command line prints itself, with
// --json as a JSON object. A line that names "fail" is refused, one that
// names "panic" panics.
func fakeTD(agent string) func([]string, io.Reader, io.Writer, io.Writer, func(string) string) int {
	return func(args []string, stdin io.Reader, stdout, stderr io.Writer, _ func(string) string) int {
		if slices.Contains(args, "whoami") {
			fmt.Fprintf(stdout, `{"session":{"id":"ses_test1234","agent":%q,"effective_role":"agent"}}`+"\n", agent)
			return 0
		}
		if slices.Contains(args, "panic") {
			panic("a fault")
		}
		in, _ := io.ReadAll(stdin)
		if slices.Contains(args, "--json") {
			b, _ := json.Marshal(map[string]any{"args": args[1:]})
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			fmt.Fprintf(stdout, "ran %s\n%s", strings.Join(args[1:], " "), in)
		}
		if slices.Contains(args, "fail") {
			fmt.Fprintln(stderr, "error: refused")
			return 1
		}
		return 0
	}
}

func newFakeServer(t *testing.T, agent string) *Server {
	t.Helper()
	s, err := New(Options{Run: fakeTD(agent), Version: "9.9.9"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serve runs the server over the given input and returns the lines it
// wrote.
func serve(t *testing.T, s *Server, in string) []string {
	t.Helper()
	var out bytes.Buffer
	if err := s.Serve(strings.NewReader(in), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if out.Len() == 0 {
		return nil
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		t.Errorf("output does not end a line: %q", out.String())
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// TestServeLines sends the server one raw line at a time, as a client on
// standard input would, and checks the one line it answers (or that it
// answers nothing): every line is one message, and the server goes on
// after each bad one.
func TestServeLines(t *testing.T) {
	s := newFakeServer(t, "primary")
	for _, tc := range []struct {
		in string
		// want is the whole answer; prefix, when set, its start.
		want, prefix string
	}{
		// Version negotiation: the client's revision when td speaks it,
		// else td's latest.
		{in: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			prefix: `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"td","title":"td issues and todos","version":"9.9.9"},"instructions":"td keeps this project's issues`},
		{in: `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
			prefix: `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-06-18",`},
		{in: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`,
			prefix: `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05",`},
		{in: `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2030-01-01"}}`,
			prefix: `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25",`},
		{in: `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":{}}}`,
			want: `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid params: initialize needs \"protocolVersion\", the MCP revision the client speaks, such as 2025-11-25"}}`},
		// Notifications get no answer, known or not.
		{in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{in: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`},
		{in: `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`},
		// Nor does a response: td sends no requests to answer.
		{in: `{"jsonrpc":"2.0","id":9,"result":{}}`},
		{in: `   `},
		{in: `{"jsonrpc":"2.0","id":4,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":4,"result":{}}`},
		{in: `{"jsonrpc":"2.0","id":"p-1","method":"ping","params":{}}` + "\r", want: `{"jsonrpc":"2.0","id":"p-1","result":{}}`},
		{in: `{"jsonrpc":"2.0","id":5.5,"method":"ping","params":null}`, want: `{"jsonrpc":"2.0","id":5.5,"result":{}}`},
		// Lines that are no request.
		{in: `not json`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON (invalid character 'o' in literal null (expecting 'u')); send one JSON-RPC message a line"}}`},
		{in: `{"jsonrpc":"2.0","id":6,"method":"ping"`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON (unexpected end of JSON input); send one JSON-RPC message a line"}}`},
		{in: `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: td does not take JSON-RPC batches, which MCP removed in 2025-06-18; send one message a line"}}`},
		{in: `42`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a JSON-RPC message is a JSON object with \"jsonrpc\": \"2.0\""}}`},
		{in: `{"jsonrpc":"1.0","id":8,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`},
		{in: `{"id":8,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`},
		{in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"id\" must be a string or a number"}}`},
		{in: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"id\" must be a string or a number"}}`},
		{in: `{"jsonrpc":"2.0","id":10,"method":5}`, want: `{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"invalid request: \"method\" must be a string"}}`},
		{in: `{"jsonrpc":"2.0","id":11}`, want: `{"jsonrpc":"2.0","id":11,"error":{"code":-32600,"message":"invalid request: the message has no \"method\"; td answers initialize, ping, tools/list and tools/call"}}`},
		{in: `{"jsonrpc":"2.0","id":12,"method":"resources/list"}`, want: `{"jsonrpc":"2.0","id":12,"error":{"code":-32601,"message":"method not found: td's MCP server has no method \"resources/list\"; it answers initialize, ping, tools/list and tools/call"}}`},
		{in: `{"jsonrpc":"2.0","id":13,"method":"ping","params":[1]}`, want: `{"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"invalid params: the params of ping must be a JSON object"}}`},
		// Tools.
		{in: `{"jsonrpc":"2.0","id":20,"method":"tools/list"}`,
			prefix: `{"jsonrpc":"2.0","id":20,"result":{"tools":[{"name":"todo","title":"Todos of the bound issue","description":"Your working checklist`},
		{in: `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"close","arguments":{}}}`,
			want: `{"jsonrpc":"2.0","id":21,"error":{"code":-32602,"message":"invalid params: td has no tool \"close\"; the tools are todo and issue"}}`},
		{in: `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"arguments":{}}}`,
			want: `{"jsonrpc":"2.0","id":22,"error":{"code":-32602,"message":"invalid params: tools/call needs \"name\", the tool to call: todo or issue"}}`},
		{in: `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"todo","arguments":{"action":"view"}}}`,
			want: `{"jsonrpc":"2.0","id":23,"result":{"content":[{"type":"text","text":"ran --session=ses_test1234 todo view\n"}],"isError":false}}`},
		{in: `{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"todo","arguments":{"action":"set","items":["### A <b>","x & y"]}}}`,
			want: `{"jsonrpc":"2.0","id":24,"result":{"content":[{"type":"text","text":"ran --session=ses_test1234 todo set --file=-\n### A <b>\nx & y\n"}],"isError":false}}`},
		{in: `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"issue","arguments":{"action":"show","id":"qkm","json":true}}}`,
			want: `{"jsonrpc":"2.0","id":25,"result":{"content":[{"type":"text","text":"{\"args\":[\"--session=ses_test1234\",\"show\",\"--json\",\"--\",\"qkm\"]}\n"}],"structuredContent":{"args":["--session=ses_test1234","show","--json","--","qkm"]},"isError":false}}`},
		// A refusal: td's output, then its error line, as a tool error.
		{in: `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"todo","arguments":{"action":"done","item":"fail"}}}`,
			want: `{"jsonrpc":"2.0","id":26,"result":{"content":[{"type":"text","text":"ran --session=ses_test1234 todo done -- fail\n"},{"type":"text","text":"error: refused\n"}],"isError":true}}`},
		// Input td cannot use is a tool error too, naming the field.
		{in: `{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"todo","arguments":{"action":"done","text":"x"}}}`,
			want: `{"jsonrpc":"2.0","id":27,"result":{"content":[{"type":"text","text":"error: the todo tool has no field \"text\"; its fields are action, items, item, phase, kind, note, reason, json\n"}],"isError":true}}`},
		{in: `{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":"todo"}}`,
			want: `{"jsonrpc":"2.0","id":28,"result":{"content":[{"type":"text","text":"error: the todo tool needs \"action\"\n"}],"isError":true}}`},
		// A fault in td is a failed call; the server goes on.
		{in: `{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"todo","arguments":{"action":"start","item":"panic"}}}`,
			want: `{"jsonrpc":"2.0","id":29,"result":{"content":[{"type":"text","text":"error: td failed on this call (a fault); the server is still running, and td todo view on the command line shows the state\n"}],"isError":true}}`},
		{in: `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"issue","arguments":{"action":"comment","id":"qkm","text":"panic"}}}`,
			want: `{"jsonrpc":"2.0","id":30,"result":{"content":[{"type":"text","text":"error: td failed on this call (a fault); the server is still running, and td show qkm on the command line shows the state\n"}],"isError":true}}`},
	} {
		got := serve(t, s, tc.in+"\n")
		switch {
		case tc.want == "" && tc.prefix == "":
			if len(got) != 0 {
				t.Errorf("%s\nanswered %q, want no answer", tc.in, got)
			}
		case len(got) != 1:
			t.Errorf("%s\nanswered %d lines, want 1: %q", tc.in, len(got), got)
		case tc.want != "" && got[0] != tc.want:
			t.Errorf("%s\ngot  %s\nwant %s", tc.in, got[0], tc.want)
		case tc.prefix != "" && !strings.HasPrefix(got[0], tc.prefix):
			t.Errorf("%s\ngot  %s\nwant %s...", tc.in, got[0], tc.prefix)
		}
	}
}

// TestServeSession checks a whole exchange in one stream: answers in
// order, one line each, none for notifications, and the last line read
// although no newline ends it.
func TestServeSession(t *testing.T) {
	s := newFakeServer(t, "primary")
	got := serve(t, s, strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"todo","arguments":{"action":"view"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n"))
	var ids []string
	for _, line := range got {
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		ids = append(ids, string(m.ID))
	}
	if want := []string{"1", "null", "2", "3"}; !slices.Equal(ids, want) {
		t.Errorf("answered ids %v, want %v", ids, want)
	}
}

// TestServeSubagent checks that a subagent's server lists the todo tool
// alone and says why it has no issue tool.
func TestServeSubagent(t *testing.T) {
	s := newFakeServer(t, "primary.subagents.ui")
	got := serve(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"issue","arguments":{"action":"list"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"close","arguments":{}}}`+"\n"+
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`+"\n")
	var list struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	if len(got) != 4 || json.Unmarshal([]byte(got[0]), &list) != nil || len(list.Result.Tools) != 1 || list.Result.Tools[0].Name != "todo" {
		t.Fatalf("a subagent's tools: %q", got)
	}
	if want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid params: a subagent has no issue tool; it views its root agent's todos and proposes items with the todo tool"}}`; got[1] != want {
		t.Errorf("got  %s\nwant %s", got[1], want)
	}
	if want := `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"invalid params: td has no tool \"close\"; the only tool is todo"}}`; got[2] != want {
		t.Errorf("got  %s\nwant %s", got[2], want)
	}
	if !strings.Contains(got[3], `You are a\nsubagent`) {
		t.Errorf("a subagent's instructions: %s", got[3])
	}
}

// TestServeLongLine checks that a line longer than the server reads is
// refused and the next one answered.
func TestServeLongLine(t *testing.T) {
	s := newFakeServer(t, "primary")
	got := serve(t, s, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`+strings.Repeat("x", maxMessage)+`"}}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the message is longer than 16 MiB; send smaller tool calls"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// failingWriter is a client that has gone away.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestServeWriteFailure checks that the server stops, with an error that
// says so, when it cannot answer.
func TestServeWriteFailure(t *testing.T) {
	s := newFakeServer(t, "primary")
	err := s.Serve(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), failingWriter{})
	if err == nil || !errors.Is(err, io.ErrClosedPipe) || !strings.HasPrefix(err.Error(), "write to the MCP client: ") {
		t.Errorf("Serve: %v", err)
	}
}

// TestNewRefusal checks that New passes on what td whoami printed when it
// refused.
func TestNewRefusal(t *testing.T) {
	run := func(args []string, _ io.Reader, stdout, stderr io.Writer, _ func(string) string) int {
		fmt.Fprintln(stderr, "warning: the index was rebuilt")
		fmt.Fprintln(stdout, `{"error":{"code":"not_found","message":"TD_SESSION: no session ses_zzzzzzzz; td session list shows the sessions"}}`)
		return 1
	}
	_, err := New(Options{Run: run})
	var se *StartError
	if !errors.As(err, &se) || se.Printed != "warning: the index was rebuilt\nerror: TD_SESSION: no session ses_zzzzzzzz; td session list shows the sessions\n" ||
		se.Error() != "TD_SESSION: no session ses_zzzzzzzz; td session list shows the sessions" {
		t.Errorf("New: %#v", err)
	}
}
