package streamhttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// bound is the failure bound of every wait: generous, never a measurement.
const bound = 10 * time.Second

// fixture is a test server whose tools let tests see inside a call.
type fixture struct {
	srv *mcp.Server
	// started receives the name of a blocking tool once it runs.
	started chan string
	// cancelled receives the cause when "block" sees its context end.
	cancelled chan error
	// release lets "wait" return.
	release chan struct{}
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{started: make(chan string, 16), cancelled: make(chan error, 16), release: make(chan struct{})}
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress twice"},
		func(_ context.Context, req *mcp.Request, _ struct{}) (string, error) {
			total := 2.0
			_ = req.Progress(1, &total, "half")
			_ = req.Progress(2, &total, "all")
			return "done", nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Runs until cancelled"},
		func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			f.started <- "block"
			<-ctx.Done()
			f.cancelled <- context.Cause(ctx)
			return "", ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Reports progress, then waits for the test"},
		func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
			_ = req.Progress(1, nil, "waiting")
			f.started <- "wait"
			select {
			case <-f.release:
				return "released", nil
			case <-ctx.Done():
				f.cancelled <- context.Cause(ctx)
				return "", ctx.Err()
			}
		})
	require.NoError(t, s.AddTool(mcp.Tool{Name: "route", Description: "Arguments mirrored in headers",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"region":{"type":"string","x-mcp-header":"Region"},` +
			`"count":{"type":"integer","x-mcp-header":"Count"},` +
			`"opts":{"type":"object","properties":{"fast":{"type":"boolean","x-mcp-header":"Fast"}}}}}`)},
		func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("routed")}}, nil
		}))
	t.Cleanup(s.Close)
	f.srv = s
	return f
}

// serve starts an httptest server (on 127.0.0.1) over the fixture.
func (f *fixture) serve(t *testing.T, opts *streamhttp.Options) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(f.srv.HTTPHandler(opts))
	t.Cleanup(ts.Close)
	return ts
}

func (f *fixture) waitStarted(t *testing.T, name string) {
	t.Helper()
	select {
	case got := <-f.started:
		require.Equal(t, name, got)
	case <-time.After(bound):
		t.Fatalf("tool %s did not start", name)
	}
}

// modern2026 is the header set of a 2026-07-28 POST for method.
func modern2026(method string, extra ...string) map[string]string {
	h := map[string]string{
		"Content-Type":         "application/json",
		"Accept":               "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method":           method,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			delete(h, extra[i])
		} else {
			h[extra[i]] = extra[i+1]
		}
	}
	return h
}

// meta is the params._meta every 2026-07-28 request carries.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, c *http.Client, method, url string, h map[string]string, body string) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range h {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// errorCode returns the JSON-RPC error code of a body (0 if none).
func errorCode(t *testing.T, body string) int {
	t.Helper()
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m), body)
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// sseEvent is one parsed event of a text/event-stream.
type sseEvent struct {
	id, data string
	retry    bool
}

// events parses an SSE body (comments skipped).
func events(body string) []sseEvent {
	var out []sseEvent
	for _, block := range strings.Split(body, "\n\n") {
		var ev sseEvent
		seen := false
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.id, seen = line[4:], true
			case strings.HasPrefix(line, "retry: "):
				ev.retry, seen = true, true
			case strings.HasPrefix(line, "data:"):
				ev.data += strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
				seen = true
			}
		}
		if seen {
			out = append(out, ev)
		}
	}
	return out
}

// stream is an SSE response read event by event.
type stream struct {
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

func openStream(t *testing.T, method, url string, h map[string]string, body string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		require.NoError(t, err)
	}
	s := &stream{resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(s.close)
	return s
}

// next returns the next event (comments skipped), failing after bound.
func (s *stream) next(t *testing.T) sseEvent {
	t.Helper()
	type result struct {
		ev  sseEvent
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var block strings.Builder
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				ch <- result{err: err}
				return
			}
			if line == "\n" {
				if evs := events(block.String()); len(evs) > 0 {
					ch <- result{ev: evs[0]}
					return
				}
				block.Reset()
				continue
			}
			block.WriteString(line)
		}
	}()
	select {
	case r := <-ch:
		require.NoError(t, r.err)
		return r.ev
	case <-time.After(bound):
		t.Fatal("no event in time")
	}
	return sseEvent{}
}

// rest reads the stream to its end.
func (s *stream) rest(t *testing.T) []sseEvent {
	t.Helper()
	b, err := io.ReadAll(s.r)
	if err != nil && !errors.Is(err, context.Canceled) {
		require.NoError(t, err)
	}
	return events(string(b))
}

func (s *stream) close() {
	s.cancel()
	_ = s.resp.Body.Close()
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func timeAfter() <-chan time.Time { return time.After(bound) }

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func asNetErr(err error, target *net.Error) bool { return errors.As(err, target) }
