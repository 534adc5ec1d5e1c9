package memory_test

// An external test package: mcp, used here as the real server, imports memory.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/memory"
)

// recvTimeout bounds one Recv in these tests (a failure bound only).
const recvTimeout = 20 * time.Second

func recv(t *testing.T, c *memory.Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), recvTimeout)
	defer cancel()
	m, err := c.Recv(ctx)
	require.NoError(t, err)
	return string(m)
}

func newServer(t *testing.T, extra func(*mcp.Server)) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "memory-test", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	if extra != nil {
		extra(srv)
	}
	t.Cleanup(srv.Close)
	return srv
}

// connect opens an initialized 2025-06-18 connection.
func connect(t *testing.T, srv transport.Server) *memory.Client {
	t.Helper()
	c := memory.Connect(srv)
	t.Cleanup(c.Close)
	require.NoError(t, c.Send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)))
	require.Contains(t, recv(t, c), `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"`)
	require.NoError(t, c.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	return c
}

func TestRoundTrip(t *testing.T) {
	c := connect(t, newServer(t, nil))
	for _, tc := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo"}}}`,
			`{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"héllo"}]}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown tool: nope"}}`},
		{`{"jsonrpc":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: unexpected end of input"}}`},
	} {
		require.NoError(t, c.Send([]byte(tc.send)))
		assert.Equal(t, tc.want, recv(t, c), tc.send)
	}
}

// The frame is copied: the caller may reuse its buffer as soon as Send
// returns, even while the call still runs.
func TestSendCopiesFrame(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			<-release
			return in.Text, nil
		})
	})
	c := connect(t, srv)
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"text":"original"}}}`)
	require.NoError(t, c.Send(frame))
	copy(frame, make([]byte, len(frame))) // scribble over it
	close(release)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"original"}]}}`, recv(t, c))
}

// fakeServer records what a memory connection does to its session. On
// each frame it sends every message listed in the frame's place in
// answers, reusing one buffer, then blocks if block is set.
type fakeServer struct {
	answers []string
	info    transport.Info
	session *fakeSession
}

func (f *fakeServer) NewSession(info transport.Info, out transport.Sink) transport.Session {
	f.info = info
	f.session = &fakeSession{srv: f, out: out}
	return f.session
}

type fakeSession struct {
	srv  *fakeServer
	out  transport.Sink
	mu   sync.Mutex
	errs []error

	delivered, afterClose, closes atomic.Int32
	sent                          atomic.Int32
}

func (s *fakeSession) Deliver(ctx context.Context, frame []byte, reply transport.Sink) {
	if s.closes.Load() > 0 {
		s.afterClose.Add(1)
	}
	s.delivered.Add(1)
	buf := make([]byte, 0, 64)
	for _, a := range s.srv.answers {
		buf = append(buf[:0], a...)
		err := reply.Send(buf)
		s.mu.Lock()
		s.errs = append(s.errs, err)
		s.mu.Unlock()
		if err != nil {
			return
		}
		s.sent.Add(1)
		copy(buf, "XXXXXXXX") // the client must have copied it
	}
}

func (s *fakeSession) Close() { s.closes.Add(1) }

func (s *fakeSession) lastErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) == 0 {
		return nil
	}
	return s.errs[len(s.errs)-1]
}

func TestConnectInfo(t *testing.T) {
	f := &fakeServer{}
	memory.Connect(f).Close()
	assert.Equal(t, transport.Info{Name: "memory", Batches: true}, f.info)
	want := transport.Info{Name: "memory", Revision: "2026-07-28"}
	memory.ConnectInfo(f, want).Close()
	assert.Equal(t, want, f.info)
}

// After Close: what was received is still returned, in order, then
// ErrClosed; Send fails; the session was closed exactly once and saw no
// frame after it.
func TestClose(t *testing.T) {
	f := &fakeServer{answers: []string{`{"n":1}`, `{"n":2}`}}
	c := memory.Connect(f)
	require.NoError(t, c.Send([]byte(`{}`)))
	c.Close()
	c.Close() // idempotent
	assert.Equal(t, `{"n":1}`, recv(t, c))
	assert.Equal(t, `{"n":2}`, recv(t, c))
	_, err := c.Recv(context.Background())
	assert.ErrorIs(t, err, memory.ErrClosed)
	assert.ErrorIs(t, c.Send([]byte(`{}`)), memory.ErrClosed)
	assert.Equal(t, int32(1), f.session.closes.Load())
	assert.Equal(t, int32(1), f.session.delivered.Load())
	assert.Zero(t, f.session.afterClose.Load())
}

// A session blocked on a full inbox (a client that stopped reading) is
// released by Close, and its send fails with ErrClosed.
func TestCloseReleasesBlockedSend(t *testing.T) {
	f := &fakeServer{}
	for i := range memory.InboxSize + 1 {
		f.answers = append(f.answers, fmt.Sprintf(`{"n":%d}`, i))
	}
	c := memory.Connect(f)
	sendDone := make(chan error, 1)
	go func() { sendDone <- c.Send([]byte(`{}`)) }()
	require.Eventually(t, func() bool { return f.session.sent.Load() == memory.InboxSize },
		recvTimeout, time.Millisecond, "inbox filled")
	c.Close()
	select {
	case err := <-sendDone:
		require.NoError(t, err, "the frame itself was delivered")
	case <-time.After(recvTimeout):
		t.Fatal("Send stayed blocked after Close")
	}
	assert.ErrorIs(t, f.session.lastErr(), memory.ErrClosed)
	// What had been received is still there.
	assert.Equal(t, `{"n":0}`, recv(t, c))
}

func TestRecvContext(t *testing.T) {
	c := connect(t, newServer(t, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Recv(ctx)
	assert.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err = c.Recv(ctx) // nothing was asked: nothing comes
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	// A cancelled Recv loses nothing.
	require.NoError(t, c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, recv(t, c))

	// A Recv blocked in another goroutine ends with its context.
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Recv(ctx)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(recvTimeout):
		t.Fatal("Recv did not end with its context")
	}
}

// Concurrent Sends from many goroutines each get their own answer. 200
// calls fit in the executor's default 32 running + 256 queued, so none is
// refused as overloaded.
func TestConcurrentSend(t *testing.T) {
	const senders, each = 8, 25
	c := connect(t, newServer(t, nil))
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				id := g*each + i + 1
				assert.NoError(t, c.Send(fmt.Appendf(nil,
					`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"m%d"}}}`, id, id)))
			}
		})
	}
	got := map[string]bool{}
	for range senders * each {
		m := recv(t, c)
		require.False(t, got[m], "answered twice: %s", m)
		got[m] = true
	}
	wg.Wait()
	for id := 1; id <= senders*each; id++ {
		assert.True(t, got[fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"m%d"}]}}`, id, id)], "id %d", id)
	}
}

// Close cancels the calls in flight and nothing is received for them.
func TestCloseCancelsCalls(t *testing.T) {
	entered := make(chan struct{})
	cause := make(chan error, 1)
	srv := newServer(t, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			close(entered)
			<-ctx.Done()
			cause <- ctx.Err()
			return "too late", nil
		})
	})
	c := connect(t, srv)
	require.NoError(t, c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{}}}`)))
	<-entered
	c.Close()
	assert.ErrorIs(t, <-cause, context.Canceled)
	ctx, cancel := context.WithTimeout(context.Background(), recvTimeout)
	defer cancel()
	require.NoError(t, srv.Wait(ctx))
	_, err := c.Recv(context.Background())
	assert.ErrorIs(t, err, memory.ErrClosed)
}
