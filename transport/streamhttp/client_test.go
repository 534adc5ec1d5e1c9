package streamhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// Literal messages of the client tests.
const (
	listReq  = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	listResp = `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`
	progress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`
	pingReq  = `{"jsonrpc":"2.0","id":"s1","method":"ping"}`
)

var _ transport.ClientConn = (*streamhttp.ClientConn)(nil)

// serveHTTP starts a test server on 127.0.0.1, closed when the test ends.
func serveHTTP(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// dial opens a conn to ts, closed when the test ends (before ts is).
func dial(t *testing.T, ts *httptest.Server, o *streamhttp.ClientOptions) *streamhttp.ClientConn {
	t.Helper()
	c, err := streamhttp.Dial(ts.URL+"/mcp", o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func sendMsg(t *testing.T, c *streamhttp.ClientConn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	require.NoError(t, c.Send(ctx, []byte(msg)))
}

func recv(t *testing.T, c *streamhttp.ClientConn) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	return c.Recv(ctx)
}

func recvMsg(t *testing.T, c *streamhttp.ClientConn) string {
	t.Helper()
	msg, err := recv(t, c)
	require.NoError(t, err)
	return string(msg)
}

func recvFailure(t *testing.T, c *streamhttp.ClientConn) *transport.RequestError {
	t.Helper()
	_, err := recv(t, c)
	var re *transport.RequestError
	require.ErrorAs(t, err, &re)
	return re
}

// rpc is the envelope of a message a test server received.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func readRPC(t *testing.T, r *http.Request) (rpc, string) {
	body, err := io.ReadAll(r.Body)
	assert.NoError(t, err)
	var m rpc
	assert.NoError(t, json.Unmarshal(body, &m), string(body))
	return m, string(body)
}

func reply(w http.ResponseWriter, status int, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// TestClientReplies: each row answers tools/list (id 7) with literal bytes;
// Recv returns the messages listed, then the failure of the request if any.
func TestClientReplies(t *testing.T) {
	idless := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Accept must list text/event-stream"}}`
	cases := []struct {
		name        string
		max         int64
		status      int
		contentType string
		body        string
		want        []string
		wantErr     error                   // errors.Is the request's failure
		wantStatus  *streamhttp.StatusError // or this
	}{
		{name: "JSON answer", status: 200, contentType: "application/json", body: listResp, want: []string{listResp}},
		{name: "SSE: priming, progress, answer", status: 200, contentType: "text/event-stream",
			body: ": open\n\nid: 1\nretry: 100\ndata:\n\ndata: " + progress + "\n\nevent: message\ndata: " + listResp + "\n\n",
			want: []string{progress, listResp}},
		{name: "SSE: CRLF, data over lines, other event types skipped", status: 200, contentType: "text/event-stream; charset=utf-8",
			body: "event: other\r\ndata: x\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":7,\"result\":{}}\r\n\r\n",
			want: []string{"{\"jsonrpc\":\"2.0\",\n\"id\":7,\"result\":{}}"}},
		{name: "SSE: not JSON-RPC skipped", status: 200, contentType: "text/event-stream",
			body: "data: hello\n\ndata: " + listResp + "\n\n", want: []string{listResp}},
		{name: "400 with a JSON-RPC error", status: 400, contentType: "application/json",
			body: `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}}`,
			want: []string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}}`}},
		{name: "404 without a session is an answer", status: 404, contentType: "application/json",
			body: `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`,
			want: []string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`}},
		{name: "500 text", status: 500, contentType: "text/plain", body: "boom",
			wantStatus: &streamhttp.StatusError{Status: 500, Body: "boom"}},
		{name: "long body cut at 512 bytes", status: 502, contentType: "text/html", body: strings.Repeat("x", 600),
			wantStatus: &streamhttp.StatusError{Status: 502, Body: strings.Repeat("x", 512)}},
		{name: "id-less error answers nothing", status: 406, contentType: "application/json", body: idless,
			wantStatus: &streamhttp.StatusError{Status: 406, Body: idless}},
		{name: "200 JSON that is no answer", status: 200, contentType: "application/json", body: `{"ok":true}`,
			wantStatus: &streamhttp.StatusError{Status: 200, Body: `{"ok":true}`}},
		{name: "stream cut before the answer", status: 200, contentType: "text/event-stream",
			body: "data: " + progress + "\n\n", want: []string{progress}, wantErr: streamhttp.ErrNoAnswer},
		{name: "JSON over the bound", max: 16, status: 200, contentType: "application/json", body: listResp,
			wantErr: streamhttp.ErrMessageTooLarge},
		{name: "SSE event over the bound", max: 16, status: 200, contentType: "text/event-stream",
			body: "data: " + listResp + "\n\n", wantErr: streamhttp.ErrMessageTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveHTTP(t, func(w http.ResponseWriter, r *http.Request) {
				_, body := readRPC(t, r)
				assert.Equal(t, http.MethodPost, r.Method)
				assert.Equal(t, "/mcp", r.URL.Path)
				assert.Equal(t, listReq, body)
				assert.Equal(t, []string{"application/json"}, r.Header.Values("Content-Type"))
				assert.Equal(t, []string{"application/json, text/event-stream"}, r.Header.Values("Accept"))
				assert.Equal(t, []string{"Bearer t"}, r.Header.Values("Authorization"))
				for _, h := range []string{"Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
					assert.Empty(t, r.Header.Values(h), h)
				}
				reply(w, tc.status, tc.contentType, tc.body)
			})
			c := dial(t, ts, &streamhttp.ClientOptions{MaxMessageBytes: tc.max, Header: http.Header{"authorization": {"Bearer t"}}})
			sendMsg(t, c, listReq)
			for _, want := range tc.want {
				assert.Equal(t, want, recvMsg(t, c))
			}
			if tc.wantErr == nil && tc.wantStatus == nil {
				return
			}
			re := recvFailure(t, c)
			assert.Equal(t, "7", string(re.ID))
			if tc.wantErr != nil {
				assert.ErrorIs(t, re, tc.wantErr)
			} else {
				assert.Equal(t, tc.wantStatus, re.Err)
			}
		})
	}
}

// TestClientNetworkError: a request that reaches no server fails with the
// id it was sent with, escapes and all.
func TestClientNetworkError(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	ts.Close() // its port now refuses connections
	c := dial(t, ts, nil)
	sendMsg(t, c, `{"jsonrpc":"2.0","id":"a\u0022b","method":"tools/list"}`)
	re := recvFailure(t, c)
	assert.Equal(t, `"a\u0022b"`, string(re.ID))
	assert.Error(t, re.Err)
}

// TestClientModernHeaders: a request with the 2026-07-28 _meta carries the
// mirrored headers, non-ASCII and look-alike values in the base64 form.
func TestClientModernHeaders(t *testing.T) {
	call := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + meta + `}}`
	}
	cases := []struct {
		name, msg, method, mcpName string // mcpName "": no Mcp-Name header
	}{
		{"tools/call", call("tools/call", `"name":"echo","arguments":{},`), "tools/call", "echo"},
		{"prompts/get", call("prompts/get", `"name":"greet",`), "prompts/get", "greet"},
		{"resources/read", call("resources/read", `"uri":"file:///tmp/a.txt",`), "resources/read", "file:///tmp/a.txt"},
		{"non-ASCII uri", call("resources/read", `"uri":"file:///tmp/é.txt",`), "resources/read", "=?base64?ZmlsZTovLy90bXAvw6kudHh0?="},
		{"leading space", call("tools/call", `"name":" echo",`), "tools/call", "=?base64?IGVjaG8=?="},
		{"looks like the sentinel", call("tools/call", `"name":"=?base64?eA==?=",`), "tools/call", "=?base64?PT9iYXNlNjQ/ZUE9PT89?="},
		{"escaped name", call("tools/call", `"name":"ech\u006f",`), "tools/call", "echo"},
		{"tools/list has no name", call("tools/list", ""), "tools/list", ""},
		{"name not a string", call("tools/call", `"name":7,`), "tools/call", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveHTTP(t, func(w http.ResponseWriter, r *http.Request) {
				_, body := readRPC(t, r)
				assert.Equal(t, tc.msg, body)
				assert.Equal(t, []string{"2026-07-28"}, r.Header.Values("MCP-Protocol-Version"))
				assert.Equal(t, []string{tc.method}, r.Header.Values("Mcp-Method"))
				if tc.mcpName == "" {
					assert.Empty(t, r.Header.Values("Mcp-Name"))
				} else {
					assert.Equal(t, []string{tc.mcpName}, r.Header.Values("Mcp-Name"))
				}
				assert.Empty(t, r.Header.Values("Mcp-Session-Id"))
				reply(w, 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`)
			})
			c := dial(t, ts, nil)
			sendMsg(t, c, tc.msg)
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, recvMsg(t, c))
		})
	}
}

// TestClientNotifications: a notification or a response waits for its
// 202; a refusal is only logged.
func TestClientNotifications(t *testing.T) {
	cases := []struct {
		name, msg string
		status    int
	}{
		{"notification accepted", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, 202},
		{"response accepted", `{"jsonrpc":"2.0","id":"s1","result":{}}`, 202},
		{"notification refused", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, 1)
			ts := serveHTTP(t, func(w http.ResponseWriter, r *http.Request) {
				_, body := readRPC(t, r)
				got <- body
				w.WriteHeader(tc.status)
			})
			c := dial(t, ts, nil)
			sendMsg(t, c, tc.msg)
			select {
			case body := <-got: // already there: Send waited for the status
				assert.Equal(t, tc.msg, body)
			default:
				t.Fatal("Send returned before the server had the message")
			}
		})
	}
}

// TestClientSendRefuses: what Send cannot start.
func TestClientSendRefuses(t *testing.T) {
	ts := serveHTTP(t, func(http.ResponseWriter, *http.Request) { t.Error("nothing may be posted") })
	c := dial(t, ts, nil)
	for _, msg := range []string{`{"id":1,"method":"x"}`, `[` + listReq + `]`, `not json`, ``} {
		assert.Error(t, c.Send(context.Background(), []byte(msg)), msg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.Send(ctx, []byte(listReq)), context.Canceled)
	require.NoError(t, c.Close())
	assert.ErrorIs(t, c.Send(context.Background(), []byte(listReq)), transport.ErrClosed)
}

func TestDial(t *testing.T) {
	for _, tc := range []struct {
		url string
		o   *streamhttp.ClientOptions
		ok  bool
	}{
		{"http://127.0.0.1:8080/mcp", nil, true},
		{"HTTPS://example.com/mcp", &streamhttp.ClientOptions{}, true},
		{"ftp://127.0.0.1/mcp", nil, false},
		{"http:///mcp", nil, false},
		{"127.0.0.1:8080/mcp", nil, false},
		{"/mcp", nil, false},
		{"http://127.0.0.1/mcp", &streamhttp.ClientOptions{MaxMessageBytes: -1}, false},
	} {
		c, err := streamhttp.Dial(tc.url, tc.o)
		if !tc.ok {
			assert.Error(t, err, tc.url)
			continue
		}
		require.NoError(t, err, tc.url)
		assert.Empty(t, c.SessionID())
		require.NoError(t, c.Close())
	}
}

// TestClientClose: Close aborts what runs and unblocks Recv, which then
// returns what was queued before (no failure of the aborted requests) and
// ErrClosed. Close is idempotent.
func TestClientClose(t *testing.T) {
	started, aborted := make(chan struct{}, 2), make(chan struct{}, 2)
	ts := serveHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		if m, _ := readRPC(t, r); m.Method == "tools/list" {
			reply(w, 200, "application/json", listResp)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+progress+"\n\n")
		w.(http.Flusher).Flush()
		started <- struct{}{}
		<-r.Context().Done()
		aborted <- struct{}{}
	})
	wait := func(ch <-chan struct{}, what string) {
		select {
		case <-ch:
		case <-time.After(bound):
			t.Fatal(what)
		}
	}

	t.Run("blocked Recv", func(t *testing.T) {
		c := dial(t, ts, nil)
		sendMsg(t, c, pingReq)
		wait(started, "the stream did not start")
		assert.Equal(t, progress, recvMsg(t, c))
		blocked := make(chan error, 1)
		go func() {
			_, err := c.Recv(context.Background())
			blocked <- err
		}()
		require.NoError(t, c.Close())
		require.NoError(t, c.Close())
		wait(aborted, "Close did not abort the stream")
		select {
		case err := <-blocked:
			assert.ErrorIs(t, err, transport.ErrClosed)
		case <-time.After(bound):
			t.Fatal("Close did not unblock Recv")
		}
	})

	t.Run("queued before Close", func(t *testing.T) {
		c := dial(t, ts, nil)
		sendMsg(t, c, listReq)
		sendMsg(t, c, pingReq)
		wait(started, "the stream did not start")
		require.NoError(t, c.Close())
		wait(aborted, "Close did not abort the stream")
		for {
			msg, err := c.Recv(context.Background())
			if err != nil {
				require.ErrorIs(t, err, transport.ErrClosed)
				break
			}
			assert.Contains(t, []string{listResp, progress}, string(msg))
		}
	})
}

// TestClientNoLeak: after Close (and the server's), no goroutine of the
// conn remains, whatever was running: replies, a stream, the GET stream.
func TestClientNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	hold := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "retry: 5\n\n")
			return // dropped: the conn reconnects
		case http.MethodDelete:
			return
		}
		m, _ := readRPC(t, r)
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s")
			reply(w, 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: "+progress+"\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-hold:
			}
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	c, err := streamhttp.Dial(ts.URL, nil)
	require.NoError(t, err)
	sendMsg(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	recvMsg(t, c)
	sendMsg(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	sendMsg(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`)
	assert.Equal(t, progress, recvMsg(t, c))
	require.NoError(t, c.Close())
	close(hold)
	ts.Close()
	deadline := time.Now().Add(bound)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// lockedLog is a logger's output that tests read while the conn writes.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
