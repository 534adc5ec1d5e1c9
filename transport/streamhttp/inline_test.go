package streamhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// A 2026-07-28 handler runs on the request's goroutine when a slot is free.
// These tests pin what must not change with that: whatever has to be
// written while the handler still runs is written then, by a writer of
// its own.

// TestModernInlineProgressStreams: progress reaches the client while the
// handler is still running.
func TestModernInlineProgressStreams(t *testing.T) {
	f := newFixture(t)
	ts := f.serve(t, nil)
	s := openStream(t, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "wait"),
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":7,`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	assert.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"message":"waiting"}}`,
		s.next(t).data)
	f.waitStarted(t, "wait")
	close(f.release)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete",`+serverInfo+`,"content":[{"type":"text","text":"released"}]}}`,
		s.next(t).data)
	assert.Empty(t, s.rest(t))
}

// TestModernInlineStreamAfter: a handler running past StreamAfter opens
// the event stream before it returns, and keepalives flow on it (the first
// one sends the response head).
func TestModernInlineStreamAfter(t *testing.T) {
	f := newFixture(t)
	ts := f.serve(t, &streamhttp.Options{StreamAfter: time.Millisecond, KeepAlive: 5 * time.Millisecond})
	s := openStream(t, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "wait"),
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait",`+meta+`}}`)
	// The response head has arrived, and the handler is still waiting.
	assert.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))
	f.waitStarted(t, "wait")
	close(f.release)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete",`+serverInfo+`,"content":[{"type":"text","text":"released"}]}}`,
		s.next(t).data)
}

// TestModernInlineTimeout: a handler that ignores its context is answered
// at the deadline all the same, while it still runs.
func TestModernInlineTimeout(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1.0.0"}, &mcp.ServerOptions{RequestTimeout: 20 * time.Millisecond})
	t.Cleanup(srv.Close)
	release, returned := make(chan struct{}), make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "stuck", Description: "Ignores its context"},
		func(context.Context, *mcp.Request, struct{}) (string, error) {
			defer close(returned)
			<-release
			return "late", nil
		})
	ts := httptest.NewServer(srv.HTTPHandler(&streamhttp.Options{StreamAfter: -1}))
	t.Cleanup(ts.Close)
	a := send(t, nil, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "stuck"),
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"stuck",`+meta+`}}`)
	require.Equal(t, http.StatusInternalServerError, a.status, a.body)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"request timed out after 20ms","data":{"reason":"timeout"}}}`, a.body)
	select {
	case <-returned:
		t.Fatal("the answer waited for the handler")
	default:
	}
	close(release)
	<-returned
}

// TestModernInlinePanic: a handler panicking on the request's goroutine is
// an error answer for that call only; the server goes on serving.
func TestModernInlinePanic(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	t.Cleanup(srv.Close)
	mcp.AddTool(srv, &mcp.Tool{Name: "boom", Description: "Panics"},
		func(context.Context, *mcp.Request, struct{}) (string, error) { panic("boom") })
	mcp.AddTool(srv, &mcp.Tool{Name: "ok", Description: "Answers"},
		func(context.Context, *mcp.Request, struct{}) (string, error) { return "fine", nil })
	ts := httptest.NewServer(srv.HTTPHandler(nil))
	t.Cleanup(ts.Close)
	a := send(t, nil, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "boom"),
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"boom",`+meta+`}}`)
	require.Equal(t, http.StatusInternalServerError, a.status, a.body)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"internal error: the handler failed","data":{"reason":"panic"}}}`, a.body)
	a = send(t, nil, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "ok"),
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ok",`+meta+`}}`)
	require.Equal(t, http.StatusOK, a.status, a.body)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete",`+serverInfo+`,"content":[{"type":"text","text":"fine"}]}}`, a.body)
}
