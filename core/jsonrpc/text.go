package jsonrpc

import (
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// load64 reads 8 bytes of b at i as a little-endian word; the compiler merges
// the byte loads into one, with a single bounds check.
func load64[T string | []byte](b T, i int) uint64 {
	w := b[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// AppendString appends s as a JSON string. Quotes, backslashes and control
// characters are escaped, valid UTF-8 is copied as is, and each byte of
// invalid UTF-8 becomes \ufffd so that the output is always valid JSON.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start, i := 0, 0
	for i < len(s) {
		i += plainPrefix(stringBytes(s[i:]))
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEscape appends the escape for a byte AppendString cannot copy.
func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, `\n`...)
	case '\r':
		return append(dst, `\r`...)
	case '\t':
		return append(dst, `\t`...)
	}
	// \b and \f too are written as \u escapes, as the sonic encoder writes
	// them, so that hand-written and sonic encodings agree byte for byte.
	if c >= utf8.RuneSelf { // a byte of invalid UTF-8
		return append(dst, `\ufffd`...)
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// AppendASCII appends the JSON text src rewritten as pure ASCII, for peers
// that mishandle UTF-8: each non-ASCII character, which valid JSON can only
// hold inside a string, becomes a \u escape (a surrogate pair above U+FFFF)
// and each byte of invalid UTF-8 becomes \ufffd. The value is unchanged.
func AppendASCII(dst, src []byte) []byte {
	i := asciiPrefix(src)
	if i == len(src) {
		return append(dst, src...)
	}
	dst = append(dst, src[:i]...)
	for i < len(src) {
		r, size := utf8.DecodeRune(src[i:]) // invalid UTF-8 yields U+FFFD
		dst = appendUnicodeEscape(dst, r)
		i += size
		n := asciiPrefix(src[i:])
		dst = append(dst, src[i:i+n]...)
		i += n
	}
	return dst
}

func appendUnicodeEscape(dst []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendU4(appendU4(dst, hi), lo)
	}
	return appendU4(dst, r)
}

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
