package jsonrpc

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`a"b\c/d`, `"a\"b\\c/d"`},
		{"\n\r\t\b\f", `"\n\r\t\u0008\u000c"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f\""},
		{"<html>&", `"<html>&"`},
		{"é😀\u2028", "\"é😀\u2028\""},
		{"a\xffb", `"a\ufffdb"`},
		{"\xe2\x82", `"\ufffd\ufffd"`},
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},
		{"0123456789abcdef\"0123456789abcdef", `"0123456789abcdef\"0123456789abcdef"`},
		{"01234567\n", `"01234567\n"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(AppendString(nil, tt.in)), "%q", tt.in)
	}
	assert.Equal(t, `x"y"`, string(AppendString([]byte("x"), "y")))
}

// randomString mixes ASCII, specials, multi-byte runes and invalid bytes.
func randomString(r *rand.Rand) string {
	pieces := []string{"a", "Z", " ", "0123456789", `"`, `\`, "/", "\n", "\x00", "\x1f", "\x7f",
		"é", "ß", "€", "😀", "\U0010ffff", "\ufffd", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80"}
	var b strings.Builder
	for n := r.IntN(24); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestAppendStringProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		s := randomString(r)
		out := AppendString(nil, s)
		require.True(t, json.Valid(out), "%q", out)
		var back string
		require.NoError(t, json.Unmarshal(out, &back))
		// Each invalid byte stands for one U+FFFD, as in a []rune conversion.
		assert.Equal(t, string([]rune(s)), back, "%q", s)
	}
}

func TestAppendASCII(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, ``},
		{`{"a":[1,2,"x\u00e9"]}`, `{"a":[1,2,"x\u00e9"]}`},
		{`"é"`, `"\u00e9"`},
		{`"😀"`, `"\ud83d\ude00"`},
		{`"\U0010ffff"`, `"\U0010ffff"`},
		{"\"\U0010ffff\"", `"\udbff\udfff"`},
		{`{"k€y":"a😀b","n":1}`, `{"k\u20acy":"a\ud83d\ude00b","n":1}`},
		{"\"\u2028\"", `"\u2028"`},
		{"\"a\xffb\"", `"a\ufffdb"`},
		{"\"\xe2\x82\"", `"\ufffd\ufffd"`},
		{"\"\ufffd\"", `"\ufffd"`},
		{`"0123456789abcdefé0123456789abcdef"`, `"0123456789abcdef\u00e90123456789abcdef"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(AppendASCII(nil, []byte(tt.in))), "%q", tt.in)
	}
	assert.Equal(t, `x"\u00e9"`, string(AppendASCII([]byte("x"), []byte(`"é"`))))
}

// randomValue builds a random JSON-able value.
func randomValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(8); {
	case k == 0 && depth < 4:
		m := map[string]any{}
		for n := r.IntN(4); n > 0; n-- {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	case k == 1 && depth < 4:
		a := []any{}
		for n := r.IntN(4); n > 0; n-- {
			a = append(a, randomValue(r, depth+1))
		}
		return a
	case k == 2:
		return r.NormFloat64() * 1e6
	case k == 3:
		return r.IntN(2) == 0
	case k == 4:
		return nil
	}
	return randomString(r)
}

func TestAppendASCIIProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		src, err := json.Marshal(randomValue(r, 0))
		require.NoError(t, err)
		// encoding/json escapes invalid UTF-8; put raw non-ASCII back so
		// that AppendASCII has something to do.
		src = []byte(strings.ReplaceAll(string(src), `\ufffd`, "\xff"))
		src = []byte(strings.ReplaceAll(string(src), `\u003c`, "ü"))
		require.True(t, json.Valid(src))

		out := AppendASCII(nil, src)
		for _, c := range out {
			require.Less(t, c, byte(utf8.RuneSelf), "%q", out)
		}
		var want, got any
		require.NoError(t, json.Unmarshal(src, &want))
		require.NoError(t, json.Unmarshal(out, &got), "%q", out)
		assert.Equal(t, want, got)
		assert.Nil(t, Valid(out, Limits{}))
	}
}
