package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastSchemas are all inside the fast subset.
var fastSchemas = []string{
	`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
	`{"type":"object","properties":{"text":{"type":"string","description":"d","title":"t"}},"required":["text"],"additionalProperties":false}`,
	`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":10},"f":{"type":"number","exclusiveMinimum":0.1,"exclusiveMaximum":2.5}}}`,
	`{"type":"object","properties":{"u":{"type":"integer","minimum":0},"big":{"maximum":9007199254740992}}}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3}},"additionalProperties":true}`,
	`{"type":"object","properties":{"m":{"enum":["a","b",null,true]},"c":{"const":"x"},"z":{"const":null}}}`,
	`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","maxLength":2},"minItems":1,"maxItems":2}}}`,
	`{"type":"object","additionalProperties":{"type":"integer"}}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":["string","null"]}},"required":["x"],"additionalProperties":false}}}`,
	`{"type":["integer","string"],"minimum":3,"maxLength":1}`,
	`{"type":"array","items":{"type":"array","items":{"type":"boolean"}}}`,
	`{"properties":{"a":false,"b":true}}`,
	`{"type":"string","format":"email","contentEncoding":"base64"}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"number","minimum":-0.5}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"],"additionalProperties":false}`,
	`{"minimum":0.1,"maximum":0.3}`,
	`{"exclusiveMaximum":1e21}`,
	`true`,
	`false`,
	`{}`,
}

// slowSchemas must go to the library.
var slowSchemas = []string{
	`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`,
	`{"type":"string","pattern":"^a"}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`,
	`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"string"}`,
	`{"enum":[1,2]}`,
	`{"minimum":0.10000000000000001}`,
	`{"maximum":9007199254740993}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`,
	`{"x-extension":1,"type":"object"}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`,
	`{"multipleOf":2}`,
	`{"uniqueItems":true}`,
}

func TestFastEligibility(t *testing.T) {
	for _, s := range fastSchemas {
		assert.NotNil(t, mustCompile(t, s).fast, s)
	}
	for _, s := range slowSchemas {
		assert.Nil(t, mustCompile(t, s).fast, s)
	}
}

// instances are decoded three ways (exact numbers, float64, Go values), so
// every number form reaches both paths.
var instances = []string{
	`{}`, `{"text":"hi"}`, `{"text":1}`, `{"text":null}`, `{"text":"hi","extra":true}`,
	`{"n":1}`, `{"n":0}`, `{"n":10}`, `{"n":11}`, `{"n":1.0}`, `{"n":1.5}`, `{"n":3}`, `{"n":"3"}`,
	`{"n":-0.5}`, `{"n":-0.50000000001}`, `{"n":1e2}`, `{"n":12345678901234567890}`,
	`{"f":0.1}`, `{"f":0.1000000000000001}`, `{"f":2.5}`, `{"f":2.4999999999999996}`, `{"f":0.30000000000000004}`,
	`0.1`, `0.3`, `0.30000000000000004`, `1e21`, `999999999999999999999`, `1000000000000000000001`,
	`{"u":-1}`, `{"u":0}`, `{"big":9007199254740993}`, `{"big":9007199254740994}`, `{"big":9007199254740992.5}`,
	`{"s":"é"}`, `{"s":"éé"}`, `{"s":"日本語"}`, `{"s":"日本語!"}`, `{"s":""}`,
	`{"m":"a"}`, `{"m":"c"}`, `{"m":null}`, `{"m":true}`, `{"m":false}`, `{"m":1}`, `{"c":"x"}`, `{"c":"y"}`, `{"z":null}`, `{"z":0}`,
	`{"tags":[]}`, `{"tags":["a"]}`, `{"tags":["a","bb","c"]}`, `{"tags":["abc"]}`, `{"tags":[1,2]}`, `{"tags":"a"}`,
	`{"a":1,"b":2,"c":3}`, `{"x":"1"}`, `{"b":1}`, `{"a":null}`,
	`{"o":{}}`, `{"o":{"x":null}}`, `{"o":{"x":"s","y":1}}`, `{"o":{"x":1}}`, `{"o":[]}`,
	`{"n":1e999999999}`, `[1e-99999]`, `{"extra":{"deep":[1E+5000,1e1024,1e-1024]},"n":0}`, `{"text":1e1025}`, `{"tags":[2e1025]}`,
	`3`, `2`, `"a"`, `"ab"`, `true`, `null`, `[]`, `[[true,false],[1]]`, `[[true],"x"]`, `"aGk="`, `"not email"`,
}

func decodings(t testing.TB, s string) []any {
	exact, err := decode(s)
	require.NoError(t, err)
	var floats any
	if json.Unmarshal([]byte(s), &floats) != nil {
		return []any{exact} // beyond float64
	}
	return []any{exact, floats}
}

func assertSame(t *testing.T, v *Validator, x any, what string) {
	t.Helper()
	fast, lib := v.Validate(x), v.validateLib(x)
	if (fast == nil) != (lib == nil) {
		t.Errorf("%s: verdicts differ: fast %v, library %v", what, fast, lib)
		return
	}
	if fast != nil {
		assert.Equal(t, lib.Error(), fast.Error(), what)
	}
}

func TestFastMatchesLibrary(t *testing.T) {
	for _, s := range fastSchemas {
		v := mustCompile(t, s)
		require.NotNil(t, v.fast, s)
		for _, in := range instances {
			for i, x := range decodings(t, in) {
				assertSame(t, v, x, fmt.Sprintf("%s ⇐ %s (decoding %d)", s, in, i))
			}
		}
		for _, x := range goValues {
			assertSame(t, v, x, fmt.Sprintf("%s ⇐ %#v", s, x))
		}
	}
}

// goValues are values a caller may pass without decoding JSON.
var goValues = []any{
	int(5), int64(-3), uint8(2), uint64(math.MaxUint64), float32(0.1), float32(2.5), math.NaN(), math.Inf(1),
	map[string]any{"n": 5, "text": "x", "tags": []any{"a", int8(1)}},
	map[string]any{"n": json.Number("1e400")},
	map[string]string{"text": "x"}, []string{"a"}, struct{}{},
	map[string]any{"text": []string{"x"}},
}

// TestFastMatchesLibraryRandom compares the paths on generated instances.
func TestFastMatchesLibraryRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	validators := make([]*Validator, len(fastSchemas))
	for i, s := range fastSchemas {
		validators[i] = mustCompile(t, s)
	}
	for range 3000 {
		raw, err := json.Marshal(randomValue(r, 0))
		require.NoError(t, err)
		for i, v := range validators {
			for j, x := range decodings(t, string(raw)) {
				assertSame(t, v, x, fmt.Sprintf("%s ⇐ %s (decoding %d)", fastSchemas[i], raw, j))
			}
		}
	}
}

var randomKeys = []string{"text", "n", "f", "u", "big", "s", "m", "c", "z", "tags", "a", "b", "o", "x", "extra"}
var randomStrings = []string{"", "a", "ab", "abc", "é", "日本", "x", "fast", "null"}
var randomNumbers = []any{0, 1, -1, 2, 3, 10, 11, 0.1, 0.3, 0.5, -0.5, 1.5, 2.5, 1e21, 9007199254740993, json.Number("1.0"), json.Number("12345678901234567890")}

func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(7)
	if depth > 2 && k >= 5 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randomStrings[r.IntN(len(randomStrings))]
	case 3, 4:
		return randomNumbers[r.IntN(len(randomNumbers))]
	case 5:
		arr := make([]any, r.IntN(4))
		for i := range arr {
			arr[i] = randomValue(r, depth+1)
		}
		return arr
	default:
		m := map[string]any{}
		for range r.IntN(4) {
			m[randomKeys[r.IntN(len(randomKeys))]] = randomValue(r, depth+1)
		}
		return m
	}
}

func FuzzFastMatchesLibrary(f *testing.F) {
	for _, in := range instances {
		f.Add(in)
	}
	validators := make([]*Validator, len(fastSchemas))
	for i, s := range fastSchemas {
		validators[i] = mustCompile(f, s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		exact, err := decode(in)
		if err != nil {
			return
		}
		var floats any
		if json.Unmarshal([]byte(in), &floats) != nil {
			return
		}
		for i, v := range validators {
			assertSame(t, v, exact, fastSchemas[i]+" ⇐ "+in)
			assertSame(t, v, floats, fastSchemas[i]+" ⇐ "+in+" (float64)")
		}
	})
}
