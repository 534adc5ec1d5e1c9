package uritemplate

import (
	"strings"
	"unicode/utf8"
)

// operator is one row of the expansion table in RFC 6570 appendix A.
type operator struct {
	char          byte // 0 for a simple expression
	first, sep    string
	named         bool
	ifEmpty       string
	allowReserved bool
	stop          string // characters that end a value in Match
}

var operators = [...]operator{
	{char: 0, first: "", sep: ",", stop: "/?#,"},
	{char: '+', first: "", sep: ",", allowReserved: true},
	{char: '#', first: "#", sep: ",", allowReserved: true},
	{char: '.', first: ".", sep: ".", stop: "./?#,"},
	{char: '/', first: "/", sep: "/", stop: "/?#,"},
	{char: ';', first: ";", sep: ";", named: true, stop: ";/?#,"},
	{char: '?', first: "?", sep: "&", named: true, ifEmpty: "=", stop: "&#"},
	{char: '&', first: "&", sep: "&", named: true, ifEmpty: "=", stop: "&#"},
}

func operatorFor(c byte) *operator {
	for i := 1; i < len(operators); i++ {
		if operators[i].char == c {
			return &operators[i]
		}
	}
	return nil
}

// charSet is a set of ASCII bytes.
type charSet [2]uint64

func newCharSet(chars string) charSet {
	var s charSet
	for i := 0; i < len(chars); i++ {
		s.add(chars[i])
	}
	return s
}

func (s *charSet) add(c byte) { s[c>>6] |= 1 << (c & 63) }

func (s *charSet) has(c byte) bool { return c < 128 && s[c>>6]&(1<<(c&63)) != 0 }

func (s charSet) union(o charSet) charSet { return charSet{s[0] | o[0], s[1] | o[1]} }

var (
	unreserved = newCharSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
	reserved   = newCharSet(":/?#[]@!$&'()*+,;=")
)

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// isPctTriplet reports whether s[i:] starts with "%XX".
func isPctTriplet(s string, i int) bool {
	return i+2 < len(s) && s[i] == '%' && isHex(s[i+1]) && isHex(s[i+2])
}

// pctEncode writes every byte of s as a %XX triplet.
func pctEncode(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		b.WriteByte('%')
		b.WriteByte(upperHex[s[i]>>4])
		b.WriteByte(upperHex[s[i]&15])
	}
}

// encode writes s, percent-encoding every byte outside the unreserved set
// or, with allowReserved, outside unreserved, reserved and existing
// triplets.
func encode(b *strings.Builder, s string, allowReserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case unreserved.has(c), allowReserved && reserved.has(c):
			b.WriteByte(c)
		case allowReserved && isPctTriplet(s, i):
			b.WriteString(s[i : i+3])
			i += 2
		default:
			pctEncode(b, s[i:i+1])
		}
	}
}

// truncate returns the first n characters (runes) of s. Invalid UTF-8
// bytes count as one character each.
func truncate(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// unescape percent-decodes s. It reports false for a malformed triplet.
func unescape(s string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if !isPctTriplet(s, i) {
			return "", false
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), true
}

// runeLen counts characters the way truncate does.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
