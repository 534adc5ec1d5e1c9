package everything_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/stdio"
)

// The stdio rules of the transport, end to end against "polymcp everything":
// literal bytes in, literal bytes out.

const (
	initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`
	pingLine = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	pingOK   = `{"jsonrpc":"2.0","id":1,"result":{}}`
)

// recvTimeout bounds one read (a failure bound only).
const recvTimeout = 20 * time.Second

func recv(t *testing.T, p *stdio.Process) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), recvTimeout)
	defer cancel()
	line, err := p.RecvContext(ctx)
	require.NoError(t, err, "stderr:\n%s", p.Stderr())
	return string(line)
}

func write(t *testing.T, p *stdio.Process, raw string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), recvTimeout)
	defer cancel()
	require.NoError(t, p.WriteRaw(ctx, []byte(raw)))
}

// initialize opens a 2025-06-18 session.
func initialize(t *testing.T, p *stdio.Process) {
	t.Helper()
	write(t, p, initLine+"\n")
	require.Contains(t, recv(t, p), `"id":0,"result":{"protocolVersion":"2025-06-18"`)
	write(t, p, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
}

func TestStdioFraming(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
	}{
		{"a UTF-8 byte order mark before the first line is ignored", "\xef\xbb\xbf" + pingLine + "\n", pingOK},
		{"CRLF line endings", pingLine + "\r\n", pingOK},
		{"blank lines are skipped", "\n\r\n" + pingLine + "\n", pingOK},
		{"a parse error is answered with id null", "{\"jsonrpc\":\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: unexpected end of input"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := spawn(t)
			write(t, p, tc.in)
			assert.Equal(t, tc.out, recv(t, p))
			// The stream goes on after it.
			write(t, p, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
			assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, recv(t, p))
			assert.Equal(t, 0, stop(t, p))
		})
	}
}

// paddedPing returns a ping whose line (without its '\n') is exactly n bytes.
func paddedPing(id, n int) string {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"pad":"`, id)
	tail := `"}}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

func TestStdioMaxLineBytes(t *testing.T) {
	p := spawn(t)
	write(t, p, paddedPing(1, stdio.DefaultMaxLineBytes)+"\n")
	assert.Equal(t, pingOK, recv(t, p), "a line of exactly max_line_bytes is served")
	write(t, p, paddedPing(2, stdio.DefaultMaxLineBytes+1)+"\n")
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message exceeds max_line_bytes (2000000)"}}`, recv(t, p))
	write(t, p, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, recv(t, p), "the line after an oversize one is served")
	assert.Equal(t, 0, stop(t, p))
}

func TestStdioOutputIsASCII(t *testing.T) {
	p := spawn(t)
	initialize(t, p)
	write(t, p, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo ☃ 😀 \u2028"}}}`+"\n")
	got := recv(t, p)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"h\u00e9llo \u2603 \ud83d\ude00 \u2028"}]}}`, got)
	for i := range len(got) {
		require.Less(t, got[i], byte(0x80), "byte %d of %q", i, got)
	}
	var msg struct {
		Result struct{ Content []struct{ Text string } }
	}
	require.NoError(t, json.Unmarshal([]byte(got), &msg))
	assert.Equal(t, "héllo ☃ 😀 \u2028", msg.Result.Content[0].Text, "the escapes decode to the text sent")
	assert.Equal(t, 0, stop(t, p))
}

func TestStdioPipelined(t *testing.T) {
	const n = 200
	p := spawn(t)
	initialize(t, p)
	var batch bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"m%d"}}}`+"\n", i, i)
	}
	// All 200 lines in one write, before reading any answer.
	sent := make(chan error, 1)
	go func() { sent <- p.WriteRaw(context.Background(), batch.Bytes()) }()
	seen := map[int]bool{}
	for range n {
		line := recv(t, p)
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg), "line %q", line)
		require.False(t, seen[msg.ID], "id %d answered twice", msg.ID)
		seen[msg.ID] = true
		require.Len(t, msg.Result.Content, 1, "line %q", line)
		assert.Equal(t, fmt.Sprintf("m%d", msg.ID), msg.Result.Content[0].Text)
	}
	require.NoError(t, <-sent)
	assert.Len(t, seen, n)
	assert.Equal(t, 0, stop(t, p))
}

// TestStdioCloseStdin closes stdin with a call in flight: the server exits
// with status 0, and writes nothing for that call.
func TestStdioCloseStdin(t *testing.T) {
	p := spawn(t)
	initialize(t, p)
	write(t, p, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000},"_meta":{"progressToken":"s"}}}`+"\n")
	// A ping answered after the sleep was read shows the sleep is in flight.
	write(t, p, pingLine+"\n")
	assert.Equal(t, pingOK, recv(t, p))
	require.NoError(t, p.CloseStdin())
	code, err := waitExit(p)
	require.NoError(t, err)
	assert.Equal(t, 0, code, "stderr:\n%s", p.Stderr())
	for {
		ctx, cancel := context.WithTimeout(context.Background(), recvTimeout)
		line, err := p.RecvContext(ctx)
		cancel()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		assert.NotContains(t, string(line), `"id":9`, "an answer for the call cancelled by the end of input")
	}
}

func waitExit(p *stdio.Process) (int, error) {
	select {
	case <-p.Exited():
		return p.Wait()
	case <-time.After(stopTimeout):
		return -1, fmt.Errorf("no exit within %s of stdin closing", stopTimeout)
	}
}
