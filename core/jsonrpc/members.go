package jsonrpc

import "strconv"

// Decoding of the individual envelope members. Every function here reads a
// value the scanner has already validated.

// parseID reads an id value. It returns NullID with an empty reason for null,
// and NullID with a reason when the id is unusable.
func parseID(raw []byte, lim Limits) (ID, string) {
	switch c := raw[0]; {
	case c == '"':
		body, esc, _ := stringValue(raw)
		// An escape is at most 6 bytes per output byte, so a long enough raw
		// id is too long without unescaping it.
		if esc && len(body) <= 6*lim.MaxIDBytes {
			var buf [64]byte
			body = appendUnescaped(buf[:0], body)
		}
		if len(body) > lim.MaxIDBytes {
			return NullID, "id longer than " + strconv.Itoa(lim.MaxIDBytes) + " bytes"
		}
		return StringID(string(body)), ""
	case c == 'n':
		return NullID, ""
	case c == '-' || c-'0' < 10:
		if n, ok := parseInt(raw); ok {
			return IntID(n), ""
		}
		return NullID, "a numeric id must be an integer that fits in 64 bits"
	}
	return NullID, "an id must be a string or an integer"
}

// methodName returns the method string of a method value.
func methodName(raw []byte) (string, bool) {
	body, esc, ok := stringValue(raw)
	if !ok {
		return "", false
	}
	if esc {
		var buf [64]byte
		body = appendUnescaped(buf[:0], body)
	}
	if len(body) == 0 {
		return "", false
	}
	return internMethod(body), true
}

// internMethod returns b as a string. A name MCP defines is returned from a
// table, so that decoding a request to a known method allocates nothing. The
// table is grouped by length: a lookup is an index and a comparison or two,
// several times cheaper than hashing b for a map.
func internMethod(b []byte) string {
	if len(b) < len(methodsByLen) {
		for _, m := range methodsByLen[len(b)] {
			if string(b) == m {
				return m
			}
		}
	}
	return string(b)
}

// methodsByLen holds the method names of every MCP revision, by length.
var methodsByLen = func() (t [48][]string) {
	for _, m := range []string{
		"initialize", "ping", "server/discover",
		"tools/list", "tools/call",
		"resources/list", "resources/templates/list", "resources/read",
		"resources/subscribe", "resources/unsubscribe",
		"prompts/list", "prompts/get",
		"completion/complete", "logging/setLevel",
		"sampling/createMessage", "roots/list", "elicitation/create",
		"tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update",
		"subscriptions/listen",
		"notifications/initialized", "notifications/cancelled", "notifications/progress",
		"notifications/message", "notifications/tools/list_changed",
		"notifications/resources/updated", "notifications/resources/list_changed",
		"notifications/prompts/list_changed", "notifications/roots/list_changed",
		"notifications/elicitation/complete", "notifications/tasks/status", "notifications/tasks",
		"notifications/subscriptions/acknowledged",
	} {
		t[len(m)] = append(t[len(m)], m)
	}
	return t
}()

var errorNames = []string{"code", "message", "data"}

// decodeErrorObject reads the error member of an error response. It returns
// a reason when the member is not a well-formed JSON-RPC error object.
func decodeErrorObject(raw []byte, lim Limits) (*Error, string) {
	if raw[0] != '{' {
		return nil, `"error" must be an object`
	}
	var vals [3]span
	var seen uint8
	s := scanner{data: raw, pos: 1, lim: lim}
	for s.pos = skipWS(raw, s.pos); raw[s.pos] != '}'; s.pos = skipWS(raw, s.pos) {
		name, err := s.name()
		start := skipWS(raw, s.pos)
		s.pos = start
		if err == nil {
			err = s.value(2)
		}
		if err != nil { // cannot happen: Decode validated raw
			return nil, "malformed error object"
		}
		if i := lookupName(raw, name, errorNames); i >= 0 {
			if seen&(1<<i) != 0 {
				return nil, "duplicate member " + strconv.Quote(errorNames[i]) + " in error"
			}
			seen |= 1 << i
			vals[i] = span{start: start, end: s.pos}
		}
		if s.pos = skipWS(raw, s.pos); raw[s.pos] == ',' {
			s.pos++
		}
	}
	return errorFromMembers(raw, vals, seen)
}

func errorFromMembers(raw []byte, vals [3]span, seen uint8) (*Error, string) {
	value := func(i int) []byte { return raw[vals[i].start:vals[i].end] }
	if seen&1 == 0 {
		return nil, `error "code" is missing`
	}
	code, ok := parseInt(value(0))
	if !ok {
		return nil, `error "code" must be an integer`
	}
	if seen&2 == 0 {
		return nil, `error "message" is missing`
	}
	body, esc, ok := stringValue(value(1))
	if !ok {
		return nil, `error "message" must be a string`
	}
	if esc {
		body = appendUnescaped(nil, body)
	}
	e := &Error{Code: code, Message: string(body)}
	if seen&4 != 0 {
		e.Data = RawJSON(value(2))
	}
	return e, ""
}

// dupSet remembers unknown member names to detect duplicates. The first few
// are compared pairwise without allocating; an envelope with more unknown
// members than that is unusual enough to pay for a map, which keeps the check
// linear for hostile inputs.
type dupSet struct {
	few  [8]span
	n    int
	many map[string]struct{}
}

// add records name and reports whether it was already present.
func (d *dupSet) add(data []byte, name span) bool {
	if d.many == nil {
		for _, prev := range d.few[:d.n] {
			if sameName(data, prev, name) {
				return true
			}
		}
		if d.n < len(d.few) {
			d.few[d.n] = name
			d.n++
			return false
		}
		d.many = make(map[string]struct{}, 2*len(d.few))
		for _, prev := range d.few {
			d.many[nameString(data, prev)] = struct{}{}
		}
	}
	k := nameString(data, name)
	if _, ok := d.many[k]; ok {
		return true
	}
	d.many[k] = struct{}{}
	return false
}
