package streamhttp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCollectParams: the valid annotations of a schema with their paths,
// and the first invalid one, after SEP-2243's rules.
func TestCollectParams(t *testing.T) {
	prop := func(name, schema string) string {
		return `{"type":"object","properties":{"` + name + `":` + schema + `}}`
	}
	cases := []struct {
		name, schema string
		want         []string // header=path
		bad          string   // a substring of the reason; "" for none
	}{
		{"none", `{"type":"object","properties":{"a":{"type":"string"}}}`, nil, ""},
		{"no schema", ``, nil, ""},
		{"string, integer, boolean, nested", `{"type":"object","properties":{` +
			`"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},` +
			`"opts":{"type":"object","properties":{"fast":{"type":"boolean","x-mcp-header":"Fast"}}}}}`,
			[]string{"N=n", "Fast=opts.fast", "Region=region"}, ""},
		{"data, not annotations", `{"type":"object","default":{"x-mcp-header":"A"},"examples":[{"x-mcp-header":"B"}],` +
			`"properties":{"a":{"type":"string","const":{"x-mcp-header":"C"}}}}`, nil, ""},
		{"a property named x-mcp-header", prop("x-mcp-header", `{"type":"string"}`), nil, ""},
		{"empty name", prop("v", `{"type":"string","x-mcp-header":""}`), nil, "not an HTTP header name"},
		{"space", prop("v", `{"type":"string","x-mcp-header":"My Region"}`), nil, "not an HTTP header name"},
		{"colon", prop("v", `{"type":"string","x-mcp-header":"Region:Primary"}`), nil, "not an HTTP header name"},
		{"non-ASCII", prop("v", `{"type":"string","x-mcp-header":"Région"}`), nil, "not an HTTP header name"},
		{"control character", prop("v", `{"type":"string","x-mcp-header":"Region\t1"}`), nil, "not an HTTP header name"},
		{"not a string", prop("v", `{"type":"string","x-mcp-header":7}`), nil, "not an HTTP header name"},
		{"number", prop("v", `{"type":"number","x-mcp-header":"Score"}`), nil, "type"},
		{"object", prop("v", `{"type":"object","x-mcp-header":"Data"}`), nil, "type"},
		{"array", prop("v", `{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}`), nil, "type"},
		{"null", prop("v", `{"type":"null","x-mcp-header":"Nil"}`), nil, "type"},
		{"no type", prop("v", `{"x-mcp-header":"V"}`), nil, "type"},
		{"type list", prop("v", `{"type":["string","null"],"x-mcp-header":"V"}`), nil, "type"},
		{"duplicate, other case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},` +
			`"b":{"type":"string","x-mcp-header":"myfield"}}}`, []string{"MyField=a"}, "another property names header myfield"},
		{"on the root", `{"type":"object","x-mcp-header":"Q"}`, nil, "the schema root"},
		{"under items", prop("ids", `{"type":"array","items":{"type":"string","x-mcp-header":"Id"}}`), nil, "property ids"},
		{"under anyOf", `{"type":"object","anyOf":[{"properties":{"t":{"type":"string","x-mcp-header":"T"}}}]}`, nil, "property t"},
		{"under if", `{"type":"object","if":{"properties":{"t":{"type":"string","x-mcp-header":"T"}}}}`, nil, "property t"},
		{"under $defs", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}},` +
			`"properties":{"a":{"$ref":"#/$defs/d"}}}`, nil, "properties alone"},
		{"valid ones kept beside an invalid one", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},` +
			`"b":{"type":"number","x-mcp-header":"B"}}}`, []string{"A=a"}, "property b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params, bad := collectParams([]byte(tc.schema))
			var got []string
			for _, p := range params {
				got = append(got, p.name+"="+strings.Join(p.path, "."))
			}
			assert.ElementsMatch(t, tc.want, got)
			if tc.bad == "" {
				assert.Empty(t, bad)
			} else {
				assert.Contains(t, bad, tc.bad)
			}
		})
	}
}

// TestParamText: an argument's header value; the server's paramMatches
// accepts every one of them.
func TestParamText(t *testing.T) {
	cases := []struct{ raw, want string }{
		{`"us-west1"`, "us-west1"}, {`""`, ""}, {`"a\"b\u00e9"`, `a"bé`}, {`true`, "true"}, {`false`, "false"},
		{`42`, "42"}, {`-7`, "-7"}, {`7.0`, "7"}, {`1e2`, "100"}, {`-0`, "0"}, {`9007199254740993`, "9007199254740993"},
	}
	for _, tc := range cases {
		got, ok := paramText([]byte(tc.raw))
		assert.True(t, ok, tc.raw)
		assert.Equal(t, tc.want, got, tc.raw)
		assert.True(t, paramMatches([]byte(tc.raw), got), tc.raw)
	}
	for _, raw := range []string{`null`, `{}`, `[1]`, `3.5`, `1e300`} {
		_, ok := paramText([]byte(raw))
		assert.False(t, ok, raw)
	}
}
