package sse_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/sse"
)

func TestStreamAndPost(t *testing.T) {
	h := newHarness(t, nil)
	s := h.open()
	assert.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))
	assert.Equal(t, "no-cache", s.resp.Header.Get("Cache-Control"))
	assert.Equal(t, "no", s.resp.Header.Get("X-Accel-Buffering"))
	assert.Equal(t, 1, h.srv.Len())

	cases := []struct {
		name, send string
		want       string // the message event's data; "" when none follows
	}{
		{"initialize", initialize,
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"t","version":"1"}}}`},
		{"initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\nb"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\nb"}]}}`},
		{"unknown method is answered on the stream", `{"jsonrpc":"2.0","id":2,"method":"nope"}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found: nope"}}`},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`},
		{"batch at 2024-11-05", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches are only accepted at revision 2025-03-26, not 2024-11-05"}}`},
	}
	for _, tc := range cases {
		status, body := h.post(s.path, tc.send)
		assert.Equal(t, http.StatusAccepted, status, tc.name)
		assert.Empty(t, body, tc.name)
		if tc.want != "" {
			assert.JSONEq(t, tc.want, s.message(), tc.name)
		}
	}
}

// TestNegotiatedRevision: the transport fixes no revision; initialize
// negotiates it, as clients of this transport expect.
func TestNegotiatedRevision(t *testing.T) {
	cases := []struct{ asked, got string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"1999-01-01", "2025-11-25"},
	}
	h := newHarness(t, nil)
	for _, tc := range cases {
		s := h.open()
		status, _ := h.post(s.path, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+tc.asked+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		require.Equal(t, http.StatusAccepted, status)
		assert.Contains(t, s.message(), `"protocolVersion":"`+tc.got+`"`, tc.asked)
		s.close()
	}
}

func TestPostErrors(t *testing.T) {
	h := newHarness(t, nil)
	s := h.open()
	cases := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"missing session id", "/message", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"missing sessionId query parameter"}}`},
		{"empty session id", "/message?sessionId=", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.StatusBadRequest,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"missing sessionId query parameter"}}`},
		{"unknown session", "/message?sessionId=AAAAAAAAAAAAAAAAAAAAAAAAAA", `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			http.StatusNotFound, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unknown or closed session"}}`},
		{"bad JSON", s.path, `{"jsonrpc":"2.0","id":1,`, http.StatusBadRequest, ""},
		{"two JSON texts", s.path, `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, http.StatusBadRequest, ""},
		{"empty body", s.path, ``, http.StatusBadRequest, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := h.post(tc.path, tc.body)
			assert.Equal(t, tc.status, status)
			if tc.want != "" {
				assert.JSONEq(t, tc.want, body)
				return
			}
			assert.Contains(t, body, `"id":null,"error":{"code":-32700,`)
		})
	}
	// None of them reached the session: the stream carries only this answer.
	status, _ := h.post(s.path, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	require.Equal(t, http.StatusAccepted, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"after","result":{}}`, s.message())
}

func TestEndpointWithQuery(t *testing.T) {
	srv := sse.New(newMCP(t), &sse.Options{KeepAlive: -1})
	defer srv.Close()
	out := newFakeOutput()
	close(out.gate)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Stream(ctx, "/mcp/message?tenant=a b", out) }()
	eventually(t, func() bool { return len(out.written()) == 1 }, "no endpoint event")
	ev := out.written()[0]
	assert.Regexp(t, `^event: endpoint\ndata: /mcp/message\?tenant=a b&sessionId=[A-Z2-7]{26}\n\n$`, ev)
	cancel()
	require.NoError(t, <-done, "the client leaving is a normal end")
	assert.Equal(t, 0, srv.Len())
}

func TestSessionLimit(t *testing.T) {
	h := newHarness(t, &sse.Options{MaxSessions: 1})
	first := h.open()
	over := h.get()
	assert.Equal(t, http.StatusServiceUnavailable, over.resp.StatusCode)
	assert.Equal(t, "1", over.resp.Header.Get("Retry-After"))
	assert.Equal(t, "application/json", over.resp.Header.Get("Content-Type"))
	body := make([]byte, 512)
	n, _ := over.r.Read(body)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"too many open SSE sessions; retry later"}}`, string(body[:n]))
	assert.ErrorIs(t, <-h.streamErrs, sse.ErrTooManySessions)

	first.close()
	eventually(t, func() bool { return h.srv.Len() == 0 }, "the closed stream still holds its session")
	h.open()
}

func TestStreamCloseCancelsCalls(t *testing.T) {
	h := newHarness(t, nil)
	s := h.open()
	status, _ := h.post(s.path, initialize)
	require.Equal(t, http.StatusAccepted, status)
	s.message()
	status, _ = h.post(s.path, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	require.Equal(t, http.StatusAccepted, status)
	h.mcp.waitStarted(t)

	s.close()
	assert.ErrorIs(t, h.mcp.waitCancelled(t), context.Canceled)
	eventually(t, func() bool { return h.srv.Len() == 0 }, "the session outlived its stream")
	status, body := h.post(s.path, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Contains(t, body, "unknown or closed session")
}

func TestSlowReaderLosesStream(t *testing.T) {
	srv := sse.New(newMCP(t), &sse.Options{MaxQueueBytes: 200, KeepAlive: -1, WriteTimeout: -1})
	defer srv.Close()
	out := newFakeOutput()
	done := make(chan error, 1)
	go func() { done <- srv.Stream(context.Background(), "/message", out) }()
	eventually(t, func() bool { return len(out.written()) == 1 }, "no endpoint event")
	id := strings.TrimSuffix(strings.SplitN(out.written()[0], "sessionId=", 2)[1], "\n\n")

	// The first answer's write blocks: the client stopped reading. Answers
	// pile up until the backlog passes 200 bytes and the session ends.
	for i := 0; ; i++ {
		status, _ := srv.Post(context.Background(), id, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if status == http.StatusNotFound {
			break
		}
		require.Equal(t, http.StatusAccepted, status)
		require.Less(t, i, 100000, "the backlog never overflowed")
	}
	close(out.gate)
	assert.ErrorIs(t, <-done, sse.ErrSlowClient)
	assert.Equal(t, 0, srv.Len())
	assert.LessOrEqual(t, len(out.written()), 2, "nothing is written after the overflow")
}

func TestWriteTimeout(t *testing.T) {
	cases := []struct {
		name     string
		out      func(*fakeOutput) sse.Output
		deadline bool
	}{
		{"output without deadlines", func(o *fakeOutput) sse.Output { return o }, false},
		{"output with deadlines", func(o *fakeOutput) sse.Output { return deadlineOutput{o} }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMCP(t)
			// The keep-alive is the write that gets stuck (or, on a slow
			// machine, already the first one: the outcome is the same).
			srv := sse.New(m, &sse.Options{KeepAlive: time.Millisecond, WriteTimeout: 20 * time.Millisecond})
			defer srv.Close()
			fo := newFakeOutput()
			done := make(chan error, 1)
			go func() { done <- srv.Stream(context.Background(), "/message", tc.out(fo)) }()
			// The session ends while the write is still blocked.
			eventually(t, func() bool { return len(fo.written()) > 0 }, "no endpoint event")
			eventually(t, func() bool { return srv.Len() == 0 }, "a stuck client kept its session")
			close(fo.gate)
			assert.ErrorIs(t, <-done, sse.ErrWriteTimeout)
			if w := fo.written(); len(w) > 1 {
				assert.Equal(t, []string{": keepalive\n\n"}, w[1:], "nothing follows the stuck write")
			}
			if tc.deadline {
				fo.mu.Lock()
				assert.Positive(t, fo.deadlines)
				fo.mu.Unlock()
			}
		})
	}
}

func TestKeepAlive(t *testing.T) {
	h := newHarness(t, &sse.Options{KeepAlive: time.Millisecond})
	s := h.open()
	assert.Equal(t, ": keepalive\n\n", s.event())
	assert.Equal(t, ": keepalive\n\n", s.event())
}

func TestCloseEndsEverything(t *testing.T) {
	before := runtimeGoroutines()
	func() {
		h := newHarness(t, nil)
		streams := []*stream{h.open(), h.open(), h.open()}
		status, _ := h.post(streams[0].path, initialize)
		require.Equal(t, http.StatusAccepted, status)
		streams[0].message()
		status, _ = h.post(streams[0].path, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
		require.Equal(t, http.StatusAccepted, status)
		h.mcp.waitStarted(t)

		h.srv.Close()
		assert.ErrorIs(t, h.mcp.waitCancelled(t), context.Canceled)
		for _, s := range streams {
			_, err := s.r.ReadString('\n')
			assert.Error(t, err, "the stream ended")
			assert.NoError(t, <-h.streamErrs)
		}
		assert.Equal(t, 0, h.srv.Len())
		status, _ = h.post(streams[1].path, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		assert.Equal(t, http.StatusNotFound, status)
		refused := h.get()
		assert.Equal(t, http.StatusServiceUnavailable, refused.resp.StatusCode)
		assert.True(t, errors.Is(<-h.streamErrs, sse.ErrServerClosed))
		refused.close()
		for _, s := range streams {
			s.close()
		}
		h.http.CloseClientConnections()
		h.http.Close()
		h.mcp.Close()
	}()
	checkNoLeaks(t, before)
}
