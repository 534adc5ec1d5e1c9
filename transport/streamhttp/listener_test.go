package streamhttp_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/streamhttp"
)

func listen(t *testing.T, f *fixture, opts *streamhttp.Options) *streamhttp.Listener {
	t.Helper()
	l, err := f.srv.ListenHTTP(context.Background(), "127.0.0.1:0", opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func TestListenerURL(t *testing.T) {
	f := newFixture(t)
	for _, addr := range []string{"", "127.0.0.1:0", ":0"} {
		l, err := f.srv.ListenHTTP(context.Background(), addr, &streamhttp.Options{Path: "/x/mcp"})
		require.NoError(t, err)
		u, err := url.Parse(l.URL())
		require.NoError(t, err)
		assert.Equal(t, "127.0.0.1", u.Hostname(), "loopback by default (%q)", addr)
		assert.NotEqual(t, "0", u.Port())
		assert.Equal(t, "/x/mcp", u.Path)
		a := send(t, nil, http.MethodPost, l.URL(), modern2026("tools/list"), listBody)
		assert.Equal(t, 200, a.status, a.body)
		require.NoError(t, l.Shutdown(context.Background()))
		require.NoError(t, l.Wait())
	}
}

func TestListenerInvalidOptions(t *testing.T) {
	f := newFixture(t)
	_, err := f.srv.ListenHTTP(context.Background(), "", &streamhttp.Options{Path: "mcp"})
	assert.ErrorIs(t, err, streamhttp.ErrInvalidOptions)
	_, err = f.srv.ListenHTTP(context.Background(), "", &streamhttp.Options{AllowedHosts: []string{"http://x"}})
	assert.ErrorIs(t, err, streamhttp.ErrInvalidOptions)
	_, err = f.srv.ListenHTTP(context.Background(), "no-port", nil)
	assert.Error(t, err)
}

func TestListenerHeaderLimit(t *testing.T) {
	l := listen(t, newFixture(t), &streamhttp.Options{MaxHeaderBytes: 1024})
	a := send(t, nil, http.MethodPost, l.URL(), modern2026("tools/list", "X-Big", strings.Repeat("a", 8<<10)), listBody)
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, a.status)
}

// rawConn opens a TCP connection to the listener.
func rawConn(t *testing.T, l *streamhttp.Listener) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", l.Addr().String(), bound)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestListenerMaxConnections(t *testing.T) {
	l := listen(t, newFixture(t), &streamhttp.Options{MaxConnections: 2})
	held := []net.Conn{rawConn(t, l), rawConn(t, l)}
	// Make sure both are accepted (served) before the third arrives.
	for _, c := range held {
		_, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n"+
			"Content-Length: %d\r\n\r\n%s", len(listBody), listBody)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
	}
	c := rawConn(t, l)
	_, _ = fmt.Fprint(c, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	require.NoError(t, c.SetReadDeadline(time.Now().Add(bound)))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))

	// A closed connection frees its slot once the server has seen it close;
	// until then a new connection is still refused, which is not a failure.
	held[0].Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: bound}
	require.Eventually(t, func() bool {
		req, err := http.NewRequest(http.MethodPost, l.URL(), strings.NewReader(listBody))
		require.NoError(t, err)
		for k, v := range modern2026("tools/list") {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}, bound, 10*time.Millisecond)
}

// TestSlowClients: 30 connections that never finish their headers do not
// delay a normal request, and are cut off by ReadHeaderTimeout.
func TestSlowClients(t *testing.T) {
	l := listen(t, newFixture(t), &streamhttp.Options{ReadHeaderTimeout: 2 * time.Second})
	slow := make([]net.Conn, 30)
	for i := range slow {
		slow[i] = rawConn(t, l)
		_, err := fmt.Fprint(slow[i], "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
		require.NoError(t, err)
	}
	a := send(t, &http.Client{Timeout: bound}, http.MethodPost, l.URL(), modern2026("tools/list"), listBody)
	assert.Equal(t, 200, a.status)
	for _, c := range slow {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(bound)))
		buf := make([]byte, 512)
		_, err := c.Read(buf) // an error page or EOF: the server let go
		if err != nil {
			var ne net.Error
			assert.False(t, asNetErr(err, &ne) && ne.Timeout(), "slow connection still open after %s", bound)
		}
	}
}

// TestManyCallsKeepAlive: 200 concurrent calls over 20 keep-alive
// connections are all answered, each with its own answer.
func TestManyCallsKeepAlive(t *testing.T) {
	l := listen(t, newFixture(t), nil)
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 20, MaxIdleConnsPerHost: 20}, Timeout: 4 * bound}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			text := fmt.Sprintf("call-%d", i)
			a := send(t, c, http.MethodPost, l.URL(), modern2026("tools/call", "Mcp-Name", "echo"),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q},%s}}`, i, text, meta))
			if assert.Equal(t, 200, a.status, a.body) {
				assert.JSONEq(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete",%s,"content":[{"type":"text","text":%q}]}}`,
					i, serverInfo, text), a.body)
			}
		})
	}
	wg.Wait()
}

// TestGracefulShutdown: a call in flight is answered, a listen stream ends
// with its result, and Shutdown returns once both are done.
func TestGracefulShutdown(t *testing.T) {
	f := newFixture(t)
	l := listen(t, f, &streamhttp.Options{ShutdownTimeout: bound})
	sub := openStream(t, http.MethodPost, l.URL(), modern2026("subscriptions/listen"),
		`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+meta+`}}`)
	require.Equal(t, "text/event-stream", sub.resp.Header.Get("Content-Type"))
	ack := sub.next(t)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"}}}`, ack.data)

	call := make(chan answer, 1)
	go func() {
		call <- send(t, nil, http.MethodPost, l.URL(), modern2026("tools/call", "Mcp-Name", "wait"),
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait",`+meta+`}}`)
	}()
	f.waitStarted(t, "wait")
	stopped := make(chan error, 1)
	go func() { stopped <- l.Shutdown(context.Background()) }()

	rest := sub.rest(t)
	require.Len(t, rest, 1)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"sub","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"sub","io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}}}`, rest[0].data)
	select {
	case err := <-stopped:
		t.Fatalf("Shutdown returned before the call was answered: %v", err)
	default:
	}
	close(f.release)
	a := <-call
	assert.Equal(t, 200, a.status)
	assert.Contains(t, a.body, `"released"`)
	select {
	case err := <-stopped:
		assert.NoError(t, err)
	case <-time.After(bound):
		t.Fatal("Shutdown did not return")
	}
}

// TestHTTPSSE: the 2024-11-05 transport is mounted behind the same checks.
func TestHTTPSSE(t *testing.T) {
	l := listen(t, newFixture(t), nil)
	base := strings.TrimSuffix(l.URL(), "/mcp")
	assert.Equal(t, 403, send(t, nil, http.MethodGet, base+"/sse", map[string]string{"Accept": "text/event-stream", "Origin": "http://evil.example"}, "").status)
	s := openStream(t, http.MethodGet, base+"/sse", map[string]string{"Accept": "text/event-stream"}, "")
	require.Equal(t, 200, s.resp.StatusCode)
	ep := s.next(t)
	require.True(t, strings.HasPrefix(ep.data, "/message?sessionId="), ep.data)
	post := func(body string) answer {
		return send(t, nil, http.MethodPost, base+ep.data, map[string]string{"Content-Type": "application/json"}, body)
	}
	assert.Equal(t, 202, post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`).status)
	assert.Contains(t, s.next(t).data, `"protocolVersion":"2024-11-05"`)
	assert.Equal(t, 202, post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"old"}}}`).status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"old"}]}}`, s.next(t).data)
	assert.Equal(t, 404, send(t, nil, http.MethodPost, base+"/message?sessionId=nope", map[string]string{"Content-Type": "application/json"}, `{}`).status)
}
