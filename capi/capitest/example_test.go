package capitest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/stdio"
)

// failAfter bounds each wait; a healthy run never comes near it.
const failAfter = 20 * time.Second

// exchange is one step of a transcript: a message to send (or none) and
// the answer expected next (or none).
type exchange struct{ send, want string }

// TestExampleStdio holds the C example to the stdio rules: the lifecycle,
// the catalogue, echo, sleep with and without cancellation, 200 pipelined
// calls, and a clean exit 0 at end of input; served by the library's own
// reader, and pumped from the example's poll loop.
func TestExampleStdio(t *testing.T) {
	ready(t)
	for _, args := range [][]string{nil, {"--pump"}} {
		t.Run(strings.Join(append([]string{"stdio"}, args...), " "), func(t *testing.T) { exampleStdio(t, args) })
	}
}

// exampleStdio runs the example's stdio conversation, args given to it
// (--pump: the example's own poll loop reads stdin through the library).
func exampleStdio(t *testing.T, args []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*failAfter)
	defer cancel()
	p, err := stdio.Spawn(ctx, example, args...)
	require.NoError(t, err)
	defer p.Close()

	for _, ex := range []exchange{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"capitest","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"polymcp-c-example","version":"1.0.0"}}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[` +
				`{"name":"echo","description":"Returns its text argument as one text item","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},` +
				`{"name":"sleep","description":"Waits ms milliseconds, then returns \"slept\"","inputSchema":{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}}]}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo \"q\" \\ \u2028"}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"héllo \"q\" \\ \u2028"}]}}`},
		// Escaped quotes after runs of backslashes, text not the last member.
		{`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"arguments":{"text":"a\"b\\\"c\\","x":"\\"},"name":"echo"}}`,
			`{"jsonrpc":"2.0","id":31,"result":{"content":[{"type":"text","text":"a\"b\\\"c\\"}]}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"missing required argument \"text\""}],"isError":true}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":20}}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"slept"}]}}`},
		// A cancelled sleep never answers: the next answer is the echo's.
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600000}}}`, ``},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`, ``},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"after"}]}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"unknown tool: nope"}}`},
	} {
		if ex.send != "" {
			require.NoError(t, p.Send([]byte(ex.send)))
		}
		if ex.want != "" {
			assert.JSONEq(t, ex.want, recv(ctx, t, p), "answer to %s", ex.send)
		}
	}

	const pipelined = 200
	for i := range pipelined {
		require.NoError(t, p.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"m%d"}}}`, 1000+i, i)))
	}
	want := map[string]bool{}
	for i := range pipelined {
		want[fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"m%d"}]}}`, 1000+i, i)] = true
	}
	for range pipelined {
		got := recv(ctx, t, p)
		require.True(t, want[got], "unexpected or repeated answer %s", got)
		delete(want, got)
	}

	require.NoError(t, p.CloseStdin())
	select {
	case <-p.Exited():
	case <-time.After(failAfter):
		t.Fatalf("no exit after end of input; stderr:\n%s", p.Stderr())
	}
	code, err := p.Wait()
	require.NoError(t, err)
	assert.Equal(t, 0, code, "exit status; stderr:\n%s", p.Stderr())
}

func recv(ctx context.Context, t *testing.T, p *stdio.Process) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, failAfter)
	defer cancel()
	msg, err := p.RecvContext(ctx)
	require.NoError(t, err, "stderr:\n%s", p.Stderr())
	return string(msg)
}

// TestExampleHTTP: the C example answers over Streamable HTTP, and exits 0
// when its stdin ends.
func TestExampleHTTP(t *testing.T) {
	ready(t)
	cmd := exec.Command(example, "--http", "127.0.0.1:0")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	require.True(t, lines.Scan(), "no line on stderr")
	url, ok := strings.CutPrefix(lines.Text(), "echo_server: serving ")
	require.True(t, ok, lines.Text())
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"over http"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"} {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: failAfter}
	resp, err := client.Do(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",`+
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"polymcp-c-example","version":"1.0.0"}},`+
		`"content":[{"type":"text","text":"over http"}]}}`, string(got))

	require.NoError(t, stdin.Close())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "exit status")
	case <-time.After(failAfter):
		t.Fatal("no exit after end of input")
	}
}
