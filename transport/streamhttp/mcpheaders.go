package streamhttp

import (
	"encoding/base64"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

// The 2026-07-28 request headers mirror parts of the body so that
// intermediaries can route without parsing JSON; the server checks that
// they agree with the body (SEP-2243).
const (
	hdrProtocolVersion = "Mcp-Protocol-Version"
	hdrMethod          = "Mcp-Method"
	hdrName            = "Mcp-Name"
	hdrParamPrefix     = "Mcp-Param-"
	hdrSessionID       = "Mcp-Session-Id"
	hdrLastEventID     = "Last-Event-Id"
)

// The methods whose params the headers mirror beyond Mcp-Name: tools/call's
// arguments go in Mcp-Param-<Name>, as the tools/list answers annotate them.
const (
	methodListTools = "tools/list"
	methodCallTool  = "tools/call"
)

// The sentinel that carries a value HTTP cannot: =?base64?<base64 of UTF-8>?=
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// trimOWS removes the optional whitespace (SP, HTAB) around a field value.
func trimOWS(v string) string { return strings.Trim(v, " \t") }

// decodeSentinel returns v decoded when it is in the base64 sentinel form,
// v itself when it is not, and ok false when it is but does not decode to
// UTF-8 text under strict, padded standard base64.
func decodeSentinel(v string) (string, bool) {
	if len(v) < len(sentinelPrefix)+len(sentinelSuffix) ||
		!strings.HasPrefix(v, sentinelPrefix) || !strings.HasSuffix(v, sentinelSuffix) {
		return v, true
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)])
	if err != nil || !utf8.Valid(raw) {
		return "", false
	}
	return string(raw), true
}

// headerValue returns the single value of header name, trimmed and decoded
// from the sentinel. present is false when the header is absent; ok is false
// when it is malformed (repeated, or a sentinel that does not decode).
func headerValue(h http.Header, name string) (v string, present, ok bool) {
	vals := h.Values(name)
	switch len(vals) {
	case 0:
		return "", false, true
	case 1:
	default:
		return "", true, false
	}
	v, ok = decodeSentinel(trimOWS(vals[0]))
	return v, true, ok
}

// stringMember returns the string value of member name of obj.
func stringMember(obj []byte, name string) (string, bool) {
	raw, ok := jsonrpc.Member(obj, name)
	if !ok || !isString(raw) {
		return "", false
	}
	return stringOf(raw)
}

// stringOf returns the text of raw, a JSON string (isString).
func stringOf(raw []byte) (string, bool) {
	if plain(raw[1 : len(raw)-1]) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if jsonrpc.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// isString reports whether raw, a validated JSON value, is a string.
func isString(raw []byte) bool { return len(raw) >= 2 && raw[0] == '"' }

// stringIs reports whether the JSON string raw (isString) is s, without
// making a string of it when it needs no unescaping.
func stringIs(raw []byte, s string) bool {
	if body := raw[1 : len(raw)-1]; plain(body) {
		return string(body) == s
	}
	var text string
	return jsonrpc.Unmarshal(raw, &text) == nil && text == s
}

// plain reports whether the inside of a JSON string needs no unescaping:
// no backslash, no control character (which JSON forbids unescaped), and
// only ASCII, so its bytes are the string's own without a UTF-8 check.
// Names, versions and header values nearly always are.
func plain(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c < 0x20 || c >= 0x80 || c == '"' {
			return false
		}
	}
	return true
}

// metaProtocolVersion returns params._meta's protocolVersion when it is a string.
func metaProtocolVersion(params []byte) (string, bool) {
	meta, ok := jsonrpc.Member(params, "_meta")
	if !ok {
		return "", false
	}
	return stringMember(meta, "io.modelcontextprotocol/protocolVersion")
}

// argumentAt returns the raw argument at path below params.arguments;
// absent and null both report false.
func argumentAt(params []byte, path []string) ([]byte, bool) {
	cur, ok := jsonrpc.Member(params, "arguments")
	for _, name := range path {
		if !ok {
			return nil, false
		}
		cur, ok = jsonrpc.Member(cur, name)
	}
	if !ok || len(cur) == 0 || string(cur) == "null" {
		return nil, false
	}
	return cur, true
}

// paramMatches compares a body argument with its Mcp-Param header value
// (already trimmed and decoded): strings as they are, booleans as
// true/false, numbers numerically with the header in decimal integer form.
// Objects and arrays never match: no header can carry them.
func paramMatches(raw []byte, header string) bool {
	switch raw[0] {
	case '"':
		var s string
		return jsonrpc.Unmarshal(raw, &s) == nil && s == header
	case 't', 'f':
		return string(raw) == header
	case '{', '[', 'n':
		return false
	}
	return numberMatches(string(raw), header)
}

// paramText returns the Mcp-Param header value of a body argument, before
// the sentinel encoding: strings as they are, booleans as true/false,
// integers in decimal (7.0 as 7). Objects, arrays, null and fractions have
// none: no header can carry them.
func paramText(raw []byte) (string, bool) {
	switch raw[0] {
	case '"':
		return stringOf(raw)
	case 't', 'f':
		return string(raw), true
	case '{', '[', 'n':
		return "", false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return strconv.FormatInt(n, 10), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return "", false
	}
	return strconv.FormatInt(int64(f), 10), true
}

// numberMatches compares a JSON number with a decimal integer.
func numberMatches(num, header string) bool {
	h, err := strconv.ParseInt(header, 10, 64)
	if err != nil || strings.HasPrefix(header, "+") {
		return false
	}
	if b, err := strconv.ParseInt(num, 10, 64); err == nil {
		return b == h
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 || math.Abs(float64(h)) > 1<<53 {
		return false
	}
	return f == float64(h)
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
