package stdio

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport"
)

// serveAll serves in (read to EOF) with a fake server answering inline,
// and returns the output and the server.
func serveAll(t *testing.T, in string, opts *Options) (string, *fakeServer) {
	t.Helper()
	srv := newFakeServer()
	srv.inline = true
	var out bytes.Buffer
	require.NoError(t, Serve(context.Background(), srv, strings.NewReader(in), &out, opts))
	return out.String(), srv
}

func TestServeFraming(t *testing.T) {
	const (
		req1 = `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}}`
		req2 = `{"jsonrpc":"2.0","id":2,"method":"echo","params":{"n":2}}`
		ans1 = `{"jsonrpc":"2.0","id":1,"result":{"echo":{"n":1}}}` + "\n"
		ans2 = `{"jsonrpc":"2.0","id":2,"result":{"echo":{"n":2}}}` + "\n"
		// The answer to a line over MaxLineBytes (100 here).
		tooLong = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message exceeds max_line_bytes (100)"}}` + "\n"
	)
	long := `{"jsonrpc":"2.0","id":9,"method":"echo","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`
	for _, tc := range []struct {
		name, in, want string
		delivered      int32
	}{
		{"LF", req1 + "\n" + req2 + "\n", ans1 + ans2, 2},
		{"last line without newline", req1 + "\n" + req2, ans1 + ans2, 2},
		{"BOM before the first line is ignored", "\xef\xbb\xbf" + req1 + "\n" + req2 + "\n", ans1 + ans2, 2},
		{"BOM before a later line is data", req1 + "\n\xef\xbb\xbf" + req2 + "\n", ans1 +
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid byte 0xef at offset 0"}}` + "\n", 2},
		{"CRLF", req1 + "\r\n" + req2 + "\r\n", ans1 + ans2, 2},
		{"blank lines are ignored", "\n\r\n \t\n" + req1 + "\n\n\r\n" + req2 + "\n\n", ans1 + ans2, 2},
		{"too long line answered before decoding, next served", long + "\n" + req1 + "\n", tooLong + ans1, 1},
		{"too long CRLF line", long + "\r\n" + req1 + "\r\n", tooLong + ans1, 1},
		{"too long last line", req1 + "\n" + long, ans1 + tooLong, 1},
		{"two too long lines", long + "\n" + long + "\n" + req2 + "\n", tooLong + tooLong + ans2, 1},
		{"non-ASCII answered as escapes", `{"jsonrpc":"2.0","id":3,"method":"echo","params":{"t":"é€😀"}}` + "\n",
			`{"jsonrpc":"2.0","id":3,"result":{"echo":{"t":"\u00e9\u20ac\ud83d\ude00"}}}` + "\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, srv := serveAll(t, tc.in, &Options{MaxLineBytes: 100})
			assert.Equal(t, tc.want, out)
			s := srv.session(t)
			assert.Equal(t, tc.delivered, s.delivered.Load(), "frames given to the session")
			assert.Equal(t, int32(1), s.closeCalls.Load())
		})
	}
}

// The default limit is 2,000,000 bytes, line ending excluded.
func TestServeDefaultMaxLineBytes(t *testing.T) {
	line := func(id, n int) string {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":{"pad":"`, id)
		return head + strings.Repeat("x", n-len(head)-3) + `"}}`
	}
	require.Len(t, line(1, DefaultMaxLineBytes), DefaultMaxLineBytes)
	in := line(1, DefaultMaxLineBytes) + "\r\n" + line(2, DefaultMaxLineBytes+1) + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"echo"}` + "\n"
	out, _ := serveAll(t, in, nil)
	lines := splitLines(t, []byte(out))
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":1,"result":{"echo":{"pad":"xxx`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message exceeds max_line_bytes (2000000)"}}`, lines[1])
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"echo":null}}`, lines[2])
}

// Stdout carries protocol lines only; the transport's own diagnostics go
// to its logger.
func TestServeLogsToLogger(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	in := strings.Repeat("x", 100) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"echo"}` + "\n"
	out, _ := serveAll(t, in, &Options{MaxLineBytes: 50, Logger: logger})
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message exceeds max_line_bytes (50)"}}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"result":{"echo":null}}`+"\n", out)
	assert.Contains(t, logs.String(), `msg="stdio: input line too long, discarded" max_line_bytes=50`)
}

// End of input closes the session: calls in flight are cancelled, nothing
// is written for them, and Serve returns nil.
func TestServeEOFCancelsInFlight(t *testing.T) {
	srv := newFakeServer()
	h := startServe(t, context.Background(), srv, nil)
	h.send(t, request(1, "slow", ""))
	h.send(t, request(2, "echo", `{"fast":true}`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"echo":{"fast":true}}}`, h.recv(t))

	require.NoError(t, h.in.Close())
	require.NoError(t, h.wait(t, 10*time.Second))
	s := srv.session(t)
	assert.Equal(t, int32(1), s.cancelled.Load(), "the slow call's context was cancelled")
	// Release the slow call: it must not answer after Close.
	close(srv.barrierOnce())
	h.outR.Close()
	for l := range h.lines {
		t.Errorf("unexpected output after close: %s", l)
	}
}

// Cancelling ctx stops Serve too, interrupting a blocked read of an
// *os.File and clearing the deadline it used for that.
func TestServeContextCancel(t *testing.T) {
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	defer inR.Close()
	defer inW.Close()
	srv := newFakeServer()
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, inR, &out, nil) }()

	_, err = io.WriteString(inW, request(1, "slow", "")+"\n")
	require.NoError(t, err)
	eventually(t, func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		return len(srv.sessions) == 1 && srv.sessions[0].delivered.Load() == 1
	}, "slow call delivered")
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	assert.Equal(t, int32(1), srv.session(t).cancelled.Load())
	assert.Empty(t, out.String())

	// The read deadline was cleared: in is usable as before.
	_, err = io.WriteString(inW, "after\n")
	require.NoError(t, err)
	buf := make([]byte, 6)
	_, err = io.ReadFull(inR, buf)
	require.NoError(t, err)
	assert.Equal(t, "after\n", string(buf))
}

// A write blocked for WriteTimeout is terminal: Serve closes the session
// and says why, whether the output takes deadlines (a pipe in the poller)
// or not (io.Pipe, timed by a watchdog).
func TestServeWriteTimeout(t *testing.T) {
	outputs := map[string]func(t *testing.T) io.Writer{
		"os.Pipe": func(t *testing.T) io.Writer {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			t.Cleanup(func() { r.Close(); w.Close() })
			return w
		},
		"io.Pipe": func(t *testing.T) io.Writer {
			r, w := io.Pipe()
			t.Cleanup(func() { r.Close() })
			return w
		},
	}
	for name, mk := range outputs {
		t.Run(name, func(t *testing.T) {
			inR, inW := io.Pipe()
			defer inW.Close()
			srv := newFakeServer()
			done := make(chan error, 1)
			go func() {
				done <- Serve(context.Background(), srv, inR, mk(t), &Options{WriteTimeout: 10 * time.Millisecond})
			}()
			// Bigger than a pipe's buffer, so the write blocks in any case.
			_, err := io.WriteString(inW, request(1, "echo", `{"pad":"`+strings.Repeat("z", 256<<10)+`"}`)+"\n")
			require.NoError(t, err)
			var serveErr error
			select {
			case serveErr = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not stop on a blocked write")
			}
			require.ErrorIs(t, serveErr, ErrWriteTimeout)
			assert.EqualError(t, serveErr, "stdio: write timed out; the peer stopped reading (write_timeout 10ms)")
			assert.Equal(t, int32(1), srv.session(t).closeCalls.Load())
		})
	}
}

// Answers sent from other goroutines through the reader's sink, at any
// point of its loop (as a C ABI host's deferred answers are), are never
// left held: each of many one-at-a-time calls is answered, where an answer
// held just after the reader's last flush would wait for input that never
// comes. Pipelined bursts are answered whole too.
func TestServeLateAnswersAreNeverStranded(t *testing.T) {
	srv := newFakeServer()
	h := startServe(t, context.Background(), srv, nil)
	for i := range 2000 {
		h.send(t, request(i, "echo", `{"i":1}`))
		require.JSONEq(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"echo":{"i":1}}}`, i), h.recv(t))
	}
	const burst = 300
	var b strings.Builder
	for i := range burst {
		b.WriteString(request(10000+i, "echo", `{}`) + "\n")
	}
	_, err := io.WriteString(h.in, b.String())
	require.NoError(t, err)
	seen := map[string]bool{}
	for range burst {
		seen[h.recv(t)] = true
	}
	assert.Len(t, seen, burst)
}

// The reader's sink takes late answers (transport.Deferrable).
var _ transport.Deferrable = (*reader)(nil)
