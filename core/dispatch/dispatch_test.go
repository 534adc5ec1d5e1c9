package dispatch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/transport"
)

const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}`

// TestWire checks literal request → literal answer pairs. Each case opens a
// fresh session; setup messages are sent first and their answers dropped.
func TestWire(t *testing.T) {
	cases := []struct {
		name  string
		setup []string
		send  string
		want  string // empty: no answer at all
	}{
		{"initMsg echoes a supported version", nil, initMsg,
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"t","version":"1"}}}`},
		{"initMsg answers the newest legacy version for an unknown one", nil,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"t","version":"1"}}}`},
		{"second initMsg is refused", []string{initMsg}, initMsg,
			`{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"session already initialized"}}`},
		{"ping before initialize", nil, `{"jsonrpc":"2.0","id":"p","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"p","result":{}}`},
		{"request before initialize", nil, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"session not initialized: send initialize first, or put \"io.modelcontextprotocol/protocolVersion\" in params._meta"}}`},
		{"unknown method", []string{initMsg}, `{"jsonrpc":"2.0","id":3,"method":"nope"}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: nope"}}`},
		{"unknown tool is a protocol error", []string{initMsg},
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"missing"}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool: missing"}}`},
		{"echo", []string{initMsg},
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo"}}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"héllo"}]}}`},
		{"arguments not an object", []string{initMsg},
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`, ""},
		{"legacy missing resource", []string{initMsg},
			`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"test://none"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"resource not found: test://none","data":{"uri":"test://none"}}}`},
		{"notification gets no answer", []string{initMsg}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{"response from the client is dropped", []string{initMsg}, `{"jsonrpc":"2.0","id":9,"result":{}}`, ""},
		{"parse error", nil, `{"jsonrpc":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"*"}}`},
		{"modern discover", nil, `{"jsonrpc":"2.0","id":10,"method":"server/discover","params":{` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":10,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","supportedVersions":["2026-07-28"],"capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},` + serverInfo + `}}`},
		{"modern echo", nil, `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":11,"result":{"resultType":"complete","content":[{"type":"text","text":"x"}],` + serverInfo + `}}`},
		{"modern missing capabilities", nil, `{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"params._meta[\"io.modelcontextprotocol/clientCapabilities\"] is required and must be an object"}}`},
		{"modern unsupported version", nil, `{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"jsonrpc":"2.0","id":13,"error":{"code":-32022,"message":"unsupported protocol version \"2030-01-01\"","data":{"requested":"2030-01-01","supported":["2026-07-28"]}}}`},
		{"modern ping is not a method", nil, `{"jsonrpc":"2.0","id":14,"method":"ping","params":{` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":14,"error":{"code":-32601,"message":"method not found: ping"}}`},
		{"modern missing resource", nil, `{"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"test://none",` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":15,"error":{"code":-32602,"message":"resource not found: test://none","data":{"uri":"test://none"}}}`},
		{"modern read carries cache hints", nil, `{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"test://a",` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":16,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","contents":[{"uri":"test://a","mimeType":"text/plain","text":"A"}],` + serverInfo + `}}`},
		{"batch refused outside 2025-03-26", []string{initMsg}, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches are only accepted at revision 2025-03-26, not 2025-06-18"}}`},
	}
	f := newFixture(t, executor.Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, in := f.session(transport.Info{Name: "test", Batches: true})
			defer s.Close()
			for _, m := range tc.setup {
				s.deliverString(m, in)
				in.next(t)
			}
			s.deliverString(tc.send, in)
			if tc.want == "" {
				if tc.name == "arguments not an object" {
					assert.Contains(t, in.next(t), `"code":-32602`)
					return
				}
				in.none(t, 50*time.Millisecond)
				return
			}
			got := in.next(t)
			if tc.want[len(tc.want)-5:] == `"*"}}` {
				assert.Contains(t, got, `"code":-32700`)
				return
			}
			assert.JSONEq(t, tc.want, got)
		})
	}
}

func TestInitializeNegotiatesEveryLegacyRevision(t *testing.T) {
	f := newFixture(t, executor.Options{})
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		s, in := f.session(transport.Info{Name: "test"})
		s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+rev+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, in)
		assert.Contains(t, in.next(t), `"protocolVersion":"`+rev+`"`)
		s.Close()
	}
}

func TestBatch20250326(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := f.session(transport.Info{Name: "test", Batches: true})
	defer s.Close()
	s.deliverString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, in)
	in.next(t)
	s.deliverString(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}]`, in)
	got := in.next(t)
	require.Regexp(t, `^\[.*\]$`, got)
	assert.Contains(t, got, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	assert.Contains(t, got, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"b"}]}}`)
	assert.Contains(t, got, `"id":3,"error":{"code":-32600,"message":"initialize must not be batched"}`)
	// A batch of notifications only is answered with nothing.
	s.deliverString(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, in)
	in.none(t, 50*time.Millisecond)
}
