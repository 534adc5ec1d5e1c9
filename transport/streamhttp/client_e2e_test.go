package streamhttp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/dispatch"
	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// realServer serves a dispatch runtime with two tools over this package's
// Handler: "echo" returns its text; "progress" reports progress first,
// which turns its reply into an SSE stream.
func realServer(t *testing.T) *httptest.Server {
	t.Helper()
	ex, err := executor.New(executor.Options{})
	require.NoError(t, err)
	t.Cleanup(ex.Close)
	r := router.New(router.Options{})
	require.NoError(t, r.AddTool(spec.Tool{Name: "echo", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		func(_ context.Context, _ *router.Request, args json.RawMessage) (*spec.CallToolResult, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return spec.TextResult(in.Text), nil
		}))
	require.NoError(t, r.AddTool(spec.Tool{Name: "progress"},
		func(_ context.Context, req *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
			_ = req.Progress(1, nil, "half")
			return spec.TextResult("done"), nil
		}))
	rt, err := dispatch.New(dispatch.Config{Server: spec.Implementation{Name: "e2e", Version: "1"}, Router: r, Executor: ex})
	require.NoError(t, err)
	h, err := streamhttp.NewHandler(rt, nil)
	require.NoError(t, err)
	t.Cleanup(h.Engine().Close)
	return serveHTTP(t, h.ServeHTTP)
}

// TestClientEndToEnd speaks both shapes of the transport through one conn
// to this package's server: a legacy session (initialize, initialized, its
// GET stream, tools/call as JSON and as SSE, DELETE on Close) and
// 2026-07-28 requests (headers the server checks, an SSE reply, a refusal).
func TestClientEndToEnd(t *testing.T) {
	ts := realServer(t)
	log := &lockedLog{}
	c := dial(t, ts, &streamhttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(log, nil))})

	sendMsg(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	var init struct {
		Result struct{ ProtocolVersion string }
	}
	require.NoError(t, json.Unmarshal([]byte(recvMsg(t, c)), &init))
	assert.Equal(t, "2025-11-25", init.Result.ProtocolVersion)
	sid := c.SessionID()
	require.NotEmpty(t, sid)
	sendMsg(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	sendMsg(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"legacy"}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"legacy"}]}}`, recvMsg(t, c))
	sendMsg(t, c, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p3"}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p3","progress":1,"message":"half"}}`, recvMsg(t, c))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}`, recvMsg(t, c))

	modern := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"m"}`
	serverInfo := `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"e2e","version":"1"}}`
	sendMsg(t, c, `{"jsonrpc":"2.0","id":"m1","method":"tools/call","params":{"name":"echo","arguments":{"text":"modern"},`+modern+`}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"m1","result":{"resultType":"complete",`+serverInfo+`,"content":[{"type":"text","text":"modern"}]}}`, recvMsg(t, c))
	sendMsg(t, c, `{"jsonrpc":"2.0","id":"m2","method":"tools/call","params":{"name":"progress",`+modern+`}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"m","progress":1,"message":"half"}}`, recvMsg(t, c))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"m2","result":{"resultType":"complete",`+serverInfo+`,"content":[{"type":"text","text":"done"}]}}`, recvMsg(t, c))
	sendMsg(t, c, `{"jsonrpc":"2.0","id":"m3","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	assert.Equal(t, -32022, errorCode(t, recvMsg(t, c)), "an HTTP 400 with a JSON-RPC error is an answer")

	require.NoError(t, c.Close())
	a := send(t, nil, http.MethodPost, ts.URL+"/mcp", map[string]string{"Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	assert.Equal(t, http.StatusNotFound, a.status, "Close ended the session")
	assert.Empty(t, log.String(), "nothing refused, the GET stream kept")
}
