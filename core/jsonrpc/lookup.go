package jsonrpc

import (
	"bytes"
	"unicode/utf8"
)

// Reading single members out of raw JSON the envelope decoder kept, without
// decoding the rest.

// ParseID reads a request id value (a requestId in notifications/cancelled,
// say) under the same rules as the envelope's id member.
func ParseID(raw []byte, lim Limits) (ID, *Error) {
	lim = lim.withDefaults()
	raw = trimWS(raw)
	if err := Valid(raw, lim); err != nil {
		return NullID, err
	}
	id, why := parseID(raw, lim)
	if !id.IsValid() {
		if why == "" {
			why = "an id must not be null"
		}
		return NullID, Errorf(KindJSONRPC, CodeInvalidRequest, "invalid id: %s", why)
	}
	return id, nil
}

// Member returns the raw value of the top-level member name of obj, a JSON
// object the decoder already validated (Message.Params, for one). It reports
// false when obj is not an object or has no such member.
func Member(obj []byte, name string) ([]byte, bool) {
	var v [1][]byte
	Members(obj, []string{name}, v[:])
	return v[0], v[0] != nil
}

// Members is Member for several names at once, in one pass over obj: vals[i]
// becomes the raw value of names[i], or stays nil when obj has no such
// member (the first of duplicate members counts, as for Member). vals must
// be as long as names and all nil. It reports false when obj is not an
// object (or not the validated JSON it must be).
func Members(obj []byte, names []string, vals [][]byte) bool {
	return members(obj, names, vals, false)
}

// MembersOnce is Members over the whole of obj, for a reader that must
// agree with the decoder, where the last of duplicate members counts and
// a name matches a member's in any case: it reports false as well when one
// of names appears twice, when a member's name matches one of names only
// in another case, and when a member's name has escapes.
func MembersOnce(obj []byte, names []string, vals [][]byte) bool {
	return members(obj, names, vals, true)
}

// members is Members; whole reads past the last name found, refusing a
// duplicate.
func members(obj []byte, names []string, vals [][]byte, whole bool) bool {
	s := scanner{data: obj, lim: Limits{}.withDefaults()}
	s.pos = skipWS(obj, 0)
	if s.pos >= len(obj) || obj[s.pos] != '{' {
		return false
	}
	s.pos++
	if i := skipWS(obj, s.pos); i < len(obj) && obj[i] == '}' {
		return true
	}
	left := len(names)
	for left > 0 || whole {
		key, err := s.name()
		if err != nil {
			return false
		}
		start := skipWS(obj, s.pos)
		s.pos = skipValid(obj, start)
		if s.pos <= start {
			return false
		}
		if whole && (key.esc || foldsTo(obj[key.start:key.end], names)) {
			return false
		}
		for i, name := range names {
			if textIs(obj[key.start:key.end], key.esc, name) {
				if vals[i] != nil {
					if whole {
						return false
					}
					continue
				}
				vals[i] = obj[start:s.pos]
				left--
				break
			}
		}
		i := skipWS(obj, s.pos)
		if i >= len(obj) || obj[i] != ',' {
			break
		}
		s.pos = i + 1
	}
	return true
}

// skipValid returns the offset just past the JSON value at i of data, which
// the scanner has already validated, or i when there is none. It checks
// nothing: strings are crossed with bytes.IndexByte rather than byte by
// byte, which made looking up a member after a 64 KiB argument a rescan as
// costly as the first.
func skipValid(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			end := skipValidString(data, i)
			if end < 0 {
				return i
			}
			i = end
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case ',', ':', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return i
			}
			i++
		default: // a number or a literal
			i++
		}
		if depth == 0 && (i >= len(data) || !continues(data[i])) {
			return i
		}
	}
	return i
}

// continues reports whether c can go on the scalar being skipped.
func continues(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\r', '\n', '"', '{', '[':
		return false
	}
	return true
}

// skipValidString returns the offset after the validated string whose
// opening quote is at i (-1 if it has no end): a quote ends it unless an
// odd run of backslashes precedes it.
func skipValidString(data []byte, i int) int {
	start := i + 1
	for p := start; ; {
		q := bytes.IndexByte(data[p:], '"')
		if q < 0 {
			return -1
		}
		q += p
		run := 0
		for q-run > start && data[q-1-run] == '\\' {
			run++
		}
		if run%2 == 0 {
			return q + 1
		}
		p = q + 1
	}
}

func trimWS(b []byte) []byte {
	b = b[skipWS(b, 0):]
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\r', '\n':
			b = b[:len(b)-1]
			continue
		}
		break
	}
	return b
}

// StringMember returns the text of the string member name of obj, a JSON
// object the decoder already validated. present is false when obj has no
// such member; a member that is not a string is a *TypeError.
func StringMember(obj []byte, name string) (text string, present bool, err error) {
	raw, ok := Member(obj, name)
	if !ok {
		return "", false, nil
	}
	text, err = StringValue(raw, name)
	return text, true, err
}

// foldsTo reports whether key may equal one of names in another case only.
// A key with a byte outside ASCII may: such a byte can fold to an ASCII
// letter (the Kelvin sign to k, the long s to s).
func foldsTo(key []byte, names []string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, name := range names {
		if len(key) == len(name) && string(key) != name && asciiFold(key, name) {
			return true
		}
	}
	return false
}

// asciiFold reports whether a and b, of equal length, are equal when ASCII
// letters are compared without case.
func asciiFold(a []byte, b string) bool {
	for i := range a {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// PlainString returns the text of raw, a validated JSON value, when it is
// a string without escapes (its bytes are the text); false otherwise.
func PlainString(raw []byte) (string, bool) {
	body, esc, ok := stringValue(raw)
	if !ok || esc {
		return "", false
	}
	return string(body), true
}

// StringValue returns the text of raw, the validated value of the member
// name (found by Members, say); a value that is not a string is a
// *TypeError naming the member.
func StringValue(raw []byte, name string) (string, error) {
	body, esc, ok := stringValue(raw)
	if !ok {
		return "", &TypeError{Path: []string{name}, Want: "a string", Got: describeValue(raw[0])}
	}
	if esc {
		return string(appendUnescaped(nil, body)), nil
	}
	return string(body), nil
}
