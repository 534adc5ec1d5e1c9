package client

import (
	"encoding/json"
	"testing"

	"github.com/polymcp/polymcp/core/spec"
)

// BenchmarkEncodeModernCall is the encoding of one 2026-07-28 tools/call:
// the client's own CPU per small call, before the transport.
func BenchmarkEncodeModernCall(b *testing.B) {
	c := &Client{o: (&Options{}).withDefaults(), modern: true, revision: spec.Rev20260728}
	c.caps, _ = c.o.capabilities()
	if err := c.encodeIdentity(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := range b.N {
		params := map[string]any{"name": "echo", "arguments": json.RawMessage(`{"text":"abcdefghijklmnop"}`)}
		if _, err := c.encodeRequest(int64(i), "tools/call", params, nil); err != nil {
			b.Fatal(err)
		}
	}
}
