package httpc

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bytedance/sonic"

	"github.com/polymcp/polymcp/bench/internal/load"
)

// fakeMCP is a Streamable HTTP echo server that records what it was sent.
// sse answers tools/call as an SSE stream (a priming event, a notification,
// then the answer); session mints and demands a session id; modern demands
// the 2026-07-28 headers.
type fakeMCP struct {
	sse, session, modern bool
	status               int // if not 0, tools/call answers this status with an id-less body

	mu      sync.Mutex
	headers []http.Header
	bodies  []string
}

const testSession = "S3SS10N"

func (f *fakeMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.headers = append(f.headers, r.Header.Clone())
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	var req struct {
		ID     sonic.NoCopyRawMessage `json:"id"`
		Method string                 `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if err := sonic.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	if f.session && req.Method != "initialize" && r.Header.Get("Mcp-Session-Id") != testSession {
		http.Error(w, "no session", 400)
		return
	}
	if f.modern && (r.Header.Get("MCP-Protocol-Version") != ModernVersion || r.Header.Get("Mcp-Method") != req.Method ||
		req.Params.Meta["io.modelcontextprotocol/protocolVersion"] != ModernVersion ||
		(req.Method == "tools/call" && r.Header.Get("Mcp-Name") != req.Params.Name)) {
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"header mismatch"}}`, 400)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result string
	switch req.Method {
	case "initialize":
		if f.session {
			w.Header().Set("Mcp-Session-Id", testSession)
		}
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"9"}}`
	case "tools/list":
		result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake-modern","version":"9"}}}`
	case "tools/call":
		if f.status != 0 {
			http.Error(w, "overloaded", f.status)
			return
		}
		text, _ := sonic.MarshalString(req.Params.Arguments.Text)
		result = `{"content":[{"type":"text","text":` + text + `}]}`
	}
	answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`
	if f.sse && req.Method == "tools/call" {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: 0\ndata:\n\n: a comment\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\n")
		w.(http.Flusher).Flush() // forces chunked encoding
		fmt.Fprintf(w, "event: message\nid: 1\ndata: %s\n\n", answer)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, answer)
}

func dialFake(t *testing.T, f *fakeMCP, mode Mode) *Conn {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/mcp", mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestHandshakeAndCalls(t *testing.T) {
	for _, tc := range []struct {
		name     string
		f        *fakeMCP
		mode     Mode
		info     string
		session  bool
		wantHead []string // in every tools/call POST
	}{
		{"legacy stateful, SSE answers", &fakeMCP{sse: true, session: true}, Legacy, "fake 9 2025-11-25", true,
			[]string{"Mcp-Session-Id: " + testSession, "Mcp-Protocol-Version: 2025-11-25"}},
		{"legacy stateless, JSON answers", &fakeMCP{}, Legacy, "fake 9 2025-11-25", false,
			[]string{"Mcp-Protocol-Version: 2025-11-25"}},
		{"modern", &fakeMCP{modern: true}, Modern, "fake-modern 9 2026-07-28", false,
			[]string{"Mcp-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: echo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialFake(t, tc.f, tc.mode)
			info, err := c.Handshake(5 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Name + " " + info.Version + " " + info.ProtocolVersion; got != tc.info {
				t.Errorf("server info %q, want %q", got, tc.info)
			}
			if (c.Session() != "") != tc.session {
				t.Errorf("session %q", c.Session())
			}
			st, err := load.Run(c, load.Config{Concurrency: 8, Payload: 100, Warmup: 50 * time.Millisecond,
				Duration: 200 * time.Millisecond, CallMeta: c.CallMeta()})
			if err != nil {
				t.Fatal(err)
			}
			if st.Errors != 0 || st.Calls == 0 {
				t.Fatalf("%d calls, %d errors: %q", st.Calls, st.Errors, st.ErrorSamples)
			}
			tc.f.mu.Lock()
			defer tc.f.mu.Unlock()
			h, body := tc.f.headers[len(tc.f.headers)-1], tc.f.bodies[len(tc.f.bodies)-1]
			if !strings.Contains(body, `"method":"tools/call"`) {
				t.Fatalf("last body %.200s", body)
			}
			for _, want := range tc.wantHead {
				k, v, _ := strings.Cut(want, ": ")
				if h.Get(k) != v {
					t.Errorf("%s: %q, want %q", k, h.Get(k), v)
				}
			}
			if h.Get("Accept") != "application/json, text/event-stream" || h.Get("Content-Type") != "application/json" {
				t.Errorf("Accept %q Content-Type %q", h.Get("Accept"), h.Get("Content-Type"))
			}
			if tc.mode == Modern && !strings.Contains(body, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`) {
				t.Errorf("no _meta in %.300s", body)
			}
		})
	}
}

// An HTTP error without a JSON-RPC answer counts as an error of that request
// and frees its slot, so the run ends cleanly with every request accounted for.
func TestHTTPErrorIsAnErrorAnswer(t *testing.T) {
	c := dialFake(t, &fakeMCP{status: 503}, Legacy)
	if _, err := c.Handshake(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	st, err := load.Run(c, load.Config{Concurrency: 4, Payload: 16, Warmup: 10 * time.Millisecond, Duration: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if st.Calls != 0 || st.Errors != st.Sent || len(st.ErrorSamples) == 0 || !strings.Contains(st.ErrorSamples[0], "HTTP 503") {
		t.Fatalf("%d calls, %d errors of %d sent: %q", st.Calls, st.Errors, st.Sent, st.ErrorSamples)
	}
}

func TestEvents(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"data: a\n\n", []string{"a"}},
		{"id: 1\ndata:\n\nevent: message\ndata: {}\n\n", []string{"{}"}},
		{": c\r\ndata: x\r\ndata:y\r\n\r\ndata: z", []string{"x\ny", "z"}},
		{"event: message\nretry: 10\n\n", nil},
	} {
		var got []string
		for _, e := range events([]byte(tc.in)) {
			got = append(got, string(e))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("events(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
