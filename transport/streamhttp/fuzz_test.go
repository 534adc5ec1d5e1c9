package streamhttp

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

// FuzzHeaderValue: Mcp-Name / Mcp-Param-* values never crash the decoder,
// a decoded sentinel is valid UTF-8, and encoding then decoding is lossless.
func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"echo", " echo\t", "=?base64?ZWNobw==?=", "=?base64??=", "=?base64?ZWNob?=",
		"=?BASE64?ZWNobw==?=", "=?base64?/w==?=", "=?base64?", "?=", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := decodeSentinel(v)
		if ok && got != v {
			assert.True(t, utf8.ValidString(got))
		}
		if utf8.ValidString(v) {
			enc := sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
			back, ok := decodeSentinel(enc)
			assert.True(t, ok)
			assert.Equal(t, v, back)
		}
		h := http.Header{"Mcp-Name": {v}}
		val, present, ok := headerValue(h, hdrName)
		assert.True(t, present)
		if ok && !strings.HasPrefix(trimOWS(v), sentinelPrefix) {
			assert.Equal(t, trimOWS(v), val)
		}
	})
}

// FuzzParamMatches: any JSON argument against any header value, no crash;
// a string always matches itself.
func FuzzParamMatches(f *testing.F) {
	for _, s := range [][2]string{{`"eu"`, "eu"}, {`7`, "7"}, {`7.0`, "7"}, {`1e2`, "100"}, {`true`, "true"},
		{`9007199254740993`, "9007199254740993"}, {`-0`, "0"}, {`{}`, ""}, {`"a\"b"`, `a"b`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, raw, header string) {
		if raw == "" {
			return
		}
		_ = paramMatches([]byte(raw), header)
		if utf8.ValidString(header) {
			q, err := jsonQuote(header)
			require.NoError(t, err)
			assert.True(t, paramMatches(q, header), "%s vs %q", q, header)
		}
	})
}

// FuzzCollectParams: any schema a server may send is walked without a
// crash, and the annotations kept are valid: token names, unique in any
// case, each on a property.
func FuzzCollectParams(f *testing.F) {
	for _, s := range []string{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}`,
		`{"properties":{"a":{"type":"integer","x-mcp-header":"a"},"b":{"type":"boolean","x-mcp-header":"A"}}}`,
		`{"anyOf":[{"properties":{"t":{"type":"string","x-mcp-header":"T"}}}],"items":[{"x-mcp-header":1}]}`,
		`{"x-mcp-header":"Q"}`, `[]`, `"x"`, `{"properties":{"p":{"properties":{"q":{"type":"string","x-mcp-header":"Q"}}}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		if jsonrpc.Valid([]byte(schema), jsonrpc.Limits{}) != nil {
			return
		}
		params, _ := collectParams([]byte(schema))
		seen := map[string]bool{}
		for _, p := range params {
			assert.True(t, isToken(p.name), "%q", p.name)
			assert.False(t, seen[strings.ToLower(p.name)], "%q twice", p.name)
			seen[strings.ToLower(p.name)] = true
			assert.NotEmpty(t, p.path)
		}
	})
}

// FuzzOrigin: Origin and Host parsing never crash, and what they accept
// carries no userinfo, path or whitespace.
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{"http://localhost:3000", "https://[::1]", "http://user@localhost", "null",
		"http://localhost/", "HTTP://LOCALHOST", "http://[::ffff:127.0.0.1]", "http://127.0.0.1:99999",
		"http://a:b:c", "http://[fe80::1%25eth0]", "http://example.com.", "http://:80"} {
		f.Add(s)
	}
	p := newPolicy(&Options{AllowedOriginHosts: []string{"example.com:8443"}})
	f.Fuzz(func(t *testing.T, v string) {
		scheme, host, port, ok := parseOrigin(v)
		if ok {
			assert.Contains(t, []string{"http", "https"}, scheme)
			assert.NotContains(t, host, "@")
			assert.NotContains(t, host, "/")
			assert.Equal(t, strings.ToLower(host), host)
			assert.True(t, port == "" || validPort(port))
		}
		_ = p.originAllowed([]string{v})
		_ = p.hostAllowed(v, "127.0.0.1:1")
		if h, _, ok := splitHostPort(v); ok {
			assert.NotContains(t, h, "@")
			assert.NotContains(t, h, " ")
		}
	})
}

// FuzzPrepare: any body with any MCP headers is judged without a crash,
// with a status the package documents; what Prepare passes, Execute runs
// to completion.
func FuzzPrepare(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	seeds := [][3]string{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, "2026-07-28", "tools/list"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu"},` + meta + `}}`, "2026-07-28", "tools/call"},
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "2025-03-26", ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "2025-06-18", ""},
		{`{"jsonrpc":`, "", ""},
		{`[]`, "", ""},
		{`null`, "2026-07-28", "x"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], "route", "=?base64?ZXU=?=")
	}
	allowed := map[int]bool{200: true, 202: true, 400: true, 404: true, 405: true, 406: true, 409: true, 413: true, 503: true}
	e := newTestEngine(f, &Options{MaxBodyBytes: 4096})
	f.Fuzz(func(t *testing.T, body, version, method, name, param string) {
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
		for k, v := range map[string]string{hdrProtocolVersion: version, hdrMethod: method, hdrName: name, "Mcp-Param-Region": param} {
			if v != "" {
				h[k] = []string{v}
			}
		}
		p, resp := e.Prepare(&Request{Method: http.MethodPost, Path: "/mcp", Header: h, Host: "localhost", Body: []byte(body)})
		if resp != nil {
			assert.True(t, allowed[resp.Status], "status %d", resp.Status)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out := &recorder{}
		_ = e.Execute(ctx, p, out)
		assert.True(t, allowed[out.status] || out.status == 500, "status %d", out.status)
	})
}

// recorder is an Output that keeps what is written.
type recorder struct {
	status int
	header http.Header
	body   []byte
}

func (r *recorder) Start(status int, h http.Header) error {
	r.status, r.header = status, h
	return nil
}

func (r *recorder) Write(b []byte) error {
	r.body = append(r.body, b...)
	return nil
}

func (r *recorder) Flush() error { return nil }

// FuzzPreflight: whatever a preflight's Origin and header list hold, the
// answer is 204 or 403, grants only an allowed origin, and echoes only a
// list of header names (nothing that could break the header block).
func FuzzPreflight(f *testing.F) {
	for _, s := range [][2]string{
		{"http://localhost:6274", "content-type,mcp-method"},
		{"http://evil.example", "content-type"},
		{"https://[::1]:8443", " Content-Type , X-A "},
		{"null", ""},
		{"http://localhost", "x-a/b"},
		{"http://localhost\r\nX: y", "a\r\nb"},
	} {
		f.Add(s[0], s[1])
	}
	e := newTestEngine(f, &Options{})
	f.Fuzz(func(t *testing.T, origin, asked string) {
		h := http.Header{"Origin": {origin}, "Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {asked}}
		r := &Request{Method: http.MethodOptions, Path: "/mcp", Header: h, Host: "localhost"}
		_, resp := e.Prepare(r)
		require.NotNil(t, resp)
		allowed := e.pol.originAllowed([]string{origin})
		if !allowed {
			assert.Equal(t, http.StatusForbidden, resp.Status)
			assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
			assert.Nil(t, e.CORSHeader(r))
			return
		}
		assert.Equal(t, http.StatusNoContent, resp.Status)
		// The grant of the origin goes on every head, from CORSHeader.
		assert.Equal(t, strings.TrimSpace(origin), e.CORSHeader(r).Get("Access-Control-Allow-Origin"))
		granted := resp.Header.Get("Access-Control-Allow-Headers")
		assert.True(t, isTokenList(granted), "%q", granted)
		assert.False(t, strings.ContainsAny(granted, "\r\n\x00"), "%q", granted)
	})
}
