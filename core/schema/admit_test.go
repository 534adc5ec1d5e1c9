package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertAdmitSound checks the one promise of Admits: what it admits,
// Validate and the library accept under every decoding.
func assertAdmitSound(t *testing.T, v *Validator, raw, what string) {
	t.Helper()
	if !v.Admits([]byte(raw)) {
		return
	}
	require.True(t, json.Valid([]byte(raw)), "%s: admitted bytes that are not JSON", what)
	for i, x := range decodings(t, raw) {
		assert.NoError(t, v.Validate(x), "%s (decoding %d): admitted but invalid", what, i)
		assert.NoError(t, v.validateLib(x), "%s (decoding %d): admitted but the library refuses it", what, i)
	}
}

func TestAdmitsIsSound(t *testing.T) {
	for _, s := range fastSchemas {
		v := mustCompile(t, s)
		for _, in := range append(instances, admitInstances...) {
			assertAdmitSound(t, v, in, s+" ⇐ "+in)
		}
	}
}

// admitInstances add what the byte walk reads differently from a decoder:
// escapes, whitespace, duplicate members, number forms, nesting.
var admitInstances = []string{
	` { "text" : "hi" } `, "{\"text\":\"a\\nb\"}", `{"text":"\"quoted\\\\"}`, `{"te\u0078t":"hi"}`,
	`{"text":"hi","text":1}`, `{"text":1,"text":"hi"}`, `{"n":5,"n":50}`, `{"n":50,"n":5}`,
	`{"s":"a\u00e9"}`, `{"s":"\u00e9\u00e9\u00e9\u00e9"}`, `{"m":"\u0061"}`, `{"c":"\u0078"}`,
	`{"n":-0}`, `{"n":-1}`, `{"n":1.00}`, `{"n":123456789012345}`, `{"n":1234567890123456}`, `{"f":1}`, `{"f":2}`, `{"f":1.25}`,
	`{"extra":[1.5,-2,3.25e0,{"k":[null,true,false]}]}`, `{"extra":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}`,
	`{"tags":["a","b"],"tags":[]}`, `{"o":{"x":"s","x":null}}`, `[ [ true , false ] , [ ] ]`, `{"text":"hi"} x`, `{"text":"hi"`,
	`{"a":{},"b":[]}`, `"\u00e9"`, `"ab\\"`, `4`, `3.0`, `-3`, `10000000000000000000000`,
}

// TestAdmits pins what the walk admits at all: a walk that admitted nothing
// would be sound and useless.
func TestAdmits(t *testing.T) {
	echo := `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`
	mixed := `{"type":"object","properties":{
		"query":{"type":"string","minLength":1,"maxLength":5},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"ratio":{"type":"number"},
		"mode":{"enum":["fast","exact"]},
		"flag":{"type":"boolean","const":true},
		"opt":{"type":["string","null"]},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2},
		"any":{}},
		"required":["query","limit"],"additionalProperties":false}`
	for _, tc := range []struct {
		schema, in string
		want       bool
	}{
		{echo, `{"text":"hi"}`, true},
		{echo, " {\n\t\"text\" : \"multi\\nline \\\"quoted\\\" \\u00e9\" } ", true},
		{echo, `{"text":"` + strings.Repeat("x", 64<<10) + `"}`, true},
		{echo, `{"text":"hi","more":1}`, false},
		{echo, `{}`, false},
		{echo, `{"text":1}`, false},
		{echo, `{"te\u0078t":"hi"}`, false}, // an escaped name: Validate decides
		{echo, `["hi"]`, false},
		{echo, `{"text":"hi"} {}`, false},
		{mixed, `{"query":"abc","limit":7}`, true},
		{mixed, `{"query":"日本語","limit":100,"ratio":0.25,"mode":"exact","flag":true,"opt":null,"tags":["a","b"],"any":{"x":[1,2.5]}}`, true},
		{mixed, `{"query":"","limit":7}`, false},
		{mixed, `{"query":"abcdef","limit":7}`, false},
		{mixed, `{"query":"a\nb","limit":7}`, false}, // valid, but escaped under a length rule
		{mixed, `{"query":"abc","limit":0}`, false},
		{mixed, `{"query":"abc","limit":101}`, false},
		{mixed, `{"query":"abc","limit":7.0}`, false}, // an integer, but not a plain literal
		{mixed, `{"query":"abc","limit":"7"}`, false},
		{mixed, `{"query":"abc","limit":7,"ratio":1e3}`, false},
		{mixed, `{"query":"abc","limit":7,"mode":"slow"}`, false},
		{mixed, `{"query":"abc","limit":7,"flag":false}`, false},
		{mixed, `{"query":"abc","limit":7,"tags":[]}`, false},
		{mixed, `{"query":"abc","limit":7,"tags":["a","b","c"]}`, false},
		{mixed, `{"query":"abc","limit":7,"tags":[1]}`, false},
		{mixed, `{"query":"abc"}`, false},
		{`true`, `{"deep":[[[` + strings.Repeat(`{"a":`, 10) + `1` + strings.Repeat(`}`, 10) + `]]]}`, true},
		{`true`, strings.Repeat("[", maxAdmitDepth+2) + strings.Repeat("]", maxAdmitDepth+2), false},
		{`false`, `{}`, false},
		{`{"pattern":"^a"}`, `"a"`, false}, // outside the fast subset
	} {
		v := mustCompile(t, tc.schema)
		assert.Equal(t, tc.want, v.Admits([]byte(tc.in)), "%.60s ⇐ %.80s", tc.schema, tc.in)
		assertAdmitSound(t, v, tc.in, tc.in)
	}
}

func TestAdmitsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	validators := make([]*Validator, len(fastSchemas))
	for i, s := range fastSchemas {
		validators[i] = mustCompile(t, s)
	}
	admitted := 0
	for range 3000 {
		raw, err := json.Marshal(randomValue(r, 0))
		require.NoError(t, err)
		for i, v := range validators {
			assertAdmitSound(t, v, string(raw), fmt.Sprintf("%s ⇐ %s", fastSchemas[i], raw))
			if v.Admits(raw) {
				admitted++
			}
		}
	}
	assert.Greater(t, admitted, 3000, "the walk admits almost nothing")
}

// FuzzAdmits feeds any bytes: the walk must not fail on them, and what it
// admits must be valid JSON that Validate accepts.
func FuzzAdmits(f *testing.F) {
	for _, in := range append(instances, admitInstances...) {
		f.Add(in)
	}
	validators := make([]*Validator, len(fastSchemas))
	for i, s := range fastSchemas {
		validators[i] = mustCompile(f, s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		valid := json.Valid([]byte(in))
		for i, v := range validators {
			if !v.Admits([]byte(in)) || !valid {
				continue // bytes that are not JSON break the precondition only
			}
			assertAdmitSound(t, v, in, fastSchemas[i]+" ⇐ "+in)
		}
	})
}
