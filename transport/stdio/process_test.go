package stdio

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spawnChild starts the test binary as a stdio server child (see runChild).
func spawnChild(t *testing.T, ctx context.Context, mode string) *Process {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	p, err := Start(ctx, cmd)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p
}

// recvLine reads one line, bounded generously (a failure bound only).
func recvLine(t *testing.T, p *Process) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	line, err := p.RecvContext(ctx)
	require.NoError(t, err, "stderr:\n%s", p.Stderr())
	return string(line)
}

func waitChild(t *testing.T, p *Process) (int, error) {
	t.Helper()
	select {
	case <-p.Exited():
		return p.Wait()
	case <-time.After(20 * time.Second):
		t.Fatalf("child did not exit; stderr:\n%s", p.Stderr())
		return 0, nil
	}
}

// ServeProcess over the real descriptors 0 and 1: framing rules hold, only
// protocol lines reach stdout (logs go to stderr), and closing stdin with a
// call in flight ends the process cleanly with exit code 0 and no answer
// for that call.
func TestServeProcessLifecycle(t *testing.T) {
	p := spawnChild(t, context.Background(), "serve")
	ctx := context.Background()
	require.NoError(t, p.WriteRaw(ctx, []byte("\xef\xbb\xbf"+`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"t":"é"}}`+"\r\n\n")))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"echo":{"t":"\u00e9"}}}`, recvLine(t, p))

	require.NoError(t, p.Send([]byte(strings.Repeat(" ", 65))))
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message exceeds max_line_bytes (64)"}}`, recvLine(t, p))

	// The slow call is delivered before the echo after it is answered.
	require.NoError(t, p.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"slow"}`)))
	require.NoError(t, p.Send([]byte(`{"jsonrpc":"2.0","id":3,"method":"echo"}`)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"echo":null}}`, recvLine(t, p))

	require.NoError(t, p.CloseStdin())
	code, err := waitChild(t, p)
	require.NoError(t, err)
	assert.Equal(t, 0, code, "stderr:\n%s", p.Stderr())
	_, err = p.Recv()
	assert.ErrorIs(t, err, io.EOF, "nothing after the last answer, in particular no answer to the slow call")
	assert.Contains(t, string(p.Stderr()), `msg="stdio: input line too long, discarded" max_line_bytes=64`)
}

// While ServeProcess serves, what the program prints to os.Stdout goes to
// stderr, never between the protocol lines; stdout is the program's again
// once it returns.
func TestServeProcessKeepsStrayOutputOffTheProtocol(t *testing.T) {
	p := spawnChild(t, context.Background(), "print")
	require.NoError(t, p.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"print"}`)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"printed":true}}`, recvLine(t, p))
	require.NoError(t, p.CloseStdin())
	code, err := waitChild(t, p)
	require.NoError(t, err)
	assert.Equal(t, 0, code, "stderr:\n%s", p.Stderr())
	assert.Equal(t, "served", recvLine(t, p))
	assert.Contains(t, string(p.Stderr()), "stray line from a handler")
}

func TestProcess(t *testing.T) {
	t.Run("Send refuses a newline", func(t *testing.T) {
		p := spawnChild(t, context.Background(), "serve")
		assert.EqualError(t, p.Send([]byte("{}\n{}")), "stdio: a message must not contain a newline")
	})
	t.Run("RecvContext ends with its context and the stream goes on", func(t *testing.T) {
		p := spawnChild(t, context.Background(), "serve")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := p.RecvContext(ctx)
		assert.ErrorIs(t, err, context.Canceled)
		ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		_, err = p.RecvContext(ctx) // nothing was asked: nothing comes
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, p.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"echo":null}}`, recvLine(t, p))
	})
	t.Run("Close kills the child", func(t *testing.T) {
		p := spawnChild(t, context.Background(), "serve")
		require.NoError(t, p.Close())
		code, err := waitChild(t, p)
		assert.Equal(t, -1, code)
		assert.EqualError(t, err, "signal: killed")
		require.NoError(t, p.Close(), "Close is idempotent")
		_, err = p.Recv()
		assert.Error(t, err)
	})
	t.Run("the end of Start's context kills the child", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		p := spawnChild(t, ctx, "serve")
		cancel()
		code, err := waitChild(t, p)
		assert.Equal(t, -1, code)
		assert.Error(t, err)
	})
	t.Run("Start refuses a command with its own stdin or stdout", func(t *testing.T) {
		cmd := exec.Command(os.Args[0])
		cmd.Stdout = io.Discard
		_, err := Start(context.Background(), cmd)
		assert.EqualError(t, err, "stdio: Start needs a command without Stdin or Stdout")
	})
	t.Run("a command's own Stderr gets the child's stderr", func(t *testing.T) {
		var stderr strings.Builder
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=serve")
		cmd.Stderr = &stderr
		p, err := Start(context.Background(), cmd)
		require.NoError(t, err)
		defer p.Close()
		require.NoError(t, p.Send([]byte(strings.Repeat(" ", 65))))
		recvLine(t, p)
		require.NoError(t, p.CloseStdin())
		_, err = waitChild(t, p)
		require.NoError(t, err)
		assert.Contains(t, stderr.String(), "stdio: input line too long, discarded")
		assert.Empty(t, p.Stderr(), "the Process kept none of it")
	})
	t.Run("Spawn of a missing program", func(t *testing.T) {
		_, err := Spawn(context.Background(), "/nonexistent/polymcp-server")
		assert.ErrorContains(t, err, "stdio: start /nonexistent/polymcp-server")
	})
}

// Messages from many goroutines reach the child whole, one per line, the
// large ones (written apart from their '\n') as well as the small.
func TestProcessSendConcurrent(t *testing.T) {
	p, err := Start(context.Background(), exec.Command("cat"))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	sizes := []int{10, separateNewline - 1, separateNewline, 100 << 10}
	const each = 8
	errs := make(chan error, len(sizes)*each)
	for i, n := range sizes {
		for range each {
			go func() { errs <- p.Send([]byte(strings.Repeat(string(rune('a'+i)), n))) }()
		}
	}
	lines := make(chan string, len(sizes)*each)
	go func() { // read as they come: a full pipe holds the senders up
		for range len(sizes) * each {
			line, err := p.Recv()
			if err != nil {
				break
			}
			lines <- string(line)
		}
		close(lines)
	}()
	for range len(sizes) * each {
		require.NoError(t, <-errs)
	}
	got := map[int]int{}
	for line := range lines {
		require.NotEmpty(t, line)
		require.Equal(t, strings.Repeat(line[:1], len(line)), line, "a line mixes messages")
		got[len(line)]++
	}
	for _, n := range sizes {
		assert.Equal(t, each, got[n], "messages of %d bytes", n)
	}
}
