package jsonrpc

import "math"

// Limits bound what one message may make the decoder do. Zero or negative
// fields select the defaults.
type Limits struct {
	// MaxDepth is the deepest nesting of objects and arrays; the envelope
	// object (or a batch array) is level 1.
	MaxDepth int
	// MaxIDBytes is the longest string id, in bytes after unescaping.
	MaxIDBytes int
	// MaxNumberDigits is the most digits one number literal may have,
	// counting integer, fraction and exponent digits together.
	MaxNumberDigits int
}

// The members of a request's params object that Decode locates as it
// validates them (Message.LocatedParams), by index into ParamNames: what
// admission and the tools/call path read, which then need no second pass
// over params.
const (
	ParamMeta = iota
	ParamName
	ParamArguments
	ParamRequestState
	ParamInputResponses
	NumParams
)

// ParamNames are the names of the members Decode locates in params.
var ParamNames = [NumParams]string{"_meta", "name", "arguments", "requestState", "inputResponses"}

// ParamSpans are where each of ParamNames lies in a params object, as
// offsets into it: the first member of that name, matched as Members
// matches; End 0 when there is none.
type ParamSpans [NumParams]struct{ Start, End uint32 }

// Value returns member i of params, which s describes, or nil.
func (s *ParamSpans) Value(params []byte, i int) []byte {
	if s[i].End == 0 {
		return nil
	}
	return params[s[i].Start:s[i].End:s[i].End]
}

// Defaults of Limits.
const (
	DefaultMaxDepth        = 256
	DefaultMaxIDBytes      = 256
	DefaultMaxNumberDigits = 64
)

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxIDBytes <= 0 {
		l.MaxIDBytes = DefaultMaxIDBytes
	}
	if l.MaxNumberDigits <= 0 {
		l.MaxNumberDigits = DefaultMaxNumberDigits
	}
	return l
}

// Decode reads exactly one JSON-RPC message. The whole input is validated
// first, so a syntax or limit violation anywhere is a parse error (-32700)
// answered with NullID; only then is the envelope checked (-32600, or -32602
// for a request whose params is not an object).
//
// On error the returned Message has Kind KindInvalid and carries the id to
// answer with: the request's id when it was readable, NullID when it was not,
// and the absent id for a notification, which gets no answer (its Method is
// set too, for logging). Raw fields of the Message, and the RawJSON data of a
// decoded error, alias data.
func Decode(data []byte, lim Limits) (Message, *Error) {
	var msg Message
	err := decode(data, lim, &msg)
	return msg, err
}

// decode is Decode into msg, which is zero: the message is built in place
// rather than returned by value through each step (it is some twenty
// words).
func decode(data []byte, lim Limits, msg *Message) *Error {
	s := scanner{data: data, lim: lim.withDefaults()}
	s.pos = skipWS(data, 0)
	if s.pos >= len(data) || data[s.pos] != '{' {
		if err := s.value(0); err != nil {
			msg.ID = NullID
			return err
		}
		if err := s.end(); err != nil {
			msg.ID = NullID
			return err
		}
		return msg.invalid(NullID, "a message must be a JSON object")
	}
	var env envelope
	if err := s.envelope(&env); err != nil {
		msg.ID = NullID
		return err
	}
	if err := s.end(); err != nil {
		msg.ID = NullID
		return err
	}
	return env.message(data, s.lim, msg)
}

// invalid makes m the Invalid Request answer for a message whose reply id
// is id.
func (m *Message) invalid(id ID, format string, args ...any) *Error {
	*m = Message{ID: id}
	return Errorf(KindJSONRPC, CodeInvalidRequest, "invalid request: "+format, args...)
}

// The top-level members Decode knows, in the order of envelopeNames.
type member uint8

const (
	memJSONRPC member = iota
	memID
	memMethod
	memParams
	memResult
	memError
	memCount
)

var envelopeNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// envelope records where each known top-level member's value lies, and the
// first duplicated member name.
type envelope struct {
	seen  uint8
	vals  [memCount]span
	dup   string
	dupID bool // the duplicate is "id", so no id can be trusted
	names dupSet
	// params locates ParamNames in the params object, when the first
	// "params" is one.
	params paramLocator
}

// paramLocator notes where the first of each of ParamNames lies in an
// object.
type paramLocator struct {
	vals    [NumParams]span
	located bool // the object was scanned member by member
}

func (p *paramLocator) note(data []byte, name, val span) {
	var buf [maxKnownName]byte
	if i := paramIndex(knownName(data[name.start:name.end], name.esc, &buf)); i >= 0 && p.vals[i].end == 0 {
		p.vals[i] = val
	}
}

// paramIndex returns the index in ParamNames of the name b, or -1. Every
// member of every params object is looked up: a switch on the length and
// one comparison cost a fifth of a loop over the names.
func paramIndex(b []byte) int {
	switch len(b) {
	case len("_meta"):
		if string(b) == "_meta" {
			return ParamMeta
		}
	case len("name"):
		if string(b) == "name" {
			return ParamName
		}
	case len("arguments"):
		if string(b) == "arguments" {
			return ParamArguments
		}
	case len("requestState"):
		if string(b) == "requestState" {
			return ParamRequestState
		}
	case len("inputResponses"):
		if string(b) == "inputResponses" {
			return ParamInputResponses
		}
	}
	return -1
}

// envelopeIndex is paramIndex for envelopeNames.
func envelopeIndex(b []byte) int {
	switch len(b) {
	case len("id"):
		if string(b) == "id" {
			return int(memID)
		}
	case len("error"):
		if string(b) == "error" {
			return int(memError)
		}
	case len("method"): // "params", "result"
		switch string(b) {
		case "method":
			return int(memMethod)
		case "params":
			return int(memParams)
		case "result":
			return int(memResult)
		}
	case len("jsonrpc"):
		if string(b) == "jsonrpc" {
			return int(memJSONRPC)
		}
	}
	return -1
}

func (e *envelope) has(m member) bool { return e.seen&(1<<m) != 0 }

func (e *envelope) raw(data []byte, m member) []byte {
	return data[e.vals[m].start:e.vals[m].end]
}

// object scans the object at s.pos, whose members' values are at depth,
// noting where each member lies: in e for the envelope (depth 1), or in p
// for its params (e nil). It checks exactly what value does for the same
// object. (Two pointers, not an interface: one made the envelope escape.)
func (s *scanner) object(depth int, e *envelope, p *paramLocator) *Error {
	s.pos++ // '{'
	if i := skipWS(s.data, s.pos); i < len(s.data) && s.data[i] == '}' {
		s.pos = i + 1
		return nil
	}
	for {
		name, err := s.name()
		if err != nil {
			return err
		}
		start := skipWS(s.data, s.pos)
		s.pos = start
		if e == nil {
			if err := s.value(depth); err != nil {
				return err
			}
			p.note(s.data, name, span{start: start, end: s.pos})
		} else {
			var buf [maxKnownName]byte
			m := envelopeIndex(knownName(s.data[name.start:name.end], name.esc, &buf))
			if err := s.member(m, e); err != nil {
				return err
			}
			e.note(s.data, name, m, span{start: start, end: s.pos})
		}
		i := skipWS(s.data, s.pos)
		switch {
		case i < len(s.data) && s.data[i] == ',':
			s.pos = i + 1
		case i < len(s.data) && s.data[i] == '}':
			s.pos = i + 1
			return nil
		default:
			return s.fail(probChar, i)
		}
	}
}

// member scans the value at s.pos of the envelope's member m (an index
// into envelopeNames, or -1): the first params object member by member, for
// its locator; any other value whole.
func (s *scanner) member(m int, e *envelope) *Error {
	const depth = 1
	if m != int(memParams) || e.params.located || e.has(memParams) || s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return s.value(depth)
	}
	if depth >= s.lim.MaxDepth { // as value(depth) checks any '{' it opens
		return s.fail(probDepth, s.pos)
	}
	e.params.located = true
	return s.object(depth+1, nil, &e.params)
}

// envelope scans the top-level object at s.pos, noting member values.
func (s *scanner) envelope(e *envelope) *Error {
	return s.object(1, e, nil)
}

// note records the envelope member named name, at index m of
// envelopeNames (-1 for another name), whose value is val.
func (e *envelope) note(data []byte, name span, m int, val span) {
	if m < 0 {
		if e.dup == "" && e.names.add(data, name) {
			e.dup = nameString(data, name)
		}
		return
	}
	if e.has(member(m)) {
		if e.dup == "" || member(m) == memID {
			e.dup = envelopeNames[m]
		}
		e.dupID = e.dupID || member(m) == memID
		return
	}
	e.seen |= 1 << m
	e.vals[m] = val
}

// message checks the envelope's members and classifies the message into
// msg.
func (e *envelope) message(data []byte, lim Limits, msg *Message) *Error {
	id, why := ID{}, ""
	if e.has(memID) {
		id, why = parseID(e.raw(data, memID), lim)
	}
	reply := id.orNull()
	if e.dup != "" {
		if e.dupID {
			reply = NullID
		}
		return msg.invalid(reply, "duplicate member %q", e.dup)
	}
	if !e.has(memJSONRPC) || !isText(e.raw(data, memJSONRPC), "2.0") {
		return msg.invalid(reply, `"jsonrpc" must be "2.0"`)
	}
	method, result, fail := e.has(memMethod), e.has(memResult), e.has(memError)
	switch {
	case method && (result || fail):
		return msg.invalid(reply, "a message with a method cannot have a result or an error")
	case result && fail:
		return msg.invalid(reply, "a response cannot have both a result and an error")
	case why != "":
		return msg.invalid(NullID, "%s", why)
	case method:
		return e.call(data, id, msg)
	case result:
		return e.response(data, id, msg)
	case fail:
		return e.errorResponse(data, id, lim, msg)
	}
	return msg.invalid(reply, "a message needs a method, a result or an error")
}

// call classifies a request (with an id) or a notification (without)
// into msg.
func (e *envelope) call(data []byte, id ID, msg *Message) *Error {
	msg.Kind, msg.ID = KindNotification, id
	if e.has(memID) {
		if !id.IsValid() {
			return msg.invalid(NullID, "a request id must not be null")
		}
		msg.Kind = KindRequest
	}
	name, ok := methodName(e.raw(data, memMethod))
	if !ok {
		// Not even a notification: answer with null, as JSON-RPC 2.0 does.
		return msg.invalid(id.orNull(), `"method" must be a non-empty string`)
	}
	msg.Method = name
	if !e.has(memParams) {
		return nil
	}
	params := e.raw(data, memParams)
	if params[0] != '{' {
		kind := msg.Kind
		*msg = Message{ID: id, Method: name}
		if kind == KindNotification {
			return Errorf(KindJSONRPC, CodeInvalidRequest, `invalid request: "params" must be an object`)
		}
		return Errorf(KindJSONRPC, CodeInvalidParams, `invalid params: "params" must be an object`)
	}
	msg.Params = params
	if e.params.located && len(params) < math.MaxUint32 {
		msg.paramsLocated = true
		base := e.vals[memParams].start
		for i, v := range e.params.vals {
			if v.end != 0 {
				msg.paramSpans[i].Start, msg.paramSpans[i].End = uint32(v.start-base), uint32(v.end-base)
			}
		}
	}
	return nil
}

func (e *envelope) response(data []byte, id ID, msg *Message) *Error {
	if !id.IsValid() {
		return msg.invalid(NullID, "a response id must be a string or an integer")
	}
	*msg = Message{Kind: KindResponse, ID: id, Result: e.raw(data, memResult)}
	return nil
}

func (e *envelope) errorResponse(data []byte, id ID, lim Limits, msg *Message) *Error {
	if id.IsAbsent() {
		return msg.invalid(NullID, `an error response needs an "id" member`)
	}
	obj, why := decodeErrorObject(e.raw(data, memError), lim)
	if why != "" {
		return msg.invalid(id.orNull(), "%s", why)
	}
	*msg = Message{Kind: KindError, ID: id, Error: obj}
	return nil
}

func (id ID) orNull() ID {
	if id.IsValid() {
		return id
	}
	return NullID
}

// isText reports whether the JSON value raw is the string want.
func isText(raw []byte, want string) bool {
	body, esc, ok := stringValue(raw)
	return ok && textIs(body, esc, want)
}
