package dispatch

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// inbox is a sink that records messages for assertions.
type inbox struct {
	mu   sync.Mutex
	msgs []string
	ch   chan struct{}
}

func newInbox() *inbox { return &inbox{ch: make(chan struct{}, 1024)} }

func (b *inbox) Send(msg []byte) error {
	b.mu.Lock()
	b.msgs = append(b.msgs, string(msg))
	b.mu.Unlock()
	b.ch <- struct{}{}
	return nil
}

// next waits for the next message.
func (b *inbox) next(t *testing.T) string {
	t.Helper()
	m, ok := b.wait()
	if !ok {
		t.Fatal("no message within 5 s")
	}
	return m
}

// wait waits for the next message, for up to 5 s (false); unlike next,
// it may be called from any goroutine.
func (b *inbox) wait() (string, bool) {
	select {
	case <-b.ch:
	case <-time.After(5 * time.Second):
		return "", false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.msgs[0]
	b.msgs = b.msgs[1:]
	return m, true
}

// none asserts nothing arrives within d.
func (b *inbox) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-b.ch:
		b.mu.Lock()
		defer b.mu.Unlock()
		t.Fatalf("unexpected message %s", b.msgs[0])
	case <-time.After(d):
	}
}

type fixture struct {
	rt     *Runtime
	router *router.Router
	exec   *executor.Executor
	// release unblocks the "block" tool.
	release chan struct{}
	entered chan struct{}
}

func newFixture(t testing.TB, opts executor.Options) *fixture {
	t.Helper()
	f := &fixture{release: make(chan struct{}), entered: make(chan struct{}, 1024)}
	var err error
	f.exec, err = executor.New(opts)
	require.NoError(t, err)
	f.router = router.New(router.Options{OnListChanged: func(l router.List) {
		if f.rt != nil {
			f.rt.ListChanged(l)
		}
	}})
	echo := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "echo", InputSchema: echo},
		func(_ context.Context, _ *router.Request, args json.RawMessage) (*spec.CallToolResult, error) {
			var in struct{ Text string }
			_ = jsonrpc.Unmarshal(args, &in)
			return &spec.CallToolResult{Content: []spec.Content{spec.TextContent(in.Text)}}, nil
		}))
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "block"},
		func(ctx context.Context, req *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
			f.entered <- struct{}{}
			_ = req.Progress(1, nil, "started")
			select {
			case <-f.release:
				return &spec.CallToolResult{Content: []spec.Content{spec.TextContent("released")}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}))
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "panic"},
		func(context.Context, *router.Request, json.RawMessage) (*spec.CallToolResult, error) {
			panic("boom")
		}))
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "log"},
		func(_ context.Context, req *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
			_ = req.Log("debug", "t", "dbg")
			_ = req.Log("error", "t", "err")
			return &spec.CallToolResult{Content: []spec.Content{}}, nil
		}))
	require.NoError(t, f.router.AddResource(spec.Resource{URI: "test://a", Name: "a"},
		func(context.Context, *router.Request, string, map[string]string) (*spec.ReadResourceResult, error) {
			return &spec.ReadResourceResult{Contents: []spec.ResourceContents{spec.TextResource("test://a", "text/plain", "A")}}, nil
		}))
	require.NoError(t, f.router.AddPrompt(spec.Prompt{Name: "p"},
		func(context.Context, *router.Request, map[string]string) (*spec.GetPromptResult, error) {
			return &spec.GetPromptResult{Messages: []spec.PromptMessage{{Role: spec.RoleUser, Content: spec.TextContent("hi")}}}, nil
		}))
	f.rt, err = New(Config{Server: spec.Implementation{Name: "t", Version: "1"}, Router: f.router, Executor: f.exec})
	require.NoError(t, err)
	t.Cleanup(f.exec.Close)
	return f
}

// session opens a session whose replies and out-of-band messages share one inbox.
func (f *fixture) session(info transport.Info) (*Session, *inbox) {
	in := newInbox()
	return f.rt.newSession(info, in), in
}

const initMsg = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// modernMeta is the _meta of a 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func (s *Session) deliverString(frame string, reply transport.Sink) {
	s.Deliver(context.Background(), []byte(frame), reply)
}

func mustDecode(t *testing.T, s string) jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.Decode([]byte(s), jsonrpc.Limits{})
	require.Nil(t, err)
	return m
}
