package streamhttp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/streamhttp"
)

const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}`

// TestModernPOST covers the 2026-07-28 status and header rules with literal
// requests: each row is one POST and the exact status, media type and
// JSON-RPC answer (or error code) expected.
func TestModernPOST(t *testing.T) {
	f := newFixture(t)
	ts := f.serve(t, nil)
	echo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`
	route := func(args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"route","arguments":` + args + `,` + meta + `}}`
	}
	cases := []struct {
		name    string
		header  map[string]string
		body    string
		status  int
		want    string // exact JSON answer, when set
		code    int    // JSON-RPC error code, when want is not set
		noteSSE bool
	}{
		{name: "echo", header: modern2026("tools/call", "Mcp-Name", "echo"), body: echo, status: 200,
			want: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfo + `,"content":[{"type":"text","text":"hi"}]}}`},
		{name: "header names are case-insensitive, values trimmed",
			header: map[string]string{"content-type": "application/json; charset=utf-8", "accept": "text/event-stream, application/json",
				"mcp-protocol-version": " 2026-07-28 ", "mcp-method": "tools/call", "mcp-name": "\techo "},
			body: echo, status: 200,
			want: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfo + `,"content":[{"type":"text","text":"hi"}]}}`},
		{name: "Mcp-Name in base64 form", header: modern2026("tools/call", "Mcp-Name", "=?base64?ZWNobw==?="), body: echo, status: 200},
		{name: "Mcp-Name bad base64", header: modern2026("tools/call", "Mcp-Name", "=?base64?ZWNob?="), body: echo, status: 400, code: -32020},
		{name: "Mcp-Name missing", header: modern2026("tools/call"), body: echo, status: 400, code: -32020},
		{name: "Mcp-Name differs", header: modern2026("tools/call", "Mcp-Name", "ECHO"), body: echo, status: 400, code: -32020},
		{name: "Mcp-Method missing", header: modern2026("tools/call", "Mcp-Method", "", "Mcp-Name", "echo"), body: echo, status: 400, code: -32020},
		{name: "Mcp-Method differs", header: modern2026("tools/list", "Mcp-Name", "echo"), body: echo, status: 400, code: -32020},
		{name: "MCP-Protocol-Version missing", header: modern2026("tools/call", "MCP-Protocol-Version", "", "Mcp-Name", "echo"),
			body: echo, status: 400, code: -32020},
		{name: "MCP-Protocol-Version differs from _meta", header: modern2026("tools/call", "MCP-Protocol-Version", "2027-01-01", "Mcp-Name", "echo"),
			body: echo, status: 400, code: -32020},
		{name: "MCP-Protocol-Version differs from an escaped _meta", header: modern2026("tools/list", "MCP-Protocol-Version", "2027-01-01"),
			body:   `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			status: 400, want: `{"jsonrpc":"2.0","id":8,"error":{"code":-32020,"message":"header Mcp-Protocol-Version is \"2027-01-01\" but params._meta says \"2026-07-28\"","data":{"header":"Mcp-Protocol-Version"}}}`},
		{name: "escaped _meta protocolVersion matches", header: modern2026("tools/list"),
			body:   `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			status: 200},
		{name: "unsupported version", header: modern2026("tools/list", "MCP-Protocol-Version", "2099-01-01"),
			body:   `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			status: 400, code: -32022},
		{name: "missing _meta", header: modern2026("tools/list"), body: `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, status: 400, code: -32602},
		{name: "missing clientCapabilities", header: modern2026("tools/list"),
			body:   `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			status: 400, code: -32602},
		{name: "unknown method", header: modern2026("nope/nothing"),
			body: `{"jsonrpc":"2.0","id":4,"method":"nope/nothing","params":{` + meta + `}}`, status: 404, code: -32601},
		{name: "initialize does not exist", header: modern2026("initialize"),
			body: `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{` + meta + `}}`, status: 404, code: -32601},
		{name: "ping does not exist", header: modern2026("ping"),
			body: `{"jsonrpc":"2.0","id":5,"method":"ping","params":{` + meta + `}}`, status: 404, code: -32601},
		{name: "unknown tool", header: modern2026("tools/call", "Mcp-Name", "nope"),
			body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope",` + meta + `}}`, status: 400, code: -32602},
		{name: "Mcp-Param all present", header: modern2026("tools/call", "Mcp-Name", "route", "Mcp-Param-Region", "eu-west",
			"Mcp-Param-Count", "7", "Mcp-Param-Fast", "true"),
			body: route(`{"region":"eu-west","count":7,"opts":{"fast":true}}`), status: 200},
		{name: "Mcp-Param base64 and number forms", header: modern2026("tools/call", "Mcp-Name", "route",
			"Mcp-Param-Region", "=?base64?IGV1IA==?=", "mcp-param-count", "7"),
			body: route(`{"region":" eu ","count":7.0}`), status: 200},
		{name: "Mcp-Param missing", header: modern2026("tools/call", "Mcp-Name", "route"),
			body: route(`{"region":"eu"}`), status: 400, code: -32020},
		{name: "Mcp-Param differs", header: modern2026("tools/call", "Mcp-Name", "route", "Mcp-Param-Count", "8"),
			body: route(`{"count":7}`), status: 400, code: -32020},
		{name: "Mcp-Param without argument", header: modern2026("tools/call", "Mcp-Name", "route", "Mcp-Param-Region", "eu"),
			body: route(`{}`), status: 400, code: -32020},
		{name: "Mcp-Param null argument needs no header", header: modern2026("tools/call", "Mcp-Name", "route"),
			body: route(`{"region":null}`), status: 200},
		{name: "notification accepted", header: modern2026("notifications/cancelled"),
			body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, status: 202},
		{name: "response refused", header: modern2026(""), body: `{"jsonrpc":"2.0","id":1,"result":{}}`, status: 400, code: -32600},
		{name: "batch refused", header: modern2026("tools/list"),
			body: `[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}]`, status: 400, code: -32600},
		{name: "malformed JSON", header: modern2026("tools/list"), body: `{"jsonrpc":"2.0","id":1,`, status: 400, code: -32700},
		{name: "not JSON-RPC", header: modern2026("tools/list"), body: `{"id":1,"method":"tools/list","params":{` + meta + `}}`, status: 400, code: -32600},
		{name: "session header ignored", header: modern2026("tools/call", "Mcp-Name", "echo", "Mcp-Session-Id", "whatever"),
			body: echo, status: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, nil, http.MethodPost, ts.URL+"/mcp", tc.header, tc.body)
			require.Equal(t, tc.status, a.status, a.body)
			assert.Empty(t, a.header.Get("Mcp-Session-Id"), "2026-07-28 never mints a session")
			if tc.status == http.StatusAccepted {
				assert.Empty(t, a.body)
				return
			}
			assert.Equal(t, "application/json", a.header.Get("Content-Type"))
			switch {
			case tc.want != "":
				assert.JSONEq(t, tc.want, a.body)
			case tc.code != 0:
				assert.Equal(t, tc.code, errorCode(t, a.body), a.body)
			default:
				assert.Zero(t, errorCode(t, a.body), a.body)
			}
		})
	}
}

// TestModernErrorKeepsID: errors found in the headers answer the request's id.
func TestModernErrorKeepsID(t *testing.T) {
	ts := newFixture(t).serve(t, nil)
	a := send(t, nil, http.MethodPost, ts.URL+"/mcp", modern2026("tools/list"),
		`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"echo",`+meta+`}}`)
	require.Equal(t, 400, a.status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"abc","error":{"code":-32020,
		"message":"header Mcp-Method is \"tools/list\" but the body's method is \"tools/call\"","data":{"header":"Mcp-Method"}}}`, a.body)
}

// TestModernProgressStream: request-scoped notifications turn the reply
// into an SSE stream that ends with the answer.
func TestModernProgressStream(t *testing.T) {
	ts := newFixture(t).serve(t, nil)
	a := send(t, nil, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "progress"),
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p",`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	require.Equal(t, 200, a.status)
	assert.Equal(t, "text/event-stream", a.header.Get("Content-Type"))
	assert.Equal(t, "no", a.header.Get("X-Accel-Buffering"))
	evs := events(a.body)
	require.Len(t, evs, 3, a.body)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2,"message":"half"}}`, evs[0].data)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":2,"total":2,"message":"all"}}`, evs[1].data)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`+serverInfo+`,"content":[{"type":"text","text":"done"}]}}`, evs[2].data)
	for _, ev := range evs {
		assert.Empty(t, ev.id, "2026-07-28 streams are not resumable")
	}
}

// TestModernGetDelete: only POST exists at 2026-07-28.
func TestModernGetDelete(t *testing.T) {
	ts := newFixture(t).serve(t, nil)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		for _, h := range []map[string]string{
			{"Accept": "text/event-stream", "MCP-Protocol-Version": "2026-07-28"},
			{"Accept": "text/event-stream"},
			{"Accept": "text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Session-Id": "x", "Last-Event-ID": "y"},
		} {
			a := send(t, nil, method, ts.URL+"/mcp", h, "")
			assert.Equal(t, http.StatusMethodNotAllowed, a.status, "%s %v", method, h)
			assert.Equal(t, "POST", a.header.Get("Allow"))
		}
	}
}

// TestModernDisconnectCancels: the client closing the stream cancels the
// handler (the spec's cancellation on HTTP) and nothing more is written:
// whether the handler runs inline past the watch delay, its reply already
// streams (a progress notification started the writer), or the reply never
// switches to a stream on its own (a negative StreamAfter).
func TestModernDisconnectCancels(t *testing.T) {
	progressMeta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}`
	for _, tc := range []struct {
		name, tool, meta string
		opts             *streamhttp.Options
	}{
		{"inline handler", "block", meta, nil},
		{"no timed stream switch", "block", meta, &streamhttp.Options{StreamAfter: -1}},
		{"stream switch before the watch", "block", meta, &streamhttp.Options{StreamAfter: time.Millisecond}},
		{"streaming reply", "wait", progressMeta, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			ts := f.serve(t, tc.opts)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp",
					stringsReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"`+tc.tool+`",`+tc.meta+`}}`))
				for k, v := range modern2026("tools/call", "Mcp-Name", tc.tool) {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				done <- err
			}()
			f.waitStarted(t, tc.tool)
			cancel()
			select {
			case cause := <-f.cancelled:
				assert.Error(t, cause)
			case <-timeAfter():
				t.Fatal("the handler was not cancelled")
			}
			assert.ErrorIs(t, <-done, context.Canceled)
		})
	}
}

// TestEngineCloseEndsResponses: closing the Engine answers a request still
// waiting for its handler (503) instead of leaving it open.
func TestEngineCloseEndsResponses(t *testing.T) {
	f := newFixture(t)
	h := f.srv.HTTPHandler(&streamhttp.Options{StreamAfter: -1}).(*streamhttp.Handler)
	ts := httptest.NewServer(h)
	defer ts.Close()
	got := make(chan answer, 1)
	go func() {
		got <- send(t, nil, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "block"),
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"block",`+meta+`}}`)
	}()
	f.waitStarted(t, "block")
	h.Engine().Close()
	a := <-got
	assert.Equal(t, http.StatusServiceUnavailable, a.status, a.body)
	<-f.cancelled
}

// A JSON answer goes with its Content-Length, not chunked, whatever its
// size, and the same size twice gets the same (shared) header value right.
func TestAnswerContentLength(t *testing.T) {
	ts := newFixture(t).serve(t, nil)
	for _, text := range []string{"hi", "hi", strings.Repeat("x", 5000), strings.Repeat("x", 5000)} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"},` + meta + `}}`
		a := send(t, nil, http.MethodPost, ts.URL+"/mcp", modern2026("tools/call", "Mcp-Name", "echo"), body)
		require.Equal(t, http.StatusOK, a.status, a.body)
		assert.Contains(t, a.body, `"text":"`+text+`"`)
		assert.Equal(t, strconv.Itoa(len(a.body)), a.header.Get("Content-Length"), "%d-byte answer", len(a.body))
	}
}
