package dispatch

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// appendToolResult must write exactly what the general encoder writes, and
// decline whatever it does not know.
func TestAppendToolResult(t *testing.T) {
	info := &spec.Implementation{Name: "srv", Title: "The \"server\"", Version: "1.0", Description: "d", WebsiteURL: "https://x"}
	text := func(s ...string) []spec.Content {
		out := make([]spec.Content, len(s))
		for i := range s {
			out[i] = spec.TextContent(s[i])
		}
		return out
	}
	ttl := int64(5)
	for _, tc := range []struct {
		name string
		res  *spec.CallToolResult
		ok   bool
	}{
		{"echo", spec.TextResult("hello"), true},
		{"modern", &spec.CallToolResult{ResultBase: spec.ResultBase{ResultType: "complete", Meta: spec.Meta{spec.MetaServerInfo: info}}, Content: text("a", "b")}, true},
		{"bare info", &spec.CallToolResult{ResultBase: spec.ResultBase{Meta: spec.Meta{spec.MetaServerInfo: &spec.Implementation{Name: "n"}}}, Content: text("")}, true},
		{"error", &spec.CallToolResult{Content: text("bad"), IsError: true}, true},
		{"empty", &spec.CallToolResult{Content: []spec.Content{}}, true},
		{"escapes", spec.TextResult("q\" b\\ \n\r\t\b\f \x00\x1f \x7f é 日本 😀 \u2028 <>& \xff\xfe"), true},
		{"nil content", &spec.CallToolResult{}, false},
		{"structured", &spec.CallToolResult{Content: text("x"), StructuredContent: map[string]any{"a": 1}}, false},
		{"image", &spec.CallToolResult{Content: []spec.Content{spec.ImageContent("AA==", "image/png")}}, false},
		{"annotated", &spec.CallToolResult{Content: []spec.Content{{Type: "text", Text: new(string), Annotations: &spec.Annotations{}}}}, false},
		{"other meta", &spec.CallToolResult{ResultBase: spec.ResultBase{Meta: spec.Meta{"k": 1}}, Content: text("x")}, false},
		{"two meta", &spec.CallToolResult{ResultBase: spec.ResultBase{Meta: spec.Meta{spec.MetaServerInfo: info, "k": 1}}, Content: text("x")}, false},
		{"icons", &spec.CallToolResult{ResultBase: spec.ResultBase{Meta: spec.Meta{spec.MetaServerInfo: &spec.Implementation{Icons: []spec.Icon{{Src: "x"}}}}}, Content: text("x")}, false},
		{"cache hints", &spec.CallToolResult{ResultBase: spec.ResultBase{TTLMs: &ttl}, Content: text("x")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := appendToolResult([]byte("prefix"), tc.res)
			require.Equal(t, tc.ok, ok)
			if !ok {
				assert.Equal(t, "prefix", string(got), "nothing appended when declined")
				return
			}
			want, err := jsonrpc.Marshal(tc.res)
			require.NoError(t, err)
			assert.Equal(t, "prefix"+string(want), string(got))
		})
	}
}

// Random texts, control characters, invalid UTF-8 and all, encode as
// sonic encodes them.
func TestAppendToolResultTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", " ", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "é", "日", "😀", "\u2028", "<", "&", "\xff", "\xc3", "/"}
	for range 3000 {
		var s []byte
		for range r.IntN(24) {
			s = append(s, alphabet[r.IntN(len(alphabet))]...)
		}
		res := &spec.CallToolResult{ResultBase: spec.ResultBase{ResultType: "complete"}, Content: []spec.Content{spec.TextContent(string(s))}}
		got, ok := appendToolResult(nil, res)
		require.True(t, ok)
		want, err := jsonrpc.Marshal(res)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "text %q", s)
		require.True(t, json.Valid(got))
	}
}

// TestPlainTextKnowsEveryField: plainText checks each field of Content;
// a new field must be checked there too (and this list updated).
func TestPlainTextKnowsEveryField(t *testing.T) {
	var names []string
	for f := range reflect.TypeFor[spec.Content]().Fields() {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"Type", "Text", "Data", "MimeType", "Resource", "URI", "Name", "Title", "Description",
		"Size", "Icons", "Annotations", "Meta"}, names)
}
