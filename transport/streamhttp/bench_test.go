package streamhttp_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkModernEcho: tools/call echo at 2026-07-28 over the Listener and
// keep-alive connections, in parallel.
func BenchmarkModernEcho(b *testing.B) {
	f := newFixture(b)
	l, err := f.srv.ListenHTTP(b.Context(), "", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, l.URL(), bytes.NewReader(body))
			for k, v := range modern2026("tools/call", "Mcp-Name", "echo") {
				req.Header.Set(k, v)
			}
			resp, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatal(resp.Status)
			}
		}
	})
}

// nullWriter is a ResponseWriter that keeps nothing: the in-process
// benchmarks below measure the handler's own cost, without sockets.
type nullWriter struct {
	h      http.Header
	status int
	n      int
	head   [48]byte // the body's first bytes, to tell a result from an error
}

func (w *nullWriter) Header() http.Header    { return w.h }
func (w *nullWriter) WriteHeader(status int) { w.status = status }
func (w *nullWriter) Write(p []byte) (int, error) {
	if w.n < len(w.head) {
		copy(w.head[w.n:], p)
	}
	w.n += len(p)
	return len(p), nil
}
func (w *nullWriter) Flush() {}

// benchHandler serves body with headers through the Handler in process, b.N
// times in parallel, and checks the status. Each request gets an id of its
// own ("id":1 in body is replaced): requests on one legacy session must not
// share an id in flight, or half of them are answered "already in flight"
// and the benchmark measures much less than a call.
func benchHandler(b *testing.B, headers map[string]string, body []byte, setup func(h http.Handler) map[string]string) {
	f := newFixture(b)
	h := f.srv.HTTPHandler(nil)
	if setup != nil {
		for k, v := range setup(h) {
			headers[k] = v
		}
	}
	head, tail, ok := bytes.Cut(body, []byte(`"id":1,`))
	if !ok {
		b.Fatal(`the body has no "id":1`)
	}
	var ids atomic.Int64
	// What a Listener's connection gives each request: its local address.
	ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.RunParallel(func(pb *testing.PB) {
		w := &nullWriter{h: http.Header{}}
		var req []byte
		for pb.Next() {
			req = append(append(req[:0], head...), `"id":`...)
			req = strconv.AppendInt(req, ids.Add(1), 10)
			req = append(append(req, ','), tail...)
			// net/http gives each request a context of its own, cancelled
			// when the handler returns.
			rctx, cancel := context.WithCancel(ctx)
			r, _ := http.NewRequestWithContext(rctx, http.MethodPost, "http://127.0.0.1:8080/mcp", bytes.NewReader(req))
			for k, v := range headers {
				r.Header.Set(k, v)
			}
			clear(w.h)
			w.status = 0
			w.n = 0
			h.ServeHTTP(w, r)
			cancel()
			if w.status != 200 && w.status != 0 || !bytes.Contains(w.head[:], []byte(`"result":`)) {
				b.Fatalf("status %d: %s", w.status, w.head[:min(w.n, len(w.head))])
			}
		}
	})
}

// BenchmarkHandlerModernEcho: a 2026-07-28 tools/call echo through the
// Handler, no sockets.
func BenchmarkHandlerModernEcho(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + clientMeta + `,"name":"echo","arguments":{"text":"` + size.text + `"}}}`)
			benchHandler(b, modern2026("tools/call", "Mcp-Name", "echo"), body, nil)
		})
	}
}

// clientMeta is the _meta of a client that sends its clientInfo with
// every request, as most do.
const clientMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}`

// benchSizes are the echo texts of the mcpbench suite.
var benchSizes = []struct{ name, text string }{
	{"16B", strings.Repeat("t", 16)},
	{"64KiB", strings.Repeat("t", 64<<10)},
}

// BenchmarkHandlerLegacyEcho: a 2025-11-25 tools/call echo on a session
// through the Handler, no sockets.
func BenchmarkHandlerLegacyEcho(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) { benchLegacy(b, size.text) })
	}
}

func benchLegacy(b *testing.B, text string) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`)
	headers := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	benchHandler(b, headers, body, func(h http.Handler) map[string]string {
		init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(init))
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		w := &nullWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		sid := w.h.Get("Mcp-Session-Id")
		if sid == "" {
			b.Fatal("no session")
		}
		return map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	})
}

func (w *nullWriter) SetWriteDeadline(time.Time) error { return nil }
func (w *nullWriter) SetReadDeadline(time.Time) error  { return nil }
