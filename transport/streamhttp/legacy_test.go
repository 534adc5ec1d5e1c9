package streamhttp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

func legacyHeader(extra ...string) map[string]string {
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// initialize opens a legacy session at rev and returns its id.
func initialize(t *testing.T, url, rev string) string {
	t.Helper()
	a := send(t, nil, http.MethodPost, url, legacyHeader(),
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+rev+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	require.Equal(t, 200, a.status, a.body)
	assert.Contains(t, a.body, `"protocolVersion":"`+rev+`"`)
	sid := a.header.Get("Mcp-Session-Id")
	require.GreaterOrEqual(t, len(sid), 22, "at least 128 bits")
	for _, c := range sid {
		require.True(t, c >= 0x21 && c <= 0x7e, "visible ASCII: %q", sid)
	}
	a = send(t, nil, http.MethodPost, url, legacyHeader("Mcp-Session-Id", sid, "MCP-Protocol-Version", rev),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, a.status)
	return sid
}

// TestLegacyPOST covers the session rules of 2025-03-26 … 2025-11-25.
func TestLegacyPOST(t *testing.T) {
	f := newFixture(t)
	ts := f.serve(t, nil)
	url := ts.URL + "/mcp"
	sid := initialize(t, url, "2025-06-18")
	old := initialize(t, url, "2025-03-26")
	gone := initialize(t, url, "2025-06-18")
	require.Equal(t, 200, send(t, nil, http.MethodDelete, url, legacyHeader("Mcp-Session-Id", gone), "").status)
	echo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	cases := []struct {
		name   string
		header map[string]string
		body   string
		status int
		want   string
		code   int
	}{
		{name: "echo", header: legacyHeader("Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-06-18"), body: echo, status: 200,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`},
		{name: "version header may be absent", header: legacyHeader("Mcp-Session-Id", sid), body: echo, status: 200,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`},
		{name: "ping", header: legacyHeader("Mcp-Session-Id", sid), body: `{"jsonrpc":"2.0","id":"p","method":"ping"}`, status: 200,
			want: `{"jsonrpc":"2.0","id":"p","result":{}}`},
		{name: "JSON-RPC errors are HTTP 200", header: legacyHeader("Mcp-Session-Id", sid),
			body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}`, status: 200, code: -32602},
		{name: "unknown method is HTTP 200", header: legacyHeader("Mcp-Session-Id", sid),
			body: `{"jsonrpc":"2.0","id":2,"method":"server/discover"}`, status: 200, code: -32601},
		{name: "invalid envelope is HTTP 200", header: legacyHeader("Mcp-Session-Id", sid),
			body: `{"jsonrpc":"1.0","id":2,"method":"ping"}`, status: 200, code: -32600},
		{name: "malformed JSON", header: legacyHeader("Mcp-Session-Id", sid), body: `{"jsonrpc":`, status: 400, code: -32700},
		{name: "notification accepted", header: legacyHeader("Mcp-Session-Id", sid),
			body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, status: 202},
		{name: "response accepted", header: legacyHeader("Mcp-Session-Id", sid), body: `{"jsonrpc":"2.0","id":5,"result":{}}`, status: 202},
		{name: "session missing", header: legacyHeader(), body: echo, status: 400, code: -32600},
		{name: "session unknown", header: legacyHeader("Mcp-Session-Id", "nope"), body: echo, status: 404, code: -32600},
		{name: "session deleted", header: legacyHeader("Mcp-Session-Id", gone), body: echo, status: 404, code: -32600},
		{name: "version differs from the session's", header: legacyHeader("Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"),
			body: echo, status: 400, code: -32600},
		{name: "batch at 2025-03-26", header: legacyHeader("Mcp-Session-Id", old),
			body:   `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}]`,
			status: 200, want: `[{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{name: "batch of notifications", header: legacyHeader("Mcp-Session-Id", old),
			body: `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}]`, status: 202},
		{name: "batch refused at 2025-06-18", header: legacyHeader("Mcp-Session-Id", sid),
			body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, status: 400, code: -32600},
		{name: "empty batch", header: legacyHeader("Mcp-Session-Id", old), body: `[]`, status: 400, code: -32600},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, nil, http.MethodPost, url, tc.header, tc.body)
			require.Equal(t, tc.status, a.status, a.body)
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
			}
		})
	}
}

// TestLegacyInitializeFails: a failed initialize mints no session.
func TestLegacyInitializeFails(t *testing.T) {
	ts := newFixture(t).serve(t, nil)
	a := send(t, nil, http.MethodPost, ts.URL+"/mcp", legacyHeader(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":[]}`)
	assert.Equal(t, 200, a.status, a.body)
	assert.Equal(t, -32602, errorCode(t, a.body))
	assert.Empty(t, a.header.Get("Mcp-Session-Id"))
}

// TestLegacyGetAndDelete covers GET streams and DELETE.
func TestLegacyGetAndDelete(t *testing.T) {
	f := newFixture(t)
	ts := f.serve(t, nil)
	url := ts.URL + "/mcp"
	sid := initialize(t, url, "2025-11-25")
	get := map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}

	cases := []struct {
		name   string
		method string
		header map[string]string
		status int
	}{
		{"GET without Accept", http.MethodGet, map[string]string{"Mcp-Session-Id": sid, "Accept": "application/json"}, 406},
		{"GET with a legacy version but no session", http.MethodGet, map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": "2025-11-25"}, 400},
		{"GET of an unknown session", http.MethodGet, map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "nope"}, 404},
		{"DELETE of an unknown session", http.MethodDelete, map[string]string{"Mcp-Session-Id": "nope"}, 404},
		{"PUT", http.MethodPut, map[string]string{"Mcp-Session-Id": sid}, 405},
	}
	for _, tc := range cases {
		a := send(t, nil, tc.method, url, tc.header, "")
		assert.Equal(t, tc.status, a.status, "%s: %s", tc.name, a.body)
	}

	s := openStream(t, http.MethodGet, url, get, "")
	require.Equal(t, 200, s.resp.StatusCode)
	assert.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))
	prime := s.next(t)
	assert.NotEmpty(t, prime.id, "2025-11-25 streams open with a priming event")
	assert.True(t, prime.retry)
	assert.Empty(t, prime.data)

	// One plain GET stream per session.
	assert.Equal(t, http.StatusConflict, send(t, nil, http.MethodGet, url, get, "").status)

	// Messages of no request travel on the GET stream.
	mcp.AddTool(f.srv, &mcp.Tool{Name: "late", Description: "Added later"},
		func(_ context.Context, _ *mcp.Request, _ struct{}) (string, error) { return "", nil })
	ev := s.next(t)
	assert.NotEmpty(t, ev.id)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, ev.data)

	// DELETE ends the session and its stream.
	require.Equal(t, 200, send(t, nil, http.MethodDelete, url, map[string]string{"Mcp-Session-Id": sid}, "").status)
	assert.Empty(t, s.rest(t))
	assert.Equal(t, 404, send(t, nil, http.MethodPost, url, legacyHeader("Mcp-Session-Id", sid),
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`).status)
}

// TestLegacyDisconnectResumes: on the legacy revisions a client going away
// is not a cancel; the answer stays in the stream's store and a GET with
// Last-Event-ID gets it.
func TestLegacyDisconnectResumes(t *testing.T) {
	for _, rev := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			f := newFixture(t)
			ts := f.serve(t, nil)
			url := ts.URL + "/mcp"
			sid := initialize(t, url, rev)
			s := openStream(t, http.MethodPost, url, legacyHeader("Mcp-Session-Id", sid),
				`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":1}}}`)
			require.Equal(t, 200, s.resp.StatusCode)
			require.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))
			if rev == "2025-11-25" {
				prime := s.next(t)
				require.NotEmpty(t, prime.id)
				require.Empty(t, prime.data)
			}
			progress := s.next(t)
			require.NotEmpty(t, progress.id)
			assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"waiting"}}`, progress.data)
			f.waitStarted(t, "wait")
			s.close() // the client goes away mid-call

			close(f.release)
			r := openStream(t, http.MethodGet, url, map[string]string{"Accept": "text/event-stream",
				"Mcp-Session-Id": sid, "Last-Event-ID": progress.id}, "")
			require.Equal(t, 200, r.resp.StatusCode)
			rest := r.rest(t)
			require.Len(t, rest, 1)
			assert.NotEmpty(t, rest[0].id)
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"released"}]}}`, rest[0].data)
			select {
			case err := <-f.cancelled:
				t.Fatalf("the handler was cancelled: %v", err)
			default:
			}
		})
	}
}

// TestLegacyStreamAfter: a slow answer becomes a resumable SSE stream.
func TestLegacyStreamAfter(t *testing.T) {
	f := newFixture(t)
	ts := f.serve(t, &streamhttp.Options{StreamAfter: time.Millisecond})
	url := ts.URL + "/mcp"
	sid := initialize(t, url, "2025-11-25")
	s := openStream(t, http.MethodPost, url, legacyHeader("Mcp-Session-Id", sid),
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait"}}`)
	require.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))
	prime := s.next(t)
	require.NotEmpty(t, prime.id)
	f.waitStarted(t, "wait")
	close(f.release)
	rest := s.rest(t)
	require.Len(t, rest, 1)
	assert.True(t, strings.HasPrefix(rest[0].id, prime.id[:strings.LastIndexByte(prime.id, '-')]), "one stream, one id prefix")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"released"}]}}`, rest[0].data)
}

// TestLegacySessionLimits: the session count is bounded (503).
func TestLegacySessionLimits(t *testing.T) {
	ts := newFixture(t).serve(t, &streamhttp.Options{MaxSessions: 2})
	url := ts.URL + "/mcp"
	initialize(t, url, "2025-06-18")
	sid := initialize(t, url, "2025-06-18")
	a := send(t, nil, http.MethodPost, url, legacyHeader(), initBody("2025-06-18"))
	assert.Equal(t, http.StatusServiceUnavailable, a.status, a.body)
	assert.Equal(t, "1", a.header.Get("Retry-After"))
	assert.Empty(t, a.header.Get("Mcp-Session-Id"))
	// Ending one makes room.
	require.Equal(t, 200, send(t, nil, http.MethodDelete, url, legacyHeader("Mcp-Session-Id", sid), "").status)
	assert.Equal(t, 200, send(t, nil, http.MethodPost, url, legacyHeader(), initBody("2025-06-18")).status)
}

// TestLegacySessionExpiry: a session idle past SessionIdleTimeout is gone (404).
func TestLegacySessionExpiry(t *testing.T) {
	ts := newFixture(t).serve(t, &streamhttp.Options{SessionIdleTimeout: 20 * time.Millisecond})
	url := ts.URL + "/mcp"
	a := send(t, nil, http.MethodPost, url, legacyHeader(), initBody("2025-06-18"))
	require.Equal(t, 200, a.status)
	time.Sleep(200 * time.Millisecond) // well past the idle timeout
	assert.Equal(t, 404, send(t, nil, http.MethodPost, url, legacyHeader("Mcp-Session-Id", a.header.Get("Mcp-Session-Id")),
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`).status)
}

func initBody(rev string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev +
		`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
}

// TestLegacyDeleteMidCall: ending a session answers its waiting POST (404)
// and cancels the call.
// blockedCall serves f with opts, opens a session at rev and POSTs a call
// (id 4) to the blocking tool, returning once the handler runs; the POST's
// answer arrives on got.
func blockedCall(t *testing.T, f *fixture, opts *streamhttp.Options, rev string) (url, sid string, got <-chan answer) {
	t.Helper()
	ts := f.serve(t, opts)
	url = ts.URL + "/mcp"
	sid = initialize(t, url, rev)
	answers := make(chan answer, 1)
	go func() {
		answers <- send(t, nil, http.MethodPost, url, legacyHeader("Mcp-Session-Id", sid),
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block"}}`)
	}()
	f.waitStarted(t, "block")
	return url, sid, answers
}

func TestLegacyDeleteMidCall(t *testing.T) {
	f := newFixture(t)
	url, sid, got := blockedCall(t, f, &streamhttp.Options{StreamAfter: -1}, "2025-06-18")
	require.Equal(t, 200, send(t, nil, http.MethodDelete, url, legacyHeader("Mcp-Session-Id", sid), "").status)
	a := <-got
	assert.Equal(t, 404, a.status, a.body)
	select {
	case <-f.cancelled:
	case <-timeAfter():
		t.Fatal("the call was not cancelled")
	}
}

// TestLegacyCancelEndsPost holds a legacy POST whose request the client
// cancels (notifications/cancelled in another POST) to ending at once
// without an answer, whether its reply would have been JSON or an event
// stream: before, it stayed open until the session ended.
func TestLegacyCancelEndsPost(t *testing.T) {
	for _, tc := range []struct {
		name        string
		streamAfter time.Duration
		ctype       string
	}{
		{"json reply", -1, "text/event-stream"},
		{"stream already open", time.Millisecond, "text/event-stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			url, sid, got := blockedCall(t, f, &streamhttp.Options{StreamAfter: tc.streamAfter}, "2025-11-25")
			assert.Equal(t, 202, send(t, nil, http.MethodPost, url, legacyHeader("Mcp-Session-Id", sid),
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`).status)
			select {
			case a := <-got:
				assert.Equal(t, 200, a.status, a.body)
				assert.Equal(t, tc.ctype, a.header.Get("Content-Type"))
				assert.NotContains(t, a.body, `"id":4`, "a cancelled request gets no answer")
			case <-timeAfter():
				t.Fatal("the POST of the cancelled request did not end")
			}
		})
	}
}
