package stdio

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport"
)

// fakeServer stands in for the dispatcher. Its sessions answer:
//
//   - "echo": {"echo":<params>}, from a goroutine (or inline, see inline);
//   - "slow": {"slow":true} once barrier is closed, nothing if cancelled;
//   - "notify": a notification with the same params, through the out sink;
//   - "print": {"printed":true}, after printing a line to os.Stdout as
//     careless handler code does;
//   - anything undecodable: the decoder's error, as the dispatcher would.
type fakeServer struct {
	barrier chan struct{}
	inline  bool // answer echo inside Deliver, for deterministic order

	mu       sync.Mutex
	sessions []*fakeSession
}

func newFakeServer() *fakeServer { return &fakeServer{barrier: make(chan struct{})} }

func (f *fakeServer) NewSession(info transport.Info, out transport.Sink) transport.Session {
	s := &fakeSession{srv: f, info: info, out: out}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	f.mu.Lock()
	f.sessions = append(f.sessions, s)
	f.mu.Unlock()
	return s
}

// session returns the only session, failing the test if there is not one.
func (f *fakeServer) session(t testing.TB) *fakeSession {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Len(t, f.sessions, 1)
	return f.sessions[0]
}

type fakeSession struct {
	srv    *fakeServer
	info   transport.Info
	out    transport.Sink
	ctx    context.Context
	cancel context.CancelFunc

	// mu makes Close a barrier the way the dispatcher's is: sends and
	// spawns hold it shared, Close exclusively; no send after Close.
	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup

	delivered  atomic.Int32
	closeCalls atomic.Int32
	cancelled  atomic.Int32 // slow calls that ended by cancellation
}

func (s *fakeSession) Deliver(ctx context.Context, frame []byte, reply transport.Sink) {
	s.delivered.Add(1)
	msg, err := jsonrpc.Decode(frame, jsonrpc.Limits{})
	if err != nil {
		if !msg.ID.IsAbsent() {
			s.send(reply, jsonrpc.AppendError(nil, msg.ID, err))
		}
		return
	}
	switch msg.Method {
	case "echo":
		params := msg.Params
		if params == nil {
			params = []byte("null")
		}
		answer := jsonrpc.AppendResponse(nil, msg.ID, fmt.Appendf(nil, `{"echo":%s}`, params))
		if s.srv.inline {
			s.send(reply, answer)
			return
		}
		s.spawn(func() { s.send(reply, answer) })
	case "slow":
		s.spawn(func() {
			select {
			case <-s.srv.barrier:
				s.send(reply, jsonrpc.AppendResponse(nil, msg.ID, []byte(`{"slow":true}`)))
			case <-ctx.Done():
				s.cancelled.Add(1)
			case <-s.ctx.Done():
				s.cancelled.Add(1)
			}
		})
	case "notify":
		s.send(s.out, jsonrpc.AppendNotification(nil, "notifications/message", msg.Params))
	case "print":
		fmt.Println("stray line from a handler")
		s.send(reply, jsonrpc.AppendResponse(nil, msg.ID, []byte(`{"printed":true}`)))
	}
}

func (s *fakeSession) spawn(fn func()) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
}

func (s *fakeSession) send(sink transport.Sink, msg []byte) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.closed {
		_ = sink.Send(msg)
	}
}

func (s *fakeSession) Close() {
	s.closeCalls.Add(1)
	s.cancel()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
}

// request returns a request line body (no newline).
func request(id int, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

// harness runs Serve over io.Pipes, with the output split into lines.
type harness struct {
	srv   *fakeServer
	in    *io.PipeWriter
	outR  *io.PipeReader
	lines chan string
	done  chan error
}

func startServe(t *testing.T, ctx context.Context, srv *fakeServer, opts *Options) *harness {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{srv: srv, in: inW, outR: outR, lines: make(chan string, 1024), done: make(chan error, 1)}
	go func() { h.done <- Serve(ctx, srv, inR, outW, opts) }()
	go func() {
		br := bufio.NewReaderSize(outR, 1<<16)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				close(h.lines)
				return
			}
			h.lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		close(srv.barrierOnce())
	})
	return h
}

// barrierOnce returns the barrier if it is still open, or a fresh channel
// to close, so cleanups can release slow calls without double closes.
func (f *fakeServer) barrierOnce() chan struct{} {
	select {
	case <-f.barrier:
		return make(chan struct{})
	default:
		return f.barrier
	}
}

func (h *harness) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(h.in, line+"\n")
	require.NoError(t, err)
}

func (h *harness) recv(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-h.lines:
		require.True(t, ok, "output closed")
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("no output line within 5s")
		return ""
	}
}

func (h *harness) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case err := <-h.done:
		return err
	case <-time.After(within):
		t.Fatalf("Serve did not return within %v", within)
		return nil
	}
}

// eventually polls cond for up to 5s.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	require.Eventually(t, cond, 5*time.Second, time.Millisecond, what)
}

// splitLines splits output into lines, requiring it to end with '\n'.
func splitLines(t *testing.T, out []byte) []string {
	t.Helper()
	if len(out) == 0 {
		return nil
	}
	require.Equal(t, byte('\n'), out[len(out)-1], "output must end with a newline")
	return strings.Split(string(bytes.TrimSuffix(out, []byte("\n"))), "\n")
}
