package dispatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// metaCases are _meta objects of every shape readPlain takes or leaves to
// the decoder.
var metaCases = []struct {
	meta  string
	plain bool // readPlain reads it
}{
	{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`, true},
	{` { "progressToken" : 7 , "io.modelcontextprotocol/logLevel" : "debug", "other": [1,{"progressToken":2}] } `, true},
	{`{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"progressToken":"t-1"}`, true},
	{`{}`, true},
	{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25"}`, false},
	{`{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28"}`, false},
	{`{"io.modelcontextprotocol/protocolVersion":null}`, false},
	{`{"io.modelcontextprotocol/protocolVersion":20260728}`, false},
	{`{"io.modelcontextprotocol/clientCapabilities":null}`, false},
	{`{"progressToken":null}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`, true},
	{`{"io.modelcontextprotocol/clientInfo":{"name":"c","title":"C","version":"1","description":"d","websiteUrl":"https://c.example","x":[{"name":2}]}}`, true},
	{`{"io.modelcontextprotocol/clientInfo":{}}`, true},
	{`{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","icons":[{"src":"data:,"}]}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"name":"c","icons":null}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"name":7}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"name":null,"version":"1"}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"name":"\u0063"}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"name":"a","name":"b"}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"Name":"a"}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":{"websiteURL":"u"}}`, false},
	{`{"io.modelcontextprotocol/clientInfo":null}`, false},
	{`{"io.modelcontextprotocol/clientInfo":"c"}`, false},
	{`{"io.modelcontextprotocol/clientInfo":[]}`, false},
	{`{"io.modelcontextprotocol/logLevel":["debug"]}`, false},
	{`{"progress\u0054oken":1,"progressToken":2}`, false},
	{`{"io.modelcontextprotocol/CLIENTCAPABILITIES":"x"}`, false}, // the decoder matches names in any case
	{"{\"progre\u017ftoken\":1}", false},                          // the long s folds to s
}

// What readPlain reads is what the decoder reads from the same bytes.
func TestReadPlainAgreesWithTheDecoder(t *testing.T) {
	for _, tc := range metaCases {
		t.Run(tc.meta, func(t *testing.T) {
			var plain requestMeta
			var infos memo[spec.Implementation]
			require.Equal(t, tc.plain, plain.readPlain([]byte(tc.meta), &infos))
			if tc.plain {
				assertSameMeta(t, []byte(tc.meta), &plain)
			}
		})
	}
}

func FuzzReadPlain(f *testing.F) {
	for _, tc := range metaCases {
		f.Add(tc.meta)
	}
	f.Fuzz(func(t *testing.T, meta string) {
		raw := []byte(meta)
		if jsonrpc.Valid(raw, jsonrpc.Limits{}) != nil || len(raw) == 0 || raw[0] != '{' {
			return // admit sees only validated objects
		}
		var plain requestMeta
		var infos memo[spec.Implementation]
		if plain.readPlain(raw, &infos) {
			assertSameMeta(t, raw, &plain)
		}
	})
}

func assertSameMeta(t *testing.T, raw []byte, plain *requestMeta) {
	t.Helper()
	var decoded requestMeta
	require.NoError(t, jsonrpc.UnmarshalDecoded(raw, &decoded))
	assert.Equal(t, decoded.ProtocolVersion, plain.ProtocolVersion)
	assert.Equal(t, decoded.LogLevel, plain.LogLevel)
	assert.Equal(t, decoded.ClientInfo, plain.ClientInfo)
	assert.Equal(t, string(decoded.ClientCapabilities), string(plain.ClientCapabilities))
	assert.Equal(t, string(decoded.ProgressToken), string(plain.ProgressToken))
}
