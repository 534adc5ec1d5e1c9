package schema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorMessages(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"text":{"type":"string","minLength":1,"maxLength":5},
		"count":{"type":"integer","minimum":1,"maximum":100},
		"mode":{"enum":["fast","slow"]},
		"opts":{"type":"object","properties":{"level":{"type":"integer"}},"required":["level"],"additionalProperties":false},
		"tags":{"type":"array","items":{"type":"string"},"maxItems":2},
		"ratio":{"type":["number","null"],"exclusiveMinimum":0}
	},"required":["text"],"additionalProperties":false}`
	cases := []struct{ instance, want string }{
		{`{"text":"hi"}`, ``},
		{`{}`, `missing required argument "text"`},
		{`{"text":7}`, `argument "/text": must be string (type)`},
		{`{"text":""}`, `argument "/text": must be at least 1 characters long (minLength)`},
		{`{"text":"toolong"}`, `argument "/text": must be at most 5 characters long (maxLength)`},
		{`{"text":"a","count":0}`, `argument "/count": must be >= 1 (minimum)`},
		{`{"text":"a","count":101}`, `argument "/count": must be <= 100 (maximum)`},
		{`{"text":"a","count":1.5}`, `argument "/count": must be integer (type)`},
		{`{"text":"a","mode":"medium"}`, `argument "/mode": must be one of the allowed values (enum)`},
		{`{"text":"a","txt":"b"}`, `unexpected argument "txt" (additionalProperties)`},
		{`{"text":"a","opts":{}}`, `missing required argument "level" in "/opts"`},
		{`{"text":"a","opts":{"level":1,"x":2}}`, `unexpected argument "x" in "/opts" (additionalProperties)`},
		{`{"text":"a","tags":["a",2]}`, `argument "/tags/1": must be string (type)`},
		{`{"text":"a","tags":["a","b","c"]}`, `argument "/tags": must have at most 2 items (maxItems)`},
		{`{"text":"a","ratio":"x"}`, `argument "/ratio": must be null or number (type)`},
		{`{"text":"a","ratio":0}`, `argument "/ratio": must be > 0 (exclusiveMinimum)`},
		{`[]`, `arguments: must be object (type)`},
		{`{"count":0,"mode":"x","a":1,"b":2}`, `missing required argument "text"; unexpected argument "a" (additionalProperties); unexpected argument "b" (additionalProperties); and 2 more`},
	}
	v := mustCompile(t, schema)
	require.NotNil(t, v.fast)
	for _, c := range cases {
		t.Run(c.instance, func(t *testing.T) {
			x, err := decode(c.instance)
			require.NoError(t, err)
			for name, err := range map[string]error{"fast": v.Validate(x), "library": v.validateLib(x)} {
				if c.want == "" {
					assert.NoError(t, err, name)
				} else {
					assert.EqualError(t, err, c.want, name)
				}
			}
		})
	}
}

func TestErrorCauses(t *testing.T) {
	v := mustCompile(t, `{"type":"object","properties":{"a/b":{"type":"string"}},"required":["x~y"]}`)
	err := v.ValidateJSON([]byte(`{"a/b":1}`))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []Cause{
		{Location: "/x~0y", Keyword: "required", Message: `missing required argument "x~y"`},
		{Location: "/a~1b", Keyword: "type", Message: `argument "/a~1b": must be string (type)`},
	}, ve.Causes)
	assert.Zero(t, ve.Omitted)
}

func TestErrorLongKeysTruncated(t *testing.T) {
	v := mustCompile(t, `{"type":"object","additionalProperties":false}`)
	err := v.ValidateJSON([]byte(`{"` + strings.Repeat("k", 10000) + `":1}`))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 200)
}

// TestErrorsNeverShowValues runs failing instances holding a secret through
// schemas whose library error kinds carry the value, on both paths.
func TestErrorsNeverShowValues(t *testing.T) {
	const secret = "sk-live-7f3a9c1d2e"
	schemas := []string{
		`{"type":"object","properties":{"k":{"type":"integer"}}}`,
		`{"type":"object","properties":{"k":{"enum":["a","b"]}}}`,
		`{"type":"object","properties":{"k":{"const":"a"}}}`,
		`{"type":"object","properties":{"k":{"maxLength":3}}}`,
		`{"type":"object","properties":{"k":{"pattern":"^[0-9]+$"}}}`,
		`{"type":"object","properties":{"k":{"format":"email"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"k":{"format":"email"}}}`,
		`{"type":"object","properties":{"k":{"format":"ipv4"}}}`,
		`{"type":"object","properties":{"k":{"anyOf":[{"type":"number"},{"pattern":"^x"}]}}}`,
		`{"type":"object","properties":{"k":{"oneOf":[{"type":"number"},{"pattern":"^x"}]}}}`,
		`{"type":"object","properties":{"k":{"not":{"type":"string"}}}}`,
		`{"type":"object","properties":{"k":{"type":"array"}}}`,
		`{"type":"object","properties":{"k":{"allOf":[{"maxLength":1},{"pattern":"^q"}]}}}`,
		`{"type":"object","properties":{"k":false}}`,
		`{"type":"object","properties":{"k":{"contentEncoding":"base64","contentMediaType":"application/json"}},"required":["z"]}`,
		`{"type":"object","properties":{"k":{"type":"array","items":{"enum":[1]}}}}`,
		`{"type":"object","properties":{"k":{"type":"string","minLength":100}}}`,
	}
	instances := []string{
		`{"k":"` + secret + `"}`,
		`{"k":["` + secret + `"]}`,
	}
	for _, s := range schemas {
		v := mustCompile(t, s)
		for _, in := range instances {
			x, err := decode(in)
			require.NoError(t, err)
			for _, err := range []error{v.Validate(x), v.validateLib(x), v.ValidateJSON([]byte(in))} {
				if err != nil {
					assert.NotContains(t, err.Error(), secret, "%s with %s", s, in)
					assert.NotContains(t, err.Error(), "7f3a9c", "%s with %s", s, in)
				}
			}
		}
	}
}
