package client

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/spec"
)

// A -32022 listing 2026-07-28 itself is answered by asking once more, with
// a fresh id; a second refusal ends negotiation.
func TestDiscoverRetry(t *testing.T) {
	refused := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32022,"message":"Unsupported protocol version",`+
			`"data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`, id)
	}
	discover2 := strings.Replace(discover1, `"id":1`, `"id":2`, 1)
	for _, pin := range []string{"", spec.Rev20260728} {
		t.Run("pin="+pin, func(t *testing.T) {
			s := newScript(t)
			wait := connecting(s, &Options{Revision: pin})
			s.expect(discover1)
			s.say(refused(1))
			s.expect(discover2)
			s.say(strings.Replace(discovered1, `"id":1`, `"id":2`, 1))
			c, err := wait()
			require.NoError(t, err)
			assert.Equal(t, spec.Rev20260728, c.Revision())
		})
	}
	t.Run("refused twice", func(t *testing.T) {
		s := newScript(t)
		wait := connecting(s, &Options{Revision: spec.Rev20260728})
		s.expect(discover1)
		s.say(refused(1))
		s.expect(discover2)
		s.say(refused(2))
		_, err := wait()
		var uv *UnsupportedVersionError
		require.ErrorAs(t, err, &uv)
		s.quiet()
	})
}

// Arguments that are JSON already go as they are when they can: checked,
// and compacted only when a line break would break stdio's framing.
func TestEncodeArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		args any
		want string
		bad  bool
	}{
		{"raw, as it is", json.RawMessage(`{"text": "a b"}`), `{"text": "a b"}`, false},
		{"raw with a line break, compacted", json.RawMessage("{\"text\":\n\"a\"}"), `{"text":"a"}`, false},
		{"raw but not JSON", json.RawMessage(`{"text":`), "", true},
		{"a value, encoded", map[string]int{"n": 1}, `{"n":1}`, false},
		{"a map, as jsonrpc.Marshal encodes it", map[string]any{"b": []any{1.5, "<\u2028>"}, "a": map[string]any{"z": nil}},
			"{\"a\":{\"z\":null},\"b\":[1.5,\"<\u2028>\"]}", false},
		{"a map that cannot be encoded", map[string]any{"f": math.NaN()}, "", true},
		{"a map's raw values, compacted", map[string]any{"r": json.RawMessage("{\n \"a\": 1}"),
			"m": map[string]any{"q": json.RawMessage(" 2 ")}, "l": []any{json.RawMessage("[ 1 ]")}},
			`{"l":[[1]],"m":{"q":2},"r":{"a":1}}`, false},
		{"a map's raw value that is not JSON", map[string]any{"r": json.RawMessage("not json")}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := encodeArguments(tc.args)
			if tc.bad {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// Capabilities refine what the handlers imply and add experimental ones;
// one without its handler is refused.
func TestCapabilities(t *testing.T) {
	sampling := func(context.Context, *spec.CreateMessageParams) (*spec.CreateMessageResult, error) { return nil, nil }
	elicit := func(context.Context, *spec.ElicitParams) (*spec.ElicitResult, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		o    Options
		want string
		bad  bool
	}{
		{"implied by the handlers", Options{Sampling: sampling, Elicitation: elicit, Tasks: true},
			`{"sampling":{},"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`, false},
		{"refined", Options{Elicitation: elicit, Capabilities: spec.ClientCapabilities{
			Elicitation: json.RawMessage(`{"form":{},"url":{}}`), Experimental: map[string]any{"x": map[string]any{}}}},
			`{"experimental":{"x":{}},"elicitation":{"form":{},"url":{}}}`, false},
		{"declared without a handler", Options{Capabilities: spec.ClientCapabilities{Sampling: json.RawMessage(`{"tools":{}}`)}}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caps, err := tc.o.capabilities()
			if tc.bad {
				assert.ErrorContains(t, err, "declares sampling, which has no handler")
				return
			}
			require.NoError(t, err)
			raw, err := json.Marshal(caps)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(raw))
		})
	}
}
