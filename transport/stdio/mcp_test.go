package stdio_test

// These tests serve a real mcp.Server; mcp imports this package, hence the
// external test package.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/stdio"
)

const (
	initializeLine  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
)

type textIn struct {
	Text string `json:"text"`
}

// newMCPServer returns a server with tool echo and the extra tools given.
func newMCPServer(t testing.TB, extra func(*mcp.Server)) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Request, in textIn) (string, error) {
		return in.Text, nil
	})
	if extra != nil {
		extra(srv)
	}
	t.Cleanup(srv.Close)
	return srv
}

// conn is Serve over io.Pipes, seen from the client.
type conn struct {
	in   *io.PipeWriter
	outW *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func serve(t testing.TB, srv *mcp.Server) *conn {
	return serveWith(t, context.Background(), srv, &stdio.Options{})
}

// serveWith is serve with options (its logger discarded) and a context.
func serveWith(t testing.TB, ctx context.Context, srv *mcp.Server, opts *stdio.Options) *conn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conn{in: inW, outW: outW, out: bufio.NewReaderSize(outR, 1<<16), done: make(chan error, 1)}
	o := *opts
	o.Logger = slog.New(slog.DiscardHandler)
	go func() { c.done <- stdio.Serve(ctx, srv, inR, outW, &o) }()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
	})
	return c
}

func (c *conn) write(t testing.TB, s string) {
	t.Helper()
	_, err := io.WriteString(c.in, s)
	require.NoError(t, err)
}

// readLine returns one output line without its '\n'. The pipe has no
// deadline; a hang is caught by the test binary's timeout.
func (c *conn) readLine(t testing.TB) string {
	t.Helper()
	l, err := c.out.ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSuffix(l, "\n")
}

func (c *conn) initialize(t testing.TB) {
	t.Helper()
	c.write(t, initializeLine)
	require.Contains(t, c.readLine(t), `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"`)
	c.write(t, initializedLine)
}

func (c *conn) wait(t testing.TB) error {
	t.Helper()
	select {
	case err := <-c.done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

func callLine(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", id, tool, args)
}

func textResult(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`, id, text)
}

// 200 pipelined calls in one write give 200 distinct, decodable lines
// carrying every id once.
func TestPipelinedCalls(t *testing.T) {
	c := serve(t, newMCPServer(t, nil))
	c.initialize(t)
	var batch strings.Builder
	for id := 1; id <= 200; id++ {
		batch.WriteString(callLine(id, "echo", fmt.Sprintf(`{"text":"m%d"}`, id)))
	}
	go c.write(t, batch.String()) // the answers flow while it is written

	seen := map[int64]string{}
	for range 200 {
		line := c.readLine(t)
		msg, derr := jsonrpc.Decode([]byte(line), jsonrpc.Limits{})
		require.Nil(t, derr, line)
		require.Equal(t, jsonrpc.KindResponse, msg.Kind, line)
		id, ok := msg.ID.Int()
		require.True(t, ok, line)
		require.NotContains(t, seen, id, "id %d answered twice", id)
		seen[id] = line
	}
	for id := 1; id <= 200; id++ {
		assert.Equal(t, textResult(id, fmt.Sprintf("m%d", id)), seen[int64(id)])
	}
}

// A slow call never delays a fast one: the slow tool only returns once
// the fast answer has been read, so a transport that answered in order
// would hang here. Quick calls run on the goroutine reading stdin; the
// slow one gives up reading when its inline budget runs out, when it says
// it is about to wait (Detach), or never holds it (a negative budget).
// The budget timer is armed by one call and checks on whichever runs when
// it fires: warm quick calls before the slow one have it fire during the
// slow call (pause 0), or find no call and disarm first (a long pause).
func TestSlowCallDoesNotDelayFast(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget time.Duration
		detach bool
		warm   int
		pause  time.Duration
	}{
		{"budget runs out", 0, false, 0, 0},
		{"short budget", time.Microsecond, false, 0, 0},
		{"budget armed by an earlier call", 20 * time.Millisecond, false, 3, 0},
		{"budget armed again after idling", 20 * time.Millisecond, false, 3, 60 * time.Millisecond},
		{"detach", time.Hour, true, 0, 0},
		{"detach with budget", 0, true, 0, 0},
		{"executor only", -1, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := newMCPServer(t, func(s *mcp.Server) {
				mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
					if tc.detach {
						req.Detach()
					}
					select {
					case <-release:
						return "slow done", nil
					case <-ctx.Done():
						return "", ctx.Err()
					}
				})
			})
			c := serveWith(t, context.Background(), srv, &stdio.Options{InlineBudget: tc.budget})
			c.initialize(t)
			for id := 10; id < 10+tc.warm; id++ {
				c.write(t, callLine(id, "echo", `{"text":"warm"}`))
				assert.Equal(t, textResult(id, "warm"), c.readLine(t))
			}
			time.Sleep(tc.pause)
			c.write(t, callLine(1, "slow", `{}`))
			for id := 2; id <= 4; id++ {
				c.write(t, callLine(id, "echo", `{"text":"fast"}`))
				assert.Equal(t, textResult(id, "fast"), c.readLine(t))
			}
			close(release)
			assert.Equal(t, textResult(1, "slow done"), c.readLine(t))
			// The goroutine that ran it reads again, or waits as a spare.
			c.write(t, callLine(5, "echo", `{"text":"after"}`))
			assert.Equal(t, textResult(5, "after"), c.readLine(t))
		})
	}
}

// Cancelling Serve's context while a handler holds the reading goroutine
// (a budget that never runs out, no Detach) still ends Serve at once: the
// handler is cancelled and its late answer is not written.
func TestStopWhileCallRunsInline(t *testing.T) {
	entered := make(chan struct{})
	srv := newMCPServer(t, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			close(entered)
			<-ctx.Done()
			return "too late", nil
		})
	})
	ctx, cancel := context.WithCancel(context.Background())
	c := serveWith(t, ctx, srv, &stdio.Options{InlineBudget: time.Hour})
	c.initialize(t)
	c.write(t, callLine(1, "block", `{}`))
	<-entered
	cancel()
	require.NoError(t, c.wait(t))

	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	require.NoError(t, srv.Wait(wctx))
	c.outW.Close()
	rest, err := io.ReadAll(c.out)
	require.NoError(t, err)
	assert.Empty(t, string(rest), "nothing written for the cancelled call")
}

// Closed stdin cancels the calls in flight; even a handler that answers
// after its cancellation gets nothing written, and Serve returns nil.
func TestClosedStdinCancelsCalls(t *testing.T) {
	entered := make(chan struct{})
	cause := make(chan error, 1)
	srv := newMCPServer(t, func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			close(entered)
			<-ctx.Done()
			cause <- ctx.Err()
			return "too late", nil
		})
	})
	c := serve(t, srv)
	c.initialize(t)
	c.write(t, callLine(1, "block", `{}`))
	<-entered
	require.NoError(t, c.in.Close())
	require.NoError(t, c.wait(t))
	assert.ErrorIs(t, <-cause, context.Canceled)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, srv.Wait(ctx), "the handler and its answer attempt are over")
	c.outW.Close()
	rest, err := io.ReadAll(c.out)
	require.NoError(t, err)
	assert.Empty(t, string(rest), "nothing written for the cancelled call")
}

// Output is pure ASCII whatever the results hold: \u escapes, surrogate
// pairs for characters outside the BMP, one message per line.
func TestOutputIsASCII(t *testing.T) {
	c := serve(t, newMCPServer(t, nil))
	c.initialize(t)
	for _, tc := range []struct{ name, args, text string }{
		{"Latin-1", `{"text":"héllo wörld"}`, `h\u00e9llo w\u00f6rld`},
		{"CJK", `{"text":"日本"}`, `\u65e5\u672c`},
		{"astral: surrogate pair", `{"text":"😀𝄞"}`, `\ud83d\ude00\ud834\udd1e`},
		{"line and paragraph separators", "{\"text\":\"a\u2028b\u2029c\"}", `a\u2028b\u2029c`},
		{"escaped newline stays escaped", `{"text":"a\nb"}`, `a\nb`},
		{"escapes in the request", `{"text":"\u00e9\ud83d\ude00"}`, `\u00e9\ud83d\ude00`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.write(t, callLine(7, "echo", tc.args))
			line := c.readLine(t)
			assert.Equal(t, textResult(7, tc.text), line)
			for i := range len(line) {
				require.Less(t, line[i], byte(0x80), "byte %d of %q", i, line)
			}
		})
	}
}

// The modern revision works over stdio with no handshake: each request
// carries its version and capabilities in _meta.
func TestModernRequest(t *testing.T) {
	c := serve(t, newMCPServer(t, nil))
	c.write(t, `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"ü"},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n")
	assert.Equal(t, `{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete",`+
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"stdio-test","version":"1"}},`+
		`"content":[{"type":"text","text":"\u00fc"}]}}`, c.readLine(t))
}

// BenchmarkServeEcho measures pipelined tools/call echo through Serve over
// io.Pipe with a real server (framing, dispatch, executor, writer), with up
// to 64 calls in flight, each with its own id.
func BenchmarkServeEcho(b *testing.B) {
	const window = 64
	c := serve(b, newMCPServer(b, nil))
	c.initialize(b)
	credits := make(chan struct{}, window)
	for range window {
		credits <- struct{}{}
	}
	errs := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		var line []byte
		for id := range b.N {
			<-credits
			line = append(line[:0], `{"jsonrpc":"2.0","id":`...)
			line = strconv.AppendInt(line, int64(id+1), 10)
			line = append(line, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`+"\n"...)
			if _, err := c.in.Write(line); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	for range b.N {
		l, err := c.out.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.HasSuffix(l, []byte(`,"result":{"content":[{"type":"text","text":"hello"}]}}`+"\n")) {
			b.Fatalf("unexpected answer %s", l)
		}
		credits <- struct{}{}
	}
	b.StopTimer()
	require.NoError(b, <-errs)
}
