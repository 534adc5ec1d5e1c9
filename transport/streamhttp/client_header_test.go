package streamhttp

import (
	"net/http"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzHeaderText: every value the client puts in an MCP header is one our
// server reads back as it was, and plain values stay readable.
func FuzzHeaderText(f *testing.F) {
	for _, s := range []string{"echo", " echo", "echo\t", "a\tb", "日本", "=?base64?eA==?=", "=?base64?=", "", "file:///tmp/é.txt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) {
			return // JSON strings, where values come from, are UTF-8
		}
		enc := headerText(v)
		for _, c := range []byte(enc) {
			require.True(t, c == '\t' || (c >= 0x20 && c < 0x7f), "%q is no HTTP field value", enc)
		}
		got, present, ok := headerValue(http.Header{hdrName: {enc}}, hdrName)
		assert.True(t, present && ok)
		assert.Equal(t, v, got)
		if isPlainHeader(v) {
			assert.Equal(t, v, enc)
		}
	})
}
