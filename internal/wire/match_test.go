package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		name, want, got string
		ok              bool
		at              string
	}{
		{"key order is free", `{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1}`, true, ""},
		{"numbers by value", `{"n":1}`, `{"n":1.0}`, true, ""},
		{"string is not a number", `{"n":1}`, `{"n":"1"}`, false, "$.n"},
		{"extra member", `{"a":1}`, `{"a":1,"b":2}`, false, "$.b"},
		{"missing member", `{"a":1,"b":2}`, `{"a":1}`, false, "$.b"},
		{"array order matters", `{"a":[1,2]}`, `{"a":[2,1]}`, false, "$.a[0]"},
		{"array length", `{"a":[1]}`, `{"a":[1,1]}`, false, "$.a"},
		{"any", `{"id":"<any>"}`, `{"id":{"x":[1]}}`, true, ""},
		{"any still needs the member", `{"id":"<any>"}`, `{}`, false, "$.id"},
		{"string placeholder", `{"c":"<string>"}`, `{"c":"abc"}`, true, ""},
		{"string placeholder refuses a number", `{"c":"<string>"}`, `{"c":3}`, false, "$.c"},
		{"number placeholder", `{"t":"<number>"}`, `{"t":-1.5e3}`, true, ""},
		{"null is not false", `{"a":null}`, `{"a":false}`, false, "$.a"},
		{"batch items in any order", `[{"id":1},{"id":2}]`, `[{"id":2},{"id":1}]`, true, ""},
		{"batch items once each", `[{"id":1},{"id":1}]`, `[{"id":1},{"id":2}]`, false, "$[1] (no batch item matches it)"},
		{"batch size", `[{"id":1}]`, `[{"id":1},{"id":1}]`, false, "$"},
		{"nested arrays keep order", `[[1,2]]`, `[[2,1]]`, false, "$[0] (no batch item matches it)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := decode([]byte(tc.want))
			require.NoError(t, err)
			got, err := decode([]byte(tc.got))
			require.NoError(t, err)
			ok, at := match(want, got, &bindings{known: map[string]string{}, found: map[string]string{}})
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.at, at)
		})
	}
}

func TestDecodeIsStrict(t *testing.T) {
	for _, bad := range []string{
		`{"a":1,"a":2}`,
		`{"a":{"b":1,"b":1}}`,
		`{"a":1} {}`,
		`{"a":`,
		``,
		`[1,]`,
	} {
		_, err := decode([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
	deep := make([]byte, 0, 2*maxDepth+4)
	for range maxDepth + 2 {
		deep = append(deep, '[')
	}
	for range maxDepth + 2 {
		deep = append(deep, ']')
	}
	_, err := decode(deep)
	assert.ErrorContains(t, err, "nesting deeper than")

	v, err := decode([]byte(`{"n":12345678901234567890123}`))
	require.NoError(t, err)
	assert.Equal(t, json.Number("12345678901234567890123"), v.(map[string]any)["n"], "numbers keep their digits")
}
