package streamhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
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
