package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustCompile(t testing.TB, s string) *Validator {
	t.Helper()
	v, err := Compile(json.RawMessage(s))
	require.NoError(t, err, s)
	return v
}

func TestCompileRefusesRemoteRefs(t *testing.T) {
	cases := []struct {
		schema string
		url    string
	}{
		{`{"$ref":"https://example.com/x.json"}`, "https://example.com/x.json"},
		{`{"type":"object","properties":{"a":{"$ref":"http://example.com/a#/defs/x"}}}`, "http://example.com/a"},
		{`{"$ref":"file:///etc/passwd"}`, "file:///etc/passwd"},
		{`{"$ref":"other.json"}`, "mem:///other.json"},
		{`{"$id":"https://example.com/root.json","$ref":"sibling.json"}`, "https://example.com/sibling.json"},
		{`{"allOf":[{"$dynamicRef":"https://example.com/d#meta"}]}`, "https://example.com/d"},
	}
	for _, c := range cases {
		t.Run(c.schema, func(t *testing.T) {
			rec := &refusingLoader{}
			_, err := compile([]byte(c.schema), rec)
			var rerr *RemoteRefError
			require.True(t, errors.As(err, &rerr), "got %v", err)
			assert.Equal(t, "remote $ref not allowed: "+c.url, err.Error())
			assert.Equal(t, []string{c.url}, rec.attempts, "the loader is the only way out, and it only records")

			_, err = Compile(json.RawMessage(c.schema))
			assert.EqualError(t, err, "remote $ref not allowed: "+c.url)
		})
	}
}

func TestCompileLocalRefs(t *testing.T) {
	rec := &refusingLoader{}
	v, err := compile([]byte(`{
		"type":"object",
		"properties":{
			"a":{"$ref":"#/$defs/pos"},
			"b":{"$ref":"#small"},
			"c":{"$ref":"urn:polymcp:test:word"},
			"d":{"$ref":"#/properties/a"}
		},
		"$defs":{
			"pos":{"type":"integer","minimum":1},
			"small":{"$anchor":"small","type":"integer","maximum":9},
			"word":{"$id":"urn:polymcp:test:word","type":"string","pattern":"^[a-z]+$"}
		}
	}`), rec)
	require.NoError(t, err)
	assert.Empty(t, rec.attempts)
	assert.Nil(t, v.fast, "$ref is outside the fast subset")

	assert.NoError(t, v.ValidateJSON([]byte(`{"a":1,"b":9,"c":"ok","d":5}`)))
	assert.EqualError(t, v.ValidateJSON([]byte(`{"a":0}`)), `argument "/a": must be >= 1 (minimum)`)
	assert.EqualError(t, v.ValidateJSON([]byte(`{"b":10}`)), `argument "/b": must be <= 9 (maximum)`)
	assert.EqualError(t, v.ValidateJSON([]byte(`{"c":"NO"}`)), `argument "/c": must match the pattern "^[a-z]+$" (pattern)`)
	assert.EqualError(t, v.ValidateJSON([]byte(`{"d":-1}`)), `argument "/d": must be >= 1 (minimum)`)
}

func TestCompile2020Keywords(t *testing.T) {
	cases := []struct {
		name, schema, instance, want string // want "" = valid
	}{
		{"if then", `{"if":{"properties":{"kind":{"const":"file"}}},"then":{"required":["path"]},"else":{"required":["url"]}}`, `{"kind":"file"}`, `missing required argument "path"`},
		{"if else", `{"if":{"properties":{"kind":{"const":"file"}}},"then":{"required":["path"]},"else":{"required":["url"]}}`, `{"kind":"web"}`, `missing required argument "url"`},
		{"if ok", `{"if":{"properties":{"kind":{"const":"file"}}},"then":{"required":["path"]}}`, `{"kind":"file","path":"/x"}`, ``},
		{"allOf", `{"allOf":[{"type":"object"},{"required":["a"]},{"properties":{"a":{"type":"string"}}}]}`, `{"a":1}`, `argument "/a": must be string (type)`},
		{"anyOf fails", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1.5`, `arguments: must match at least one of the allowed schemas (anyOf)`},
		{"anyOf ok", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `2`, ``},
		{"oneOf", `{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `2`, `arguments: must match exactly one of the allowed schemas (oneOf)`},
		{"not", `{"not":{"type":"null"}}`, `null`, `arguments: must not match the excluded schema (not)`},
		{"prefixItems", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, `["a",1]`, ``},
		{"prefixItems type", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, `["a","b"]`, `argument "/1": must be integer (type)`},
		{"prefixItems extra", `{"type":"array","prefixItems":[{"type":"string"}],"items":false}`, `["a",2]`, `argument "/1": is not allowed (false)`},
		{"unevaluatedProperties", `{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`, `argument "/b": is not allowed (false)`},
		{"dependentRequired", `{"dependentRequired":{"card":["cvc"]}}`, `{"card":"x"}`, `argument "/card": requires argument "cvc" (dependentRequired)`},
		{"multipleOf", `{"multipleOf":0.5}`, `0.75`, `arguments: must be a multiple of 0.5 (multipleOf)`},
		{"exclusive", `{"exclusiveMinimum":0,"exclusiveMaximum":1}`, `1`, `arguments: must be < 1 (exclusiveMaximum)`},
		{"uniqueItems", `{"uniqueItems":true}`, `[1,1]`, `arguments: items must be unique (uniqueItems)`},
		{"contains", `{"contains":{"type":"string"},"minContains":2}`, `["a",1]`, `arguments: must have at least 2 matching items (minContains)`},
		{"propertyNames", `{"propertyNames":{"maxLength":2}}`, `{"abc":1}`, `argument "/abc": name is not allowed (propertyNames)`},
		{"format is an annotation", `{"type":"string","format":"email"}`, `"nope"`, ``},
		{"$defs chain", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"type":"boolean"}}}`, `"x"`, `arguments: must be boolean (type)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := mustCompile(t, c.schema).ValidateJSON([]byte(c.instance))
			if c.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, c.want)
			}
		})
	}
}

func TestCompileDraft07(t *testing.T) {
	v := mustCompile(t, `{
		"$schema":"http://json-schema.org/draft-07/schema#",
		"type":"object",
		"properties":{
			"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false},
			"ref":{"$ref":"#/definitions/pos","minimum":100},
			"mail":{"type":"string","format":"email"}
		},
		"definitions":{"pos":{"type":"integer","minimum":1}}
	}`)
	assert.NoError(t, v.ValidateJSON([]byte(`{"pair":["a",1],"ref":5,"mail":"a@b.c"}`)))
	assert.EqualError(t, v.ValidateJSON([]byte(`{"pair":["a",1,2]}`)), `argument "/pair": has more items than allowed (additionalItems)`)
	assert.EqualError(t, v.ValidateJSON([]byte(`{"ref":0}`)), `argument "/ref": must be >= 1 (minimum)`, "siblings of $ref are ignored in draft-07")
	assert.EqualError(t, v.ValidateJSON([]byte(`{"mail":"nope"}`)), `argument "/mail": must be a valid email (format)`, "draft-07 asserts format")

	// The same subset schema is fast in draft-07 too.
	v = mustCompile(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	assert.NotNil(t, v.fast)
	assert.EqualError(t, v.ValidateJSON([]byte(`{}`)), `missing required argument "n"`)
}

func TestCompileRejects(t *testing.T) {
	big := `{"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`
	_, err := Compile(json.RawMessage(big))
	assert.ErrorContains(t, err, "larger than the limit")

	_, err = Compile(json.RawMessage(`{"$schema":"https://example.com/my-meta"}`))
	assert.ErrorContains(t, err, `unsupported $schema dialect "https://example.com/my-meta"`)

	_, err = Compile(json.RawMessage(`{"type":"strnig"}`))
	assert.Error(t, err)

	_, err = Compile(json.RawMessage(`{"type":`))
	assert.ErrorContains(t, err, "invalid JSON")

	_, err = Compile(json.RawMessage(`{"pattern":"(?<!x)"}`))
	assert.Error(t, err, "Go regexp syntax only")
}

func TestValidateNumberForms(t *testing.T) {
	for _, schema := range []string{
		`{"type":"integer","minimum":1,"maximum":10}`,             // fast path
		`{"type":"integer","minimum":1,"maximum":10,"not":false}`, // library path
	} {
		v := mustCompile(t, schema)
		for _, ok := range []any{3.0, json.Number("3"), json.Number("3.0"), json.Number("3e0"), 3, int64(10), uint8(1)} {
			assert.NoError(t, v.Validate(ok), "%s %T %v", schema, ok, ok)
		}
		for _, bad := range []any{3.5, json.Number("3.5"), "3", 0, json.Number("11"), 1e300, json.Number("123456789012345678901234567890")} {
			assert.Error(t, v.Validate(bad), "%s %T %v", schema, bad, bad)
		}
	}
}

func TestValidateJSONSyntax(t *testing.T) {
	v := mustCompile(t, `{"type":"object"}`)
	err := v.ValidateJSON([]byte(`{"a":sk-secret}`))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "syntax", ve.Causes[0].Keyword)
	assert.NotContains(t, err.Error(), "sk-secret")
	assert.Error(t, v.ValidateJSON([]byte(`{} {}`)))
}

func TestValidateConcurrent(t *testing.T) {
	fast := mustCompile(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	lib := mustCompile(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"not":{"required":["x"]}}`)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				for _, v := range []*Validator{fast, lib} {
					if i%2 == 0 {
						assert.NoError(t, v.Validate(map[string]any{"text": "hi"}))
					} else {
						assert.Error(t, v.Validate(map[string]any{"text": 1}))
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestValidateHugeNumbers(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"n":{"type":"integer"}}}`,
		`{"type":"object","properties":{"n":{"type":"integer"}},"not":false}`,
	} {
		v := mustCompile(t, schema)
		start := time.Now()
		err := v.ValidateJSON([]byte(`{"n":1e999999999,"m":"x","o":[-1E-999999999]}`))
		assert.EqualError(t, err, `argument "/n": is out of range (number); argument "/o/0": is out of range (number)`, schema)
		assert.Less(t, time.Since(start), time.Second)
		assert.NoError(t, v.ValidateJSON([]byte(`{"n":1e1024}`)), "at the limit")
		assert.Error(t, v.ValidateJSON([]byte(`{"n":1`+strings.Repeat("0", 1100)+`}`)))
	}
}

func TestCompileBoundsCost(t *testing.T) {
	// Thirty definitions, each anyOf [next, next]: 2^30 checks per value.
	var defs []string
	for i := range 30 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d30":{"type":"string"}`)
	bomb := `{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`
	start := time.Now()
	_, err := Compile(json.RawMessage(bomb))
	assert.ErrorContains(t, err, "too costly to evaluate")
	assert.Less(t, time.Since(start), time.Second)

	// Wide but honest schemas, and recursive ones, are fine.
	props := make([]string, 2000)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"string","maxLength":10}`, i)
	}
	mustCompile(t, `{"type":"object","properties":{`+strings.Join(props, ",")+`}}`)
	mustCompile(t, string(mustFor[Tree](t)))
	mustCompile(t, `{"$defs":{"n":{"type":"object","properties":{"l":{"$ref":"#/$defs/n"},"r":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`)
}
