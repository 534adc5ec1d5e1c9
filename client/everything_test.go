package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/examples/everything"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
	"github.com/polymcp/polymcp/transport/stdio"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// serverEnv makes the test binary the everything server over stdio, for
// the stdio tests.
const serverEnv = "POLYMCP_CLIENT_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		if err := everything.New(nil).ServeStdio(context.Background(), nil); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// dialers connect to a fresh everything server over each transport.
var dialers = map[string]func(t *testing.T) transport.ClientConn{
	"memory": func(t *testing.T) transport.ClientConn { return memoryConn(t, nil) },
	"http":   func(t *testing.T) transport.ClientConn { return httpConn(t, nil) },
	"stdio": func(t *testing.T) transport.ClientConn {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), serverEnv+"=1")
		p, err := stdio.Start(context.Background(), cmd)
		require.NoError(t, err)
		return p.Conn()
	},
}

// handlers answer the everything server's questions the way its
// conformance scenarios expect.
func handlers() *client.Options {
	return &client.Options{
		Sampling: func(_ context.Context, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
			return &spec.CreateMessageResult{Role: "assistant", Model: "test-model",
				Content: json.RawMessage(`{"type":"text","text":"hi from the model"}`)}, nil
		},
		Elicitation: func(_ context.Context, p *spec.ElicitParams) (*spec.ElicitResult, error) {
			return &spec.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		},
		Roots: func(context.Context) ([]spec.Root, error) {
			return []spec.Root{{URI: "file:///work", Name: "work"}}, nil
		},
	}
}

func connect(t *testing.T, transportName, rev string) *client.Client {
	t.Helper()
	o := handlers()
	o.Revision = rev
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, dialers[transportName](t), o)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

// revisions are what Connect is asked for: negotiation ("") and each
// revision pinned, with the one it must settle on.
var revisions = []struct{ ask, want string }{
	{"", spec.Rev20260728},
	{spec.Rev20241105, spec.Rev20241105},
	{spec.Rev20250326, spec.Rev20250326},
	{spec.Rev20250618, spec.Rev20250618},
	{spec.Rev20251125, spec.Rev20251125},
	{spec.Rev20260728, spec.Rev20260728},
}

func textOf(t *testing.T, r *spec.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, r.Content)
	require.NotNil(t, r.Content[0].Text)
	return *r.Content[0].Text
}

// TestEverything runs the client's whole surface against the everything
// server over every transport, in every revision.
func TestEverything(t *testing.T) {
	for name := range dialers {
		for _, rev := range revisions {
			t.Run(name+"/"+rev.want+"/ask="+rev.ask, func(t *testing.T) {
				c := connect(t, name, rev.ask)
				ctx := context.Background()
				assert.Equal(t, rev.want, c.Revision())
				assert.NotNil(t, c.ServerCapabilities().Tools)
				if rev.want != spec.Rev20260728 {
					assert.Equal(t, "polymcp-everything", c.ServerInfo().Name)
				}
				require.NoError(t, c.Ping(ctx))

				tools, err := c.ListTools(ctx)
				require.NoError(t, err)
				assert.Greater(t, len(tools), 20)

				r, err := c.CallTool(ctx, "echo", map[string]any{"text": "héllo\n"})
				require.NoError(t, err)
				assert.Equal(t, "héllo\n", textOf(t, r))

				r, err = c.CallTool(ctx, "echo", map[string]any{"text": 7})
				require.NoError(t, err)
				assert.True(t, r.IsError, "invalid arguments are a tool error")

				_, err = c.CallTool(ctx, "no_such_tool", nil)
				var je *jsonrpc.Error
				require.ErrorAs(t, err, &je)
				assert.EqualValues(t, jsonrpc.CodeInvalidParams, je.Code)

				res, err := c.ReadResource(ctx, "test://static-text")
				require.NoError(t, err)
				require.Len(t, res.Contents, 1)
				assert.Equal(t, "This is the content of the static text resource.", res.Contents[0].Text)

				p, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "a", "arg2": "b"})
				require.NoError(t, err)
				require.NotEmpty(t, p.Messages)

				done, err := c.Complete(ctx, spec.CompleteRef{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
					spec.CompleteArgument{Name: "arg1", Value: "par"}, nil)
				require.NoError(t, err)
				assert.Equal(t, []string{"paris", "park", "party"}, done.Values)

				for _, list := range []func(context.Context) (int, error){
					func(ctx context.Context) (int, error) { l, err := c.ListResources(ctx); return len(l), err },
					func(ctx context.Context) (int, error) { l, err := c.ListResourceTemplates(ctx); return len(l), err },
					func(ctx context.Context) (int, error) { l, err := c.ListPrompts(ctx); return len(l), err },
				} {
					n, err := list(ctx)
					require.NoError(t, err)
					assert.Positive(t, n)
				}
			})
		}
	}
}

// TestQuestions: the server's sampling, elicitation and roots questions
// reach the handlers in both eras (server-to-client requests on the
// legacy revisions, input_required rounds on 2026-07-28).
func TestQuestions(t *testing.T) {
	for name := range dialers {
		for _, rev := range []string{spec.Rev20251125, spec.Rev20260728} {
			t.Run(name+"/"+rev, func(t *testing.T) {
				c := connect(t, name, rev)
				ctx := context.Background()
				r, err := c.CallTool(ctx, "test_sampling", map[string]any{"prompt": "say hi"})
				require.NoError(t, err)
				assert.Equal(t, "LLM response: hi from the model", textOf(t, r))

				r, err = c.CallTool(ctx, "test_elicitation", map[string]any{"message": "who?"})
				require.NoError(t, err)
				assert.Contains(t, textOf(t, r), "ada@example.com")
				assert.False(t, r.IsError)
			})
		}
		t.Run(name+"/roots", func(t *testing.T) {
			c := connect(t, name, spec.Rev20260728)
			r, err := c.CallTool(context.Background(), "test_input_required_result_list_roots", nil)
			require.NoError(t, err)
			assert.Contains(t, textOf(t, r), "file:///work")
		})
	}
}

// TestProgressAndCancel: progress reaches the call's callback in order,
// and a call whose context ends fails at once while the server goes on
// serving.
func TestProgressAndCancel(t *testing.T) {
	for name := range dialers {
		for _, rev := range []string{spec.Rev20251125, spec.Rev20260728} {
			t.Run(name+"/"+rev, func(t *testing.T) {
				c := connect(t, name, rev)
				var mu sync.Mutex
				var seen []float64
				r, err := c.CallTool(context.Background(), "sleep", map[string]any{"ms": 50},
					client.WithProgress(func(p spec.ProgressParams) {
						mu.Lock()
						seen = append(seen, p.Progress)
						mu.Unlock()
					}))
				require.NoError(t, err)
				assert.Equal(t, "slept", textOf(t, r))
				mu.Lock()
				assert.NotEmpty(t, seen)
				assert.IsIncreasing(t, seen)
				mu.Unlock()

				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				start := time.Now()
				_, err = c.CallTool(ctx, "sleep", map[string]any{"ms": 30000})
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Less(t, time.Since(start), 10*time.Second)

				r, err = c.CallTool(context.Background(), "echo", map[string]any{"text": "still here"})
				require.NoError(t, err)
				assert.Equal(t, "still here", textOf(t, r))
			})
		}
	}
}

// TestServerGone: a server that exits fails the calls in flight and every
// later one with ErrClosed.
func TestServerGone(t *testing.T) {
	conn := dialers["stdio"](t)
	c, err := client.Connect(context.Background(), conn, nil)
	require.NoError(t, err)
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "sleep", map[string]any{"ms": 30000})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, conn.(*stdio.ClientConn).Process().Close())
	select {
	case err := <-done:
		assert.True(t, errors.Is(err, client.ErrClosed), "%v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the call outlived its server")
	}
	<-c.Done()
	_, err = c.CallTool(context.Background(), "echo", map[string]any{"text": "x"})
	assert.ErrorIs(t, err, client.ErrClosed)
}

// TestSessionRenewed: a legacy session the server ends (Streamable HTTP
// answers 404) is initialized anew and the request sent again.
func TestSessionRenewed(t *testing.T) {
	conn := dialers["http"](t)
	c, err := client.Connect(context.Background(), conn, &client.Options{Revision: spec.Rev20250618})
	require.NoError(t, err)
	defer c.Close()
	hc := conn.(*streamhttp.ClientConn)
	first := hc.SessionID()
	require.NotEmpty(t, first)
	for range 2 {
		// End the session behind the client's back, as a server restart would.
		req, err := http.NewRequest(http.MethodDelete, hc.URL(), nil)
		require.NoError(t, err)
		req.Header.Set("Mcp-Session-Id", hc.SessionID())
		req.Header.Set("Mcp-Protocol-Version", spec.Rev20250618)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)

		r, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "again"})
		require.NoError(t, err)
		assert.Equal(t, "again", textOf(t, r))
		assert.NotEqual(t, first, hc.SessionID())
		first = hc.SessionID()
	}
}

// TestListen: a 2026-07-28 subscription is acknowledged, its notifications
// reach the callbacks, and Close ends it.
func TestListen(t *testing.T) {
	for name := range dialers {
		t.Run(name, func(t *testing.T) {
			changed := make(chan struct{}, 4)
			o := &client.Options{OnToolsChanged: func() { changed <- struct{}{} }}
			c, err := client.Connect(context.Background(), dialers[name](t), o)
			require.NoError(t, err)
			defer c.Close()
			ctx := context.Background()
			sub, err := c.Listen(ctx, client.ListenFilter{ToolsListChanged: true})
			require.NoError(t, err)
			assert.True(t, sub.Honoured.ToolsListChanged)
			_, err = c.CallTool(ctx, "test_trigger_tool_change", nil)
			require.NoError(t, err)
			select {
			case <-changed:
			case <-time.After(5 * time.Second):
				t.Fatal("no notifications/tools/list_changed")
			}
			sub.Close()
			assert.ErrorIs(t, sub.Err(), context.Canceled)
			r, err := c.CallTool(ctx, "echo", map[string]any{"text": "after"})
			require.NoError(t, err)
			assert.Equal(t, "after", textOf(t, r))
		})
	}
	t.Run("legacy", func(t *testing.T) {
		c := connect(t, "memory", spec.Rev20251125)
		_, err := c.Listen(context.Background(), client.ListenFilter{ToolsListChanged: true})
		assert.ErrorContains(t, err, "legacy servers send list_changed unasked")
	})
}

// TestHTTPSSE: the 2024-11-05 HTTP+SSE transport (sse.Dial) carries the
// whole surface, the server's questions and cancellation included.
func TestHTTPSSE(t *testing.T) {
	ctx := context.Background()
	conn, err := sse.Dial(ctx, strings.TrimSuffix(listen(t, nil), "/mcp")+"/sse", nil)
	require.NoError(t, err)
	o := handlers()
	o.Revision = spec.Rev20241105
	c, err := client.Connect(ctx, conn, o)
	require.NoError(t, err)
	defer c.Close()

	r, err := c.CallTool(ctx, "echo", map[string]any{"text": "over sse"})
	require.NoError(t, err)
	assert.Equal(t, "over sse", textOf(t, r))
	r, err = c.CallTool(ctx, "test_sampling", map[string]any{"prompt": "say hi"})
	require.NoError(t, err)
	assert.Equal(t, "LLM response: hi from the model", textOf(t, r))
	var steps int
	r, err = c.CallTool(ctx, "sleep", map[string]any{"ms": 30}, client.WithProgress(func(spec.ProgressParams) { steps++ }))
	require.NoError(t, err)
	assert.Equal(t, "slept", textOf(t, r))
	assert.Positive(t, steps)
	short, stop := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = c.CallTool(short, "sleep", map[string]any{"ms": 30000})
	stop()
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, tools)
}

// fastPolling serve the everything example with a poll interval of 50 ms,
// so that following a task takes a test little time.
var fastPolling = map[string]func(t *testing.T) transport.ClientConn{
	"memory": func(t *testing.T) transport.ClientConn { return memoryConn(t, fastPoll) },
	"http":   func(t *testing.T) transport.ClientConn { return httpConn(t, fastPoll) },
}

var fastPoll = &mcp.ServerOptions{TaskPollInterval: 50 * time.Millisecond}

// memoryConn connects in process to a fresh everything server.
func memoryConn(t *testing.T, opts *mcp.ServerOptions) transport.ClientConn {
	srv := everything.New(opts)
	t.Cleanup(srv.Close)
	return srv.Connect().Conn()
}

// httpConn dials a fresh everything server's Streamable HTTP endpoint.
func httpConn(t *testing.T, opts *mcp.ServerOptions) transport.ClientConn {
	conn, err := streamhttp.Dial(listen(t, opts), nil)
	require.NoError(t, err)
	return conn
}

// listen serves a fresh everything server over HTTP on a free port and
// returns its Streamable HTTP URL; both stop when the test ends.
func listen(t *testing.T, opts *mcp.ServerOptions) string {
	srv := everything.New(opts)
	t.Cleanup(srv.Close)
	l, err := srv.ListenHTTP(context.Background(), "127.0.0.1:0", nil)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l.URL()
}

// TestTasks: with Options.Tasks, a call the server turns into a task
// (2026-07-28) is followed to its end: its result, its tool error, its
// JSON-RPC error, its questions answered through tasks/update, and a
// context that ends first.
func TestTasks(t *testing.T) {
	for _, name := range []string{"memory", "http"} {
		t.Run(name, func(t *testing.T) {
			o := handlers()
			o.Tasks = true
			o.Elicitation = func(_ context.Context, p *spec.ElicitParams) (*spec.ElicitResult, error) {
				return &spec.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true, "name": "Ada"}}, nil
			}
			c, err := client.Connect(context.Background(), fastPolling[name](t), o)
			require.NoError(t, err)
			defer c.Close()
			ctx := context.Background()

			r, err := c.CallTool(ctx, "slow_compute", map[string]any{"seconds": 0.1, "label": "pi"})
			require.NoError(t, err)
			assert.Equal(t, "Computed pi in 0.1s", textOf(t, r))

			r, err = c.CallTool(ctx, "confirm_delete", map[string]any{"filename": "a.txt"})
			require.NoError(t, err)
			assert.Equal(t, "Deleted a.txt", textOf(t, r))

			r, err = c.CallTool(ctx, "test_tool_with_task", nil)
			require.NoError(t, err)
			assert.Contains(t, textOf(t, r), "Ada")

			r, err = c.CallTool(ctx, "failing_job", nil)
			require.NoError(t, err)
			assert.True(t, r.IsError)

			_, err = c.CallTool(ctx, "protocol_error_job", nil)
			var je *jsonrpc.Error
			require.ErrorAs(t, err, &je)

			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err = c.CallTool(short, "slow_compute", map[string]any{"seconds": 60})
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
	t.Run("without the extension, an ordinary call", func(t *testing.T) {
		c := connect(t, "memory", spec.Rev20260728)
		r, err := c.CallTool(context.Background(), "slow_compute", map[string]any{"seconds": 0.01})
		require.NoError(t, err)
		assert.Contains(t, textOf(t, r), "Computed job")
	})
}
