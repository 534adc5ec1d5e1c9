package mcp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/stdio"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

func newServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := testServer()
	t.Cleanup(s.Close)
	return s
}

// testServer is newServer's server, for a child process with no test.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(_ context.Context, _ *mcp.Request, in echoIn) (string, error) { return in.Text, nil })
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Add numbers"},
		func(_ context.Context, _ *mcp.Request, in struct {
			A int `json:"a"`
			B int `json:"b"`
		}) (sumOut, error) {
			return sumOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails"},
		func(context.Context, *mcp.Request, struct{}) (string, error) { return "", errors.New("it broke") })
	return s
}

func roundTrip(t *testing.T, c interface {
	Send([]byte) error
	Recv(context.Context) ([]byte, error)
}, msg string) string {
	t.Helper()
	require.NoError(t, c.Send([]byte(msg)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := c.Recv(ctx)
	require.NoError(t, err)
	return string(got)
}

func TestTypedTools(t *testing.T) {
	c := newServer(t).Connect()
	defer c.Close()
	roundTrip(t, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	cases := []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[
			{"name":"echo","description":"Echo the text","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"the text to echo"}},"required":["text"],"additionalProperties":false}},
			{"name":"sum","description":"Add numbers","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"],"additionalProperties":false}},
			{"name":"fail","description":"Always fails","inputSchema":{"type":"object","additionalProperties":false}}]}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sum","arguments":{"a":2,"b":3}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"sum\":5}"}],"structuredContent":{"sum":5}}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fail"}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"it broke"}],"isError":true}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":7}}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"argument \"/text\": must be string (type)"}],"isError":true}}`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"missing required argument \"text\""}],"isError":true}}`},
		// Valid for the schema, but too large for the Go int.
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sum","arguments":{"a":1e30,"b":1}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"invalid arguments: arguments.a must be an integer in range (got a number)"}],"isError":true}}`},
	}
	for _, tc := range cases {
		assert.JSONEq(t, tc.want, roundTrip(t, c, tc.send))
	}
}

func ExampleAddTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	defer s.Close()
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(_ context.Context, _ *mcp.Request, in echoIn) (string, error) { return in.Text, nil })

	c := s.Connect()
	defer c.Close()
	ctx := context.Background()
	_ = c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	answer, _ := c.Recv(ctx)
	fmt.Println(string(answer))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"content":[{"type":"text","text":"hello"}]}}
}

// A typed tool that defers its answer gives it later with AnswerTool, from
// another goroutine, where the transport takes late answers (stdio); the
// request's end before the answer is told through OnEnd.
func TestDeferredTypedTool(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	defer s.Close()
	ended := make(chan error, 1)
	mcp.AddTool(s, &mcp.Tool{Name: "later", Description: "Answers from another goroutine"},
		func(_ context.Context, req *mcp.Request, in echoIn) (string, error) {
			l, ok := req.Defer()
			if !ok {
				return "not deferred", nil
			}
			if in.Text == "never" {
				l.OnEnd(func(cause error) { ended <- cause; l.Answer(nil, cause) })
				return "", mcp.ErrDeferred
			}
			go mcp.AnswerTool(l, "later: "+in.Text, nil)
			return "", mcp.ErrDeferred
		})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = stdio.Serve(ctx, s, inR, outW, nil) }()
	lines := bufio.NewReader(outR)
	send := func(msg string) { _, err := io.WriteString(inW, msg+"\n"); require.NoError(t, err) }
	read := func() string {
		l, err := lines.ReadString('\n')
		require.NoError(t, err)
		return l
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later","arguments":{"text":"hi"}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"later: hi"}]}}`, read())
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"later","arguments":{"text":"never"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	select {
	case cause := <-ended:
		assert.Error(t, cause)
	case <-time.After(5 * time.Second):
		t.Fatal("OnEnd was not told of the cancel")
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"later","arguments":{"text":"again"}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"later: again"}]}}`, read(), "nothing was written for the cancelled call")
	_ = inW.Close()
}
