package dispatch

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/transport"
)

// FuzzDeliver hands any frame to a fresh session, legacy-initialized or
// not: nothing panics, and whatever the session sent by the time Close
// returns is, message by message, a JSON object or an array of them (a
// batch's answers).
func FuzzDeliver(f *testing.F) {
	for _, seed := range []string{
		initMsg,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + modernMeta + `,"name":"echo","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},` +
			`"progressToken":7},"name":"echo","arguments":{"text":"\u00e9"},"inputResponses":{"k":{}},"requestState":"x"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{` + modernMeta + `,"uri":"test://a"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{` + modernMeta + `,"name":"p"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{` + modernMeta + `}}`,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	fx := newFixture(f, executor.Options{})
	f.Fuzz(func(t *testing.T, frame string, initialized bool) {
		s, in := fx.session(transport.Info{Name: "fuzz", Batches: true})
		if initialized {
			s.deliverString(initMsg, in)
			if _, ok := in.wait(); !ok {
				t.Fatal("initialize unanswered")
			}
		}
		s.Deliver(context.Background(), []byte(frame), in)
		s.Close()
		in.mu.Lock()
		defer in.mu.Unlock()
		for _, m := range in.msgs {
			var v any
			if err := json.Unmarshal([]byte(m), &v); err != nil {
				t.Fatalf("sent %q: %v", m, err)
			}
			all, batch := v.([]any)
			if !batch {
				all = []any{v}
			}
			for _, one := range all {
				if _, ok := one.(map[string]any); !ok {
					t.Fatalf("sent %q: not an object", m)
				}
			}
		}
	})
}
