package sse_test

import (
	"bufio"
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/sse"
)

// bound is a failure bound only: nothing waits for it to pass.
const bound = 10 * time.Second

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// testMCP is a real MCP server with an echo tool and a tool that blocks
// until its context ends, reporting the context's error.
type testMCP struct {
	*mcp.Server
	started   chan struct{}
	cancelled chan error
}

func newMCP(t *testing.T) *testMCP {
	t.Helper()
	m := &testMCP{Server: mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil),
		started: make(chan struct{}, 8), cancelled: make(chan error, 8)}
	mcp.AddTool(m.Server, &mcp.Tool{Name: "echo", Description: "Echo"},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		})
	mcp.AddTool(m.Server, &mcp.Tool{Name: "block", Description: "Block until cancelled"},
		func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
			m.started <- struct{}{}
			<-ctx.Done()
			m.cancelled <- ctx.Err()
			return "", ctx.Err()
		})
	t.Cleanup(m.Close)
	return m
}

func (m *testMCP) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-m.started:
	case <-time.After(bound):
		t.Fatal("the block tool did not start")
	}
}

func (m *testMCP) waitCancelled(t *testing.T) error {
	t.Helper()
	select {
	case err := <-m.cancelled:
		return err
	case <-time.After(bound):
		t.Fatal("the block tool's context was not cancelled")
		return nil
	}
}

// httpOut is an sse.Output over net/http, as a host writes it.
type httpOut struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (o httpOut) Start(status int, h http.Header) error {
	maps.Copy(o.w.Header(), h)
	o.w.WriteHeader(status)
	return nil
}
func (o httpOut) Write(b []byte) error               { _, err := o.w.Write(b); return err }
func (o httpOut) Flush() error                       { return o.rc.Flush() }
func (o httpOut) SetWriteDeadline(t time.Time) error { return o.rc.SetWriteDeadline(t) }

// harness mounts an sse.Server on GET /sse and POST /message of a real
// HTTP server on 127.0.0.1 port 0.
type harness struct {
	t    *testing.T
	mcp  *testMCP
	srv  *sse.Server
	http *httptest.Server
	// streamErrs receives what each Stream returned.
	streamErrs chan error
}

func newHarness(t *testing.T, opts *sse.Options) *harness {
	t.Helper()
	h := &harness{t: t, mcp: newMCP(t), streamErrs: make(chan error, 16)}
	h.srv = sse.New(h.mcp, opts)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		h.streamErrs <- h.srv.Stream(r.Context(), "/message", httpOut{w, http.NewResponseController(w)})
	})
	mux.HandleFunc("POST /message", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		status, resp := h.srv.Post(r.Context(), r.URL.Query().Get(sse.SessionParam), body)
		if resp != nil {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write(resp)
	})
	h.http = httptest.NewServer(mux)
	t.Cleanup(func() {
		h.srv.Close()
		h.http.CloseClientConnections()
		h.http.Close()
	})
	return h
}

// stream is one client GET of /sse.
type stream struct {
	t      *testing.T
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
	// path is the message URL the endpoint event named.
	path string
}

var endpointEvent = regexp.MustCompile(`^event: endpoint\ndata: (/message\?sessionId=([A-Z2-7]{26}))\n\n$`)

// open GETs /sse and reads the endpoint event.
func (h *harness) open() *stream {
	h.t.Helper()
	s := h.get()
	require.Equal(h.t, http.StatusOK, s.resp.StatusCode)
	m := endpointEvent.FindStringSubmatch(s.event())
	require.NotNil(h.t, m, "the first event is the endpoint")
	s.path = m[1]
	return s
}

func (h *harness) get() *stream {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.http.URL+"/sse", nil)
	require.NoError(h.t, err)
	resp, err := h.http.Client().Do(req)
	require.NoError(h.t, err)
	s := &stream{t: h.t, resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	h.t.Cleanup(s.close)
	return s
}

func (s *stream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// event reads one raw event (or comment), up to and with its blank line.
func (s *stream) event() string {
	s.t.Helper()
	var b strings.Builder
	for {
		line, err := s.r.ReadString('\n')
		b.WriteString(line)
		require.NoError(s.t, err, "reading the stream after %q", b.String())
		if line == "\n" {
			return b.String()
		}
	}
}

// message reads the next event and returns its data, which must be a
// "message" event of one line.
func (s *stream) message() string {
	s.t.Helper()
	ev := s.event()
	data, ok := strings.CutPrefix(ev, "event: message\ndata: ")
	require.True(s.t, ok, "%q is not a message event", ev)
	data, ok = strings.CutSuffix(data, "\n\n")
	require.True(s.t, ok)
	require.NotContains(s.t, data, "\n")
	return data
}

// post sends body to path and returns the status and the body.
func (h *harness) post(path, body string) (int, string) {
	h.t.Helper()
	resp, err := h.http.Client().Post(h.http.URL+path, "application/json", strings.NewReader(body))
	require.NoError(h.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return resp.StatusCode, string(b)
}

// eventually polls cond until it holds or bound passes.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// fakeOutput is an Output whose writes after the first block on gate until
// it is closed (a client that stopped reading); it records what it got.
type fakeOutput struct {
	gate chan struct{}

	mu        sync.Mutex
	status    int
	header    http.Header
	writes    []string
	deadlines int
}

func newFakeOutput() *fakeOutput { return &fakeOutput{gate: make(chan struct{})} }

func (o *fakeOutput) Start(status int, h http.Header) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.status, o.header = status, h
	return nil
}

func (o *fakeOutput) Write(b []byte) error {
	o.mu.Lock()
	first := len(o.writes) == 0
	o.writes = append(o.writes, string(b))
	o.mu.Unlock()
	if !first {
		<-o.gate
	}
	return nil
}

func (o *fakeOutput) Flush() error { return nil }

func (o *fakeOutput) written() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.writes...)
}

// deadlineOutput is a fakeOutput that also takes write deadlines.
type deadlineOutput struct{ *fakeOutput }

func (o deadlineOutput) SetWriteDeadline(time.Time) error {
	o.mu.Lock()
	o.deadlines++
	o.mu.Unlock()
	return nil
}

// checkNoLeaks fails when goroutines started by the test outlive it.
func checkNoLeaks(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d now:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func runtimeGoroutines() int { return runtime.NumGoroutine() }
