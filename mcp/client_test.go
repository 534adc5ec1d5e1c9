package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/mcp"
)

// serveEnv makes the test binary serve newServer's tools over stdio, for
// ConnectCommand.
const serveEnv = "POLYMCP_MCP_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		s := testServer()
		if err := s.ServeStdio(context.Background(), nil); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The client's three ways in reach the same typed tools.
func TestClient(t *testing.T) {
	ctx := context.Background()
	connect := map[string]func(t *testing.T) (*mcp.Client, error){
		"in process": func(t *testing.T) (*mcp.Client, error) { return newServer(t).ConnectClient(ctx, nil) },
		"command": func(t *testing.T) (*mcp.Client, error) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), serveEnv+"=1")
			return mcp.ConnectCommand(ctx, cmd, nil)
		},
		"http": func(t *testing.T) (*mcp.Client, error) {
			l, err := newServer(t).ListenHTTP(ctx, "127.0.0.1:0", nil)
			require.NoError(t, err)
			t.Cleanup(func() { l.Close() })
			return mcp.ConnectHTTP(ctx, l.URL(), &mcp.ClientOptions{Revision: "2025-06-18"}, nil)
		},
		"http+sse (2024-11-05)": func(t *testing.T) (*mcp.Client, error) {
			// Only the HTTP+SSE endpoint is there: the Streamable HTTP
			// probe is refused, and the client falls back.
			l, err := newServer(t).ListenHTTP(ctx, "127.0.0.1:0", nil)
			require.NoError(t, err)
			t.Cleanup(func() { l.Close() })
			c, err := mcp.ConnectHTTP(ctx, strings.TrimSuffix(l.URL(), "/mcp")+"/sse", nil, nil)
			if err == nil {
				assert.Equal(t, "2024-11-05", c.Revision())
			}
			return c, err
		},
	}
	for name, open := range connect {
		t.Run(name, func(t *testing.T) {
			c, err := open(t)
			require.NoError(t, err)
			defer c.Close()
			tools, err := c.ListTools(ctx) // the client then checks sum's structured output
			require.NoError(t, err)
			require.Len(t, tools, 3)
			r, err := c.CallTool(ctx, "sum", map[string]int{"a": 2, "b": 3})
			require.NoError(t, err)
			assert.Equal(t, map[string]any{"sum": float64(5)}, r.StructuredContent)
			r, err = c.CallTool(ctx, "fail", nil)
			require.NoError(t, err)
			assert.True(t, r.IsError)
		})
	}
}

// ConnectHTTP remembers what a URL speaks: the probes that failed once are
// not made again.
func TestConnectHTTPRemembersTheEra(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	posts := map[string]int{} // path + the method of each POST
	h := newServer(t).HTTPHandler(nil)
	legacyOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct{ Method string }
			_ = json.Unmarshal(body, &msg)
			mu.Lock()
			posts[r.URL.Path+" "+msg.Method]++
			mu.Unlock()
			if msg.Method == "server/discover" { // a server of the legacy revisions only
				http.Error(w, "unknown method", http.StatusBadRequest)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	defer legacyOnly.Close()
	// A pinned revision teaches the cache nothing: the next negotiation
	// still probes.
	c, err := mcp.ConnectHTTP(ctx, legacyOnly.URL+"/mcp", &mcp.ClientOptions{Revision: "2025-06-18"}, nil)
	require.NoError(t, err)
	c.Close()
	for _, path := range []string{"/mcp", "/sse"} {
		for range 2 {
			c, err := mcp.ConnectHTTP(ctx, legacyOnly.URL+path, nil, nil)
			require.NoError(t, err)
			want := map[string]string{"/mcp": "2025-11-25", "/sse": "2024-11-05"}[path]
			assert.Equal(t, want, c.Revision())
			r, err := c.CallTool(ctx, "echo", map[string]string{"text": "x"})
			require.NoError(t, err)
			assert.Equal(t, "x", *r.Content[0].Text)
			c.Close()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, posts["/mcp server/discover"], "the modern probe, once")
	assert.Equal(t, 3, posts["/mcp initialize"])
	assert.Equal(t, 1, posts["/sse server/discover"], "both Streamable HTTP probes at the SSE URL, once")
	assert.Equal(t, 1, posts["/sse initialize"])
}

// Closing a server ends its in-process clients, as a server process's exit
// would: a call in flight fails with client.ErrClosed instead of waiting
// for its timeout, and a connection made after is refused.
func TestServerCloseEndsInProcessClients(t *testing.T) {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	entered := make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
		close(entered)
		<-ctx.Done()
		return "", ctx.Err()
	})
	c, err := s.ConnectClient(ctx, nil)
	require.NoError(t, err)
	defer c.Close()
	failed := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "hold", nil)
		failed <- err
	}()
	<-entered
	s.Close()
	select {
	case err := <-failed:
		assert.ErrorIs(t, err, client.ErrClosed)
	case <-time.After(20 * time.Second):
		t.Fatal("the call outlived its server")
	}
	<-c.Done()
	_, err = s.ConnectClient(ctx, nil)
	assert.ErrorIs(t, err, client.ErrClosed, "a closed server takes no new connection")
}
