package client_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/internal/wire"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/stdio"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// The official SDKs' servers (bindings/node/test/fixtures/sdk_server.mjs,
// bindings/python/tests/sdk_server.py) as polymcp's client sees them. The
// Makefile's test-node and test-python name their command lines; go test
// alone has neither SDK at hand and skips.
var sdkServers = map[string]string{
	"ts-sdk": "POLYMCP_TS_SDK_SERVER",
	"py-sdk": "POLYMCP_PY_SDK_SERVER",
}

// startHTTP starts argv on a free port; it is stopped when the test ends.
func startHTTP(t *testing.T, argv []string) string {
	t.Helper()
	url, stop, err := wire.StartHTTP(argv...)
	require.NoError(t, err)
	t.Cleanup(stop)
	return url
}

func TestInteropOfficialSDKs(t *testing.T) {
	for name, env := range sdkServers {
		t.Run(name, func(t *testing.T) {
			line := os.Getenv(env)
			if line == "" {
				t.Skipf("%s is not set (make test-node / test-python set it)", env)
			}
			argv := strings.Fields(line)
			dial := map[string]func(t *testing.T) transport.ClientConn{
				"stdio": func(t *testing.T) transport.ClientConn {
					p, err := stdio.Start(context.Background(), exec.Command(argv[0], argv[1:]...))
					require.NoError(t, err)
					return p.Conn()
				},
				"http": func(t *testing.T) transport.ClientConn {
					c, err := streamhttp.Dial(startHTTP(t, argv), nil)
					require.NoError(t, err)
					return c
				},
			}
			for via, d := range dial {
				for _, rev := range []string{"", spec.Rev20251125, spec.Rev20250326} {
					t.Run(via+"/"+rev, func(t *testing.T) { interop(t, d(t), rev) })
				}
			}
		})
	}
}

// interop runs the client's surface against an SDK server.
func interop(t *testing.T, conn transport.ClientConn, rev string) {
	o := &client.Options{Revision: rev, Sampling: func(_ context.Context, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
		return &spec.CreateMessageResult{Role: "assistant", Model: "m", Content: json.RawMessage(`{"type":"text","text":"hi there"}`)}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, conn, o)
	require.NoError(t, err)
	defer func() { assert.NoError(t, c.Close()) }()
	if rev != "" {
		assert.Equal(t, rev, c.Revision())
	}
	t.Logf("speaking %s with %s", c.Revision(), c.ServerInfo().Name)

	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.Name
	}
	assert.Subset(t, names, []string{"echo", "count", "ask", "sleep"})

	r, err := c.CallTool(ctx, "echo", map[string]any{"text": "héllo"})
	require.NoError(t, err)
	assert.Equal(t, "héllo", textOf(t, r))

	var progress []float64
	r, err = c.CallTool(ctx, "count", map[string]any{"n": 3},
		client.WithProgress(func(p spec.ProgressParams) { progress = append(progress, p.Progress) }))
	require.NoError(t, err)
	assert.Equal(t, "counted 3", textOf(t, r))
	assert.Equal(t, []float64{1, 2, 3}, progress)

	res, err := c.ReadResource(ctx, "interop://hello")
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Contains(t, res.Contents[0].Text, "hello from the")

	p, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	require.NoError(t, err)
	require.NotEmpty(t, p.Messages)
	assert.Contains(t, *p.Messages[0].Content.Text, "Ada")

	if c.Revision() != spec.Rev20260728 { // the SDKs ask the client only in a legacy session
		r, err = c.CallTool(ctx, "ask", map[string]any{"prompt": "hello?"})
		require.NoError(t, err)
		assert.Equal(t, "model said: hi there", textOf(t, r))
	}

	short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = c.CallTool(short, "sleep", map[string]any{"ms": 20000})
	stop()
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	r, err = c.CallTool(ctx, "echo", map[string]any{"text": "after the cancel"})
	require.NoError(t, err)
	assert.Equal(t, "after the cancel", textOf(t, r))
}
