package jsonrpc

import (
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// scanner validates JSON text (RFC 8259) in place. On success it allocates
// nothing: values are reported as offsets into data and the container stack
// lives on the caller's stack for the first 256 levels.
//
// The hot helpers are plain functions of (data, offset) that report a
// problem code rather than an error, so that they keep their state in
// registers; only fail, off the hot path, builds an *Error.
type scanner struct {
	data []byte
	pos  int
	lim  Limits // already defaulted
}

// problem is what went wrong in a scan.
type problem uint8

const (
	probNone     problem = iota
	probChar             // unexpected byte, or unexpected end of input
	probEscape           // malformed backslash escape
	probControl          // raw control character in a string
	probUTF8             // invalid UTF-8 in a string
	probLiteral          // a word that is not true, false or null
	probDepth            // nesting deeper than MaxDepth
	probDigits           // number longer than MaxNumberDigits
	probTrailing         // data after the value
)

// fail builds the parse error for problem p at offset at.
func (s *scanner) fail(p problem, at int) *Error {
	var what string
	switch p {
	case probChar:
		if at >= len(s.data) {
			return parseError("unexpected end of input")
		}
		if c := s.data[at]; c >= 0x20 && c < 0x7f {
			what = fmt.Sprintf("invalid character %q", c)
		} else {
			what = fmt.Sprintf("invalid byte 0x%02x", c)
		}
	case probEscape:
		what = "invalid escape"
	case probControl:
		what = fmt.Sprintf("control character 0x%02x in string", s.data[at])
	case probUTF8:
		what = "invalid UTF-8 in string"
	case probLiteral:
		what = "invalid literal"
	case probDepth:
		what = "nesting deeper than " + strconv.Itoa(s.lim.MaxDepth)
	case probDigits:
		what = "number longer than " + strconv.Itoa(s.lim.MaxNumberDigits) + " digits"
	default:
		what = "unexpected data after the value"
	}
	return parseError(what + " at offset " + strconv.Itoa(at))
}

func parseError(what string) *Error {
	return &Error{Code: CodeParseError, Kind: KindJSONRPC, Message: "parse error: " + what}
}

// wsMask has bit c set for each JSON whitespace byte c (all are ≤ ' ').
const wsMask = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\r'

// skipWS returns the offset of the first non-whitespace byte at or after i.
func skipWS(data []byte, i int) int {
	for i < len(data) {
		if c := data[i]; c > ' ' || wsMask>>c&1 == 0 {
			break
		}
		i++
	}
	return i
}

// end checks that only whitespace follows the value just scanned.
func (s *scanner) end() *Error {
	s.pos = skipWS(s.data, s.pos)
	if s.pos != len(s.data) {
		return s.fail(probTrailing, s.pos)
	}
	return nil
}

// expect consumes the byte c after optional whitespace.
func (s *scanner) expect(c byte) *Error {
	i := skipWS(s.data, s.pos)
	if i >= len(s.data) || s.data[i] != c {
		return s.fail(probChar, i)
	}
	s.pos = i + 1
	return nil
}

// nesting is the stack of containers open inside one value: bit i is set when
// level i is an object. The fixed part covers the default limit so that the
// hot path never allocates; deeper stacks exist only when a caller raised
// MaxDepth.
type nesting struct {
	base, depth int
	small       [4]uint64
	large       []uint64
}

func (n *nesting) push(obj bool) {
	i := n.depth - n.base
	n.depth++
	var w *uint64
	if i < 256 {
		w = &n.small[i/64]
	} else {
		j := (i - 256) / 64
		if j == len(n.large) {
			n.large = append(n.large, 0)
		}
		w = &n.large[j]
	}
	mask := uint64(1) << (i % 64)
	if obj {
		*w |= mask
	} else {
		*w &^= mask
	}
}

func (n *nesting) inObject() bool {
	i := n.depth - 1 - n.base
	if i < 256 {
		return n.small[i/64]>>(i%64)&1 == 1
	}
	i -= 256
	return n.large[i/64]>>(i%64)&1 == 1
}

// value validates one JSON value at s.pos, which sits inside depth open
// containers, and leaves s.pos just after it. It is iterative so that a
// large MaxDepth cannot exhaust the goroutine stack.
func (s *scanner) value(depth int) *Error {
	n := nesting{base: depth, depth: depth}
	for {
		opened, err := s.valueStart(&n)
		if err != nil {
			return err
		}
		if opened {
			continue
		}
		more, err := s.valueEnd(&n)
		if err != nil || !more {
			return err
		}
	}
}

// valueStart consumes a scalar or an empty container and returns false, or
// opens a non-empty container (and its first member name) and returns true.
func (s *scanner) valueStart(n *nesting) (bool, *Error) {
	data := s.data
	i := skipWS(data, s.pos)
	if i >= len(data) {
		return false, s.fail(probChar, i)
	}
	var p problem
	switch c := data[i]; c {
	case '{', '[':
		if n.depth >= s.lim.MaxDepth {
			return false, s.fail(probDepth, i)
		}
		i = skipWS(data, i+1)
		if i < len(data) && data[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
			s.pos = i + 1
			return false, nil
		}
		n.push(c == '{')
		s.pos = i
		if c == '{' {
			_, err := s.name()
			return true, err
		}
		return true, nil
	case '"':
		i, _, p = scanString(data, i)
	case 't':
		i, p = scanLiteral(data, i, "true")
	case 'f':
		i, p = scanLiteral(data, i, "false")
	case 'n':
		i, p = scanLiteral(data, i, "null")
	default:
		i, p = scanNumber(data, i, s.lim.MaxNumberDigits)
	}
	if p != probNone {
		return false, s.fail(p, i)
	}
	s.pos = i
	return false, nil
}

// valueEnd consumes the separators and closing brackets after a complete
// value. It returns true when another value follows in an open container and
// false when the outermost value is complete.
func (s *scanner) valueEnd(n *nesting) (bool, *Error) {
	data, i := s.data, s.pos
	for n.depth > n.base {
		i = skipWS(data, i)
		if i >= len(data) {
			return false, s.fail(probChar, i)
		}
		obj := n.inObject()
		switch c := data[i]; {
		case c == ',':
			s.pos = i + 1
			if obj {
				_, err := s.name()
				return true, err
			}
			return true, nil
		case c == '}' && obj, c == ']' && !obj:
			i++
			n.depth--
		default:
			return false, s.fail(probChar, i)
		}
	}
	s.pos = i
	return false, nil
}

// span locates a string's contents (between the quotes) or a whole value.
type span struct {
	start, end int
	esc        bool // the string contains backslash escapes
}

// name consumes a member name and the colon after it.
func (s *scanner) name() (span, *Error) {
	data := s.data
	i := skipWS(data, s.pos)
	if i >= len(data) || data[i] != '"' {
		return span{}, s.fail(probChar, i)
	}
	end, esc, p := scanString(data, i)
	if p != probNone {
		return span{}, s.fail(p, end)
	}
	sp := span{start: i + 1, end: end - 1, esc: esc}
	if end < len(data) && data[end] == ':' { // compact JSON: no call
		s.pos = end + 1
		return sp, nil
	}
	s.pos = end
	return sp, s.expect(':')
}

// scanString validates the string whose opening quote is at i. It returns
// the offset after the closing quote and whether the string has escapes, or
// the offset of the problem.
func scanString(data []byte, i int) (int, bool, problem) {
	esc := false
	i++
	for {
		// Most string bytes are plain ASCII: skip them up to the first
		// byte that needs a look, a word at a time here (most strings end
		// within a word or two), then in plainLen.
		for n := 0; i+8 <= len(data); i, n = i+8, n+1 {
			if m := special(load64(data, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			if n == 3 {
				i += 8 + plainLen(data[i+8:])
				break
			}
		}
		if i >= len(data) {
			return i, esc, probChar
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, esc, probNone
		case c == '\\':
			n := escapeLen(data[i:])
			if n == 0 {
				return i, esc, probEscape
			}
			esc = true
			i += n
		case c < 0x20:
			return i, esc, probControl
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return i, esc, probUTF8
			}
			i += size
		}
	}
}

// escapeLen returns the length of the valid escape at the start of b, or 0.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) >= 6 && isHex(b[2]) && isHex(b[3]) && isHex(b[4]) && isHex(b[5]) {
			return 6
		}
	}
	return 0
}

func isHex(c byte) bool {
	return c-'0' < 10 || (c|0x20)-'a' < 6
}

// scanLiteral consumes true, false or null at i.
func scanLiteral(data []byte, i int, word string) (int, problem) {
	if len(data)-i >= len(word) && string(data[i:i+len(word)]) == word {
		return i + len(word), probNone
	}
	return i, probLiteral
}

// scanNumber consumes the number literal at i, allowing at most maxDigits
// digits over its integer, fraction and exponent together.
func scanNumber(data []byte, i, maxDigits int) (int, problem) {
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	first := i
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i]-'1' < 9:
		i = skipDigits(data, i)
	default:
		return i, probChar
	}
	digits := i - first
	if i < len(data) && data[i] == '.' {
		j := skipDigits(data, i+1)
		if j == i+1 {
			return j, probChar
		}
		digits += j - i - 1
		i = j
	}
	if i < len(data) && data[i]|0x20 == 'e' {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := skipDigits(data, i)
		if j == i {
			return j, probChar
		}
		digits += j - i
		i = j
	}
	if digits > maxDigits {
		return start, probDigits
	}
	return i, probNone
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && data[i]-'0' < 10 {
		i++
	}
	return i
}
