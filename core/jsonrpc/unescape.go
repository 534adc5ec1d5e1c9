package jsonrpc

import (
	"bytes"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// The helpers below read string contents that the scanner has already
// validated, so they never see a truncated or malformed escape.

// appendUnescaped appends the decoded form of the string contents raw.
func appendUnescaped(dst, raw []byte) []byte {
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:i]...)
		r, n := decodeEscape(raw[i:])
		dst = utf8.AppendRune(dst, r)
		raw = raw[i+n:]
	}
	return dst
}

// decodeEscape decodes the escape at the start of b and returns its length.
// A surrogate pair becomes one rune; a lone surrogate becomes U+FFFD, which is
// what a UTF-8 string can hold in its place.
func decodeEscape(b []byte) (rune, int) {
	if b[1] != 'u' {
		return rune(unescapeByte[b[1]]), 2
	}
	r := hex4(b[2:6])
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if r < 0xdc00 && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if lo := hex4(b[8:12]); lo >= 0xdc00 && lo < 0xe000 {
			return utf16.DecodeRune(r, lo), 12
		}
	}
	return utf8.RuneError, 6
}

// unescapeByte maps the letter of a two-byte escape to the byte it stands for.
var unescapeByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// nextChar decodes the character at raw[i], escaped or not, and returns the
// index after it.
func nextChar(raw []byte, i int) (rune, int) {
	switch c := raw[i]; {
	case c == '\\':
		r, n := decodeEscape(raw[i:])
		return r, i + n
	case c < utf8.RuneSelf:
		return rune(c), i + 1
	}
	r, n := utf8.DecodeRune(raw[i:])
	return r, i + n
}

// sameName reports whether two member names are equal once unescaped, so that
// "id" and "\u0069d" count as duplicates.
func sameName(data []byte, a, b span) bool {
	x, y := data[a.start:a.end], data[b.start:b.end]
	if !a.esc && !b.esc {
		return bytes.Equal(x, y)
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		var r1, r2 rune
		r1, i = nextChar(x, i)
		r2, j = nextChar(y, j)
		if r1 != r2 {
			return false
		}
	}
	return i == len(x) && j == len(y)
}

// textIs reports whether the string contents raw unescape to want.
func textIs(raw []byte, esc bool, want string) bool {
	if !esc {
		return string(raw) == want
	}
	i := 0
	for _, w := range want {
		if i == len(raw) {
			return false
		}
		var r rune
		r, i = nextChar(raw, i)
		if r != w {
			return false
		}
	}
	return i == len(raw)
}

// maxKnownName bounds the raw length of an escaped name that can unescape to
// one of the member names Decode looks up, the longest of which is
// "inputResponses" (an escape spends at most 6 bytes on one byte of output).
const maxKnownName = 6 * len("inputResponses")

// knownName returns raw, the text of a member name, unescaped into buf
// when it has escapes (esc), or nil when it is then too long to be one of
// the names Decode looks up.
func knownName(raw []byte, esc bool, buf *[maxKnownName]byte) []byte {
	if esc { // out of line, so that this inlines: names seldom have escapes
		return unescapedName(raw, buf)
	}
	return raw
}

func unescapedName(raw []byte, buf *[maxKnownName]byte) []byte {
	if len(raw) > maxKnownName {
		return nil
	}
	return appendUnescaped(buf[:0], raw)
}

// lookupName returns the index of the name sp in names, or -1.
func lookupName(data []byte, sp span, names []string) int {
	var buf [maxKnownName]byte
	raw := knownName(data[sp.start:sp.end], sp.esc, &buf)
	if raw == nil {
		return -1
	}
	for i, n := range names {
		if string(raw) == n {
			return i
		}
	}
	return -1
}

// nameString returns the unescaped member name (error paths only).
func nameString(data []byte, sp span) string {
	return string(appendUnescaped(nil, data[sp.start:sp.end]))
}

// stringValue returns the contents of a string value and whether it has
// escapes, or ok=false when raw is not a string.
func stringValue(raw []byte) (body []byte, esc, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false, false
	}
	body = raw[1 : len(raw)-1]
	return body, bytes.IndexByte(body, '\\') >= 0, true
}

// maxSafeDigits is the most decimal digits that always fit int64.
const maxSafeDigits = 18

// parseInt parses a validated number literal that must be an integer fitting
// int64; a fraction or an exponent makes it invalid even when its value is
// integral, as JSON-RPC ids and error codes are integers on the wire.
func parseInt(raw []byte) (n int64, ok bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	if len(raw) == 0 {
		return 0, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	// Up to maxSafeDigits digits cannot overflow: no division per digit.
	checked := len(raw) > maxSafeDigits
	var u uint64
	for _, c := range raw {
		d := uint64(c - '0')
		if d > 9 || checked && u > (limit-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		return int64(-u), true
	}
	return int64(u), true
}
