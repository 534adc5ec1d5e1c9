package streamhttp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/streamhttp"
)

// TestCORS: browser pages of allowed origins get CORS answers, preflight
// and every other answer alike; other origins get 403 and no CORS header;
// DisableCORS turns it all off.
func TestCORS(t *testing.T) {
	f := newFixture(t)
	on := f.serve(t, &streamhttp.Options{AllowedOriginHosts: []string{"app.example.com"}})
	off := f.serve(t, &streamhttp.Options{DisableCORS: true})
	const page = "http://localhost:6274"
	preflight := func(origin, asked string) map[string]string {
		h := map[string]string{"Access-Control-Request-Method": "POST"}
		if origin != "" {
			h["Origin"] = origin
		}
		if asked != "" {
			h["Access-Control-Request-Headers"] = asked
		}
		return h
	}
	sseGet := map[string]string{"Origin": page, "Accept": "text/event-stream"}
	cases := []struct {
		name   string
		url    string
		method string
		path   string
		header map[string]string
		body   string
		status int
		want   map[string]string // headers the answer must carry ("" = must not carry)
	}{
		{"preflight, loopback page", on.URL, "OPTIONS", "/mcp", preflight(page, "content-type,mcp-protocol-version,mcp-method"), "", 204, map[string]string{
			"Access-Control-Allow-Origin":  page,
			"Access-Control-Allow-Methods": "GET, POST, DELETE",
			"Access-Control-Allow-Headers": "content-type,mcp-protocol-version,mcp-method",
			"Access-Control-Max-Age":       "600",
			"Allow":                        "GET, POST, DELETE, OPTIONS",
			"Vary":                         "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
		}},
		{"preflight without a header list", on.URL, "OPTIONS", "/mcp", preflight("http://app.example.com", ""), "", 204, map[string]string{
			"Access-Control-Allow-Origin":  "http://app.example.com",
			"Access-Control-Allow-Headers": "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-Id",
		}},
		{"preflight asking for a header that is not a name", on.URL, "OPTIONS", "/mcp", preflight(page, "x-a/b"), "", 204, map[string]string{
			"Access-Control-Allow-Headers": "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-Id",
		}},
		{"preflight at /message", on.URL, "OPTIONS", "/message", preflight(page, "content-type"), "", 204, map[string]string{
			"Access-Control-Allow-Methods": "POST",
			"Allow":                        "POST, OPTIONS",
		}},
		{"OPTIONS without Origin", on.URL, "OPTIONS", "/mcp", preflight("", ""), "", 204, map[string]string{
			"Allow":                       "GET, POST, DELETE, OPTIONS",
			"Access-Control-Allow-Origin": "",
		}},
		{"preflight, foreign page", on.URL, "OPTIONS", "/mcp", preflight("http://evil.example", "content-type"), "", 403, map[string]string{
			"Access-Control-Allow-Origin": "",
		}},
		{"preflight at an unknown path", on.URL, "OPTIONS", "/other", preflight(page, ""), "", 404, map[string]string{
			"Access-Control-Allow-Origin": page,
		}},
		{"POST, loopback page", on.URL, "POST", "/mcp", modern2026("tools/list", "Origin", page), listBody, 200, map[string]string{
			"Access-Control-Allow-Origin":   page,
			"Access-Control-Expose-Headers": "Mcp-Session-Id, Mcp-Protocol-Version",
			"Vary":                          "Origin",
		}},
		{"initialize: the session id is exposed", on.URL, "POST", "/mcp", withOrigin(legacyHeader(), page), initBody("2025-06-18"), 200, map[string]string{
			"Access-Control-Allow-Origin":   page,
			"Access-Control-Expose-Headers": "Mcp-Session-Id, Mcp-Protocol-Version",
		}},
		{"an error answer", on.URL, "POST", "/mcp", modern2026("tools/list", "Origin", page, "Accept", "application/json"), listBody, 406, map[string]string{
			"Access-Control-Allow-Origin": page,
		}},
		{"a refused GET stream", on.URL, "GET", "/mcp", sseGet, "", 405, map[string]string{
			"Access-Control-Allow-Origin": page,
			"Allow":                       "POST",
		}},
		{"POST, foreign page", on.URL, "POST", "/mcp", modern2026("tools/list", "Origin", "http://evil.example"), listBody, 403, map[string]string{
			"Access-Control-Allow-Origin": "",
		}},
		{"PUT says OPTIONS is allowed", on.URL, "PUT", "/mcp", map[string]string{}, "", 405, map[string]string{
			"Allow": "GET, POST, DELETE, OPTIONS",
		}},
		{"disabled: preflight", off.URL, "OPTIONS", "/mcp", preflight(page, "content-type"), "", 405, map[string]string{
			"Allow":                       "GET, POST, DELETE",
			"Access-Control-Allow-Origin": "",
		}},
		{"disabled: POST", off.URL, "POST", "/mcp", modern2026("tools/list", "Origin", page), listBody, 200, map[string]string{
			"Access-Control-Allow-Origin":   "",
			"Access-Control-Expose-Headers": "",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, nil, tc.method, tc.url+tc.path, tc.header, tc.body)
			require.Equal(t, tc.status, a.status, a.body)
			for k, v := range tc.want {
				if v == "" {
					assert.Empty(t, a.header.Values(k), k)
				} else {
					assert.Equal(t, []string{v}, a.header.Values(k), k)
				}
			}
			if tc.status == http.StatusNoContent {
				assert.Empty(t, a.body)
			}
		})
	}
}

func withOrigin(h map[string]string, origin string) map[string]string {
	h["Origin"] = origin
	return h
}
