package host

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	modernEcho = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + modernMeta + `}}`
	echoAnswer = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"polymcp-server","version":"0.0.0"}},` +
		`"content":[{"type":"text","text":"hi"}]}}`
)

var modernHeaders = map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
	"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}

func answerEcho(call uint64, _ uint32, _ uint64, _ []byte) {
	_ = Complete(call, []byte(`{"content":[{"type":"text","text":"hi"}]}`))
}

func TestServeHTTP(t *testing.T) {
	f := newFixture(t, "", answerEcho)
	_, err := ServeHTTP(f.server, []byte(`{"path":"nope"}`))
	assert.Equal(t, EInvalid, CodeOf(err))
	_, err = ServeHTTP(f.server, []byte(`{"addr":"256.0.0.1:1"}`))
	assert.Equal(t, EIO, CodeOf(err))
	url, err := ServeHTTP(f.server, []byte(`{"addr":"127.0.0.1:0"}`))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:") && strings.HasSuffix(url, "/mcp"), url)

	req, err := http.NewRequest("POST", url, strings.NewReader(modernEcho))
	require.NoError(t, err)
	for k, v := range modernHeaders {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, echoAnswer, string(bytes.TrimSpace(body)))

	assert.Equal(t, ETimeout, CodeOf(Wait(f.server, 0)), "the listener is a running transport")
	require.NoError(t, Close(f.server))
	require.NoError(t, Wait(f.server, -1))
}

// recorder is a host's HTTP output.
type recorder struct {
	mu      sync.Mutex
	status  int
	headers string
	body    bytes.Buffer
	flushes int
	end     chan Code
}

func newRecorder() *recorder { return &recorder{end: make(chan Code, 1)} }

func (r *recorder) Start(status int, headers []byte) {
	r.mu.Lock()
	r.status, r.headers = status, string(headers)
	r.mu.Unlock()
}

func (r *recorder) Write(chunk []byte) { r.mu.Lock(); r.body.Write(chunk); r.mu.Unlock() }
func (r *recorder) Flush()             { r.mu.Lock(); r.flushes++; r.mu.Unlock() }
func (r *recorder) End(code Code)      { r.end <- code }

func (r *recorder) wait(t *testing.T) Code {
	t.Helper()
	select {
	case c := <-r.end:
		return c
	case <-timeout():
		t.Fatal("no End")
		return 0
	}
}

func requestJSON(method string, headers map[string]string) []byte {
	var b strings.Builder
	b.WriteString(`{"method":"` + method + `","path":"/mcp","host":"localhost:3000","headers":{`)
	first := true
	for k, v := range headers {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`"` + k + `":"` + v + `"`)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

func TestHostOwnedHTTP(t *testing.T) {
	f := newFixture(t, "", answerEcho)
	r := newRecorder()
	_, err := HTTP(f.server, requestJSON("POST", modernHeaders), []byte(modernEcho), r)
	require.NoError(t, err)
	require.Equal(t, OK, r.wait(t))
	assert.Equal(t, 200, r.status)
	assert.Contains(t, r.headers, `"Content-Type":["application/json"]`)
	assert.JSONEq(t, echoAnswer, strings.TrimSpace(r.body.String()))

	// Answered by Prepare alone: a wrong method is 405.
	r = newRecorder()
	_, err = HTTP(f.server, requestJSON("PUT", modernHeaders), nil, r)
	require.NoError(t, err)
	require.Equal(t, OK, r.wait(t))
	assert.Equal(t, 405, r.status)

	for _, bad := range []string{``, `[]`, `{"method":1}`, `{"headers":{"A":1}}`} {
		_, err = HTTP(f.server, []byte(bad), nil, newRecorder())
		assert.Equal(t, EInvalid, CodeOf(err), bad)
	}
	assert.Equal(t, EBadHandle, CodeOf(CancelHTTP(0)))
}

// TestHostOwnedHTTPCORS: a host's answers to a browser page of an allowed
// origin carry the CORS headers, those Prepare gives as well as Execute's;
// "disable_cors" leaves them out.
func TestHostOwnedHTTPCORS(t *testing.T) {
	browser := map[string]string{"Origin": "http://localhost:6274"}
	for k, v := range modernHeaders {
		browser[k] = v
	}
	const allow = `"Access-Control-Allow-Origin":["http://localhost:6274"]`
	cases := []struct {
		name, options, method, body string
		status                      int
		cors                        bool
		vary                        string // the answer's Vary, its own over the CORS one
	}{
		{"an answer", "", "POST", modernEcho, 200, true, `"Vary":["Origin"]`},
		{"a preflight", "", "OPTIONS", "", 204, true, `"Vary":["Origin, Access-Control-Request-Method, Access-Control-Request-Headers"]`},
		{"disabled", `{"http":{"disable_cors":true}}`, "POST", modernEcho, 200, false, ""},
		{"disabled preflight", `{"http":{"disable_cors":true}}`, "OPTIONS", "", 405, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.options, answerEcho)
			r := newRecorder()
			_, err := HTTP(f.server, requestJSON(tc.method, browser), []byte(tc.body), r)
			require.NoError(t, err)
			require.Equal(t, OK, r.wait(t))
			assert.Equal(t, tc.status, r.status)
			if tc.cors {
				assert.Contains(t, r.headers, allow)
				assert.Contains(t, r.headers, tc.vary)
			} else {
				assert.NotContains(t, r.headers, "Access-Control")
			}
		})
	}
}

// TestHostOwnedHTTPCancel: a client that goes away cancels the 2026-07-28
// call (on_cancel) and ends the exchange.
func TestHostOwnedHTTPCancel(t *testing.T) {
	f := newFixture(t, "", nil)
	r := newRecorder()
	h, err := HTTP(f.server, requestJSON("POST", modernHeaders), []byte(modernEcho), r)
	require.NoError(t, err)
	waitFor(t, "on_call", func() bool { return f.host.count("call") == 1 })
	require.NoError(t, CancelHTTP(h))
	assert.Equal(t, EClosed, r.wait(t))
	waitFor(t, "on_cancel", func() bool { return f.host.count("cancel") == 1 })
	assert.Equal(t, EUnknownCall, CodeOf(CancelHTTP(h)), "the exchange has ended")
	assert.Zero(t, CurrentStats().HTTP)
}

// TestHostOwnedHTTPClose: closing the server ends exchanges in flight
// before on_closed.
func TestHostOwnedHTTPClose(t *testing.T) {
	f := newFixture(t, "", nil)
	r := newRecorder()
	_, err := HTTP(f.server, requestJSON("POST", modernHeaders), []byte(modernEcho), r)
	require.NoError(t, err)
	waitFor(t, "on_call", func() bool { return f.host.count("call") == 1 })
	require.NoError(t, Close(f.server))
	r.wait(t)
	require.NoError(t, Wait(f.server, -1))
	assert.Zero(t, CurrentStats().HTTP)
	_, err = HTTP(f.server, requestJSON("POST", modernHeaders), []byte(modernEcho), newRecorder())
	assert.Equal(t, EClosed, CodeOf(err))
}
