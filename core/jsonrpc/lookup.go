package jsonrpc

import "bytes"

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
	for left > 0 {
		key, err := s.name()
		if err != nil {
			return false
		}
		start := skipWS(obj, s.pos)
		s.pos = skipValid(obj, start)
		if s.pos <= start {
			return false
		}
		for i, name := range names {
			if vals[i] == nil && textIs(obj[key.start:key.end], key.esc, name) {
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
