package sse_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
)

// oldServer is a scripted 2024-11-05 server: GET /sse writes first, then
// holds the stream until the test ends or the client goes; POSTs to
// /message are recorded and answered with status.
type oldServer struct {
	*httptest.Server
	posts  chan string
	header chan http.Header
}

func newOldServer(t *testing.T, first string, status int) *oldServer {
	s := &oldServer{posts: make(chan string, 8), header: make(chan http.Header, 8)}
	done := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.header <- r.Header.Clone()
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, first)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-done:
			}
		case r.Method == http.MethodPost && r.URL.Path == "/message":
			b, _ := io.ReadAll(r.Body)
			s.posts <- r.URL.RawQuery + " " + string(b)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, "refused")
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(func() { close(done); s.Close() })
	return s
}

func TestClientConn(t *testing.T) {
	ctx := context.Background()
	first := "event: endpoint\ndata: /message?sessionId=s1\n\n" +
		": a comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	s := newOldServer(t, first, http.StatusAccepted)
	c, err := sse.Dial(ctx, s.URL+"/sse", &sse.ClientOptions{Header: http.Header{"Authorization": {"Bearer t"}}})
	require.NoError(t, err)
	h := <-s.header
	assert.Equal(t, "text/event-stream", h.Get("Accept"))
	assert.Equal(t, "Bearer t", h.Get("Authorization"))
	assert.Equal(t, s.URL+"/message?sessionId=s1", c.Endpoint())

	got, err := c.Recv(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, string(got))
	got, err = c.Recv(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, string(got))

	require.NoError(t, c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)))
	assert.Equal(t, `sessionId=s1 {"jsonrpc":"2.0","id":2,"method":"ping"}`, <-s.posts)
	h = <-s.header
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "Bearer t", h.Get("Authorization"))

	// Close ends a Recv that waits for the stream.
	recv := make(chan error, 1)
	go func() { _, err := c.Recv(ctx); recv <- err }()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, c.Close())
	select {
	case err := <-recv:
		assert.ErrorIs(t, err, transport.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Close left Recv waiting")
	}
	require.NoError(t, c.Close())
}

func TestClientConnRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, first, want string }{
		{"no endpoint first", "event: message\ndata: {}\n\n", "did not start with an endpoint event"},
		{"endpoint elsewhere", "event: endpoint\ndata: http://example.com/message\n\n", "not on the stream's origin"},
		{"stream ends", "", "EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newOldServer(t, tc.first, http.StatusAccepted)
			if tc.first == "" {
				s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
				})
			}
			_, err := sse.Dial(ctx, s.URL+"/sse", nil)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	t.Run("not a stream", func(t *testing.T) {
		s := newOldServer(t, "", http.StatusAccepted)
		_, err := sse.Dial(ctx, s.URL+"/nothing", nil)
		assert.ErrorContains(t, err, "HTTP 404")
	})
	t.Run("not http", func(t *testing.T) {
		_, err := sse.Dial(ctx, "ftp://x/sse", nil)
		assert.ErrorContains(t, err, "not an http or https URL")
	})
	t.Run("a refused post", func(t *testing.T) {
		s := newOldServer(t, "event: endpoint\ndata: /message\n\n", http.StatusBadRequest)
		c, err := sse.Dial(ctx, s.URL+"/sse", nil)
		require.NoError(t, err)
		defer c.Close()
		err = c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		assert.ErrorContains(t, err, "HTTP 400: refused")
	})
	t.Run("an event over the bound", func(t *testing.T) {
		s := newOldServer(t, "event: endpoint\ndata: /message\n\ndata: "+strings.Repeat("x", 100)+"\n\n", http.StatusAccepted)
		c, err := sse.Dial(ctx, s.URL+"/sse", &sse.ClientOptions{MaxEventBytes: 64})
		require.NoError(t, err)
		_, err = c.Recv(ctx)
		assert.ErrorIs(t, err, sse.ErrTooLarge)
	})
	t.Run("dial bounded by ctx", func(t *testing.T) {
		s := newOldServer(t, ": no endpoint yet\n\n", http.StatusAccepted)
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := sse.Dial(short, s.URL+"/sse", nil)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
}
