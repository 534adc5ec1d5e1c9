package streamhttp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/streamhttp"
)

const listBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`

// TestSecurityAndLimits covers the checks made before any JSON is read,
// which apply to every revision alike.
func TestSecurityAndLimits(t *testing.T) {
	f := newFixture(t)
	def := f.serve(t, &streamhttp.Options{MaxBodyBytes: 1000})
	custom := f.serve(t, &streamhttp.Options{
		AllowedOriginHosts: []string{"app.example.com:8443", "https://secure.example.com"},
		AllowedHosts:       []string{"mcp.example.com"},
	})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 1000) + `",` + meta + `}}`
	cases := []struct {
		name   string
		ts     string
		method string
		path   string
		header map[string]string
		body   string
		status int
	}{
		{"plain request", "def", "POST", "/mcp", modern2026("tools/list"), listBody, 200},
		{"loopback origin, any port", "def", "POST", "/mcp", modern2026("tools/list", "Origin", "http://localhost:5173"), listBody, 200},
		{"loopback IPv6 origin", "def", "POST", "/mcp", modern2026("tools/list", "Origin", "https://[::1]"), listBody, 200},
		{"foreign origin", "def", "POST", "/mcp", modern2026("tools/list", "Origin", "http://evil.example"), listBody, 403},
		{"origin with userinfo", "def", "POST", "/mcp", modern2026("tools/list", "Origin", "http://user@localhost"), listBody, 403},
		{"null origin", "def", "POST", "/mcp", modern2026("tools/list", "Origin", "null"), listBody, 403},
		{"origin with a path", "def", "POST", "/mcp", modern2026("tools/list", "Origin", "http://localhost/x"), listBody, 403},
		{"other scheme", "def", "POST", "/mcp", modern2026("tools/list", "Origin", "file://localhost"), listBody, 403},
		{"origin check on GET too", "def", "GET", "/mcp", map[string]string{"Origin": "http://evil.example", "Accept": "text/event-stream"}, "", 403},
		{"allowed origin with its port", "custom", "POST", "/mcp", modern2026("tools/list", "Origin", "http://app.example.com:8443"), listBody, 200},
		{"allowed origin, other port", "custom", "POST", "/mcp", modern2026("tools/list", "Origin", "http://app.example.com:9000"), listBody, 403},
		{"allowed origin, pinned scheme", "custom", "POST", "/mcp", modern2026("tools/list", "Origin", "https://secure.example.com"), listBody, 200},
		{"allowed origin, other scheme", "custom", "POST", "/mcp", modern2026("tools/list", "Origin", "http://secure.example.com"), listBody, 403},
		{"foreign host (DNS rebinding)", "def", "POST", "/mcp", modern2026("tools/list", "Host", "evil.example"), listBody, 421},
		{"foreign host with port", "def", "POST", "/mcp", modern2026("tools/list", "Host", "evil.example:80"), listBody, 421},
		{"localhost host", "def", "POST", "/mcp", modern2026("tools/list", "Host", "localhost:1"), listBody, 200},
		{"allowed proxy host", "custom", "POST", "/mcp", modern2026("tools/list", "Host", "mcp.example.com"), listBody, 200},
		{"wrong content type", "def", "POST", "/mcp", modern2026("tools/list", "Content-Type", "text/plain"), listBody, 415},
		{"no content type", "def", "POST", "/mcp", modern2026("tools/list", "Content-Type", ""), listBody, 415},
		{"accept lacks SSE", "def", "POST", "/mcp", modern2026("tools/list", "Accept", "application/json"), listBody, 406},
		{"accept lacks JSON", "def", "POST", "/mcp", modern2026("tools/list", "Accept", "text/event-stream"), listBody, 406},
		{"accept with q=0", "def", "POST", "/mcp", modern2026("tools/list", "Accept", "application/json, text/event-stream;q=0"), listBody, 406},
		{"accept wildcard", "def", "POST", "/mcp", modern2026("tools/list", "Accept", "*/*"), listBody, 200},
		{"accept type ranges", "def", "POST", "/mcp", modern2026("tools/list", "Accept", "Application/*, TEXT/*;q=0.5"), listBody, 200},
		{"accept range with q=0", "def", "POST", "/mcp", modern2026("tools/list", "Accept", "application/json, text/*;q=0"), listBody, 406},
		{"accept other range", "def", "POST", "/mcp", modern2026("tools/list", "Accept", "application/json, image/*"), listBody, 406},
		{"no accept", "def", "POST", "/mcp", modern2026("tools/list", "Accept", ""), listBody, 406},
		{"body over the limit", "def", "POST", "/mcp", modern2026("tools/list"), big, 413},
		{"unknown path", "def", "POST", "/other", modern2026("tools/list"), listBody, 404},
		{"PUT", "def", "PUT", "/mcp", modern2026("tools/list"), listBody, 405},
		{"GET of /message", "def", "GET", "/message", map[string]string{}, "", 405},
		{"POST to /sse", "def", "POST", "/sse", modern2026("tools/list"), listBody, 405},
	}
	urls := map[string]string{"def": def.URL, "custom": custom.URL}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, nil, tc.method, urls[tc.ts]+tc.path, tc.header, tc.body)
			require.Equal(t, tc.status, a.status, a.body)
			if tc.status >= 400 {
				assert.Equal(t, "application/json", a.header.Get("Content-Type"))
				assert.Equal(t, -32600, errorCode(t, a.body), a.body)
			}
		})
	}
}

// TestBodyLimitWhileReading: a chunked body (no Content-Length) is cut off
// at the limit with 413, before any decoding.
func TestBodyLimitWhileReading(t *testing.T) {
	ts := newFixture(t).serve(t, &streamhttp.Options{MaxBodyBytes: 1000})
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", struct{ *strings.Reader }{strings.NewReader(strings.Repeat(" ", 5000) + listBody)})
	require.NoError(t, err)
	for k, v := range modern2026("tools/list") {
		req.Header.Set(k, v)
	}
	req.ContentLength = -1 // unknown: sent chunked
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// TestServeBody: a body a framework already read is served as is, and the
// limit still holds.
func TestServeBody(t *testing.T) {
	f := newFixture(t)
	h, ok := f.srv.HTTPHandler(&streamhttp.Options{MaxBodyBytes: 1000}).(*streamhttp.Handler)
	require.True(t, ok)
	for _, tc := range []struct {
		body   string
		status int
	}{{listBody, 200}, {listBody + strings.Repeat(" ", 1000), 413}} {
		rec := newRecorder()
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", http.NoBody)
		for k, v := range modern2026("tools/list") {
			req.Header.Set(k, v)
		}
		h.ServeBody(rec, req, []byte(tc.body))
		assert.Equal(t, tc.status, rec.Code)
	}
}
