// Package jsonrpc is the JSON-RPC 2.0 envelope of polymcp: a strict, bounded
// decoder that reads one message once, and encoders that write the envelope
// around result bytes that were already encoded.
//
// The decoder never builds a generic tree: it validates the whole input in one
// pass (syntax, UTF-8, nesting depth, integer length) and keeps params, result
// and error data as raw bytes for the layer that knows their type.
package jsonrpc

import "strconv"

// Kind says which of the four JSON-RPC message shapes a Message has.
type Kind uint8

const (
	KindInvalid      Kind = iota
	KindRequest           // has method and id
	KindNotification      // has method, no id
	KindResponse          // has result and id
	KindError             // has error (id may be null)
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	case KindError:
		return "error"
	}
	return "invalid"
}

type idKind uint8

const (
	idAbsent idKind = iota
	idNull
	idString
	idNumber
)

// ID is a JSON-RPC request id: a string or an int64. The zero value is
// "absent" (a notification); NullID is the explicit null used to answer a
// message whose id could not be read. IDs are comparable and usable as map keys.
type ID struct {
	kind idKind
	num  int64
	str  string
}

// NullID is the id of an error response to a message whose id is unreadable.
var NullID = ID{kind: idNull}

// StringID returns a string id.
func StringID(s string) ID { return ID{kind: idString, str: s} }

// IntID returns an integer id.
func IntID(n int64) ID { return ID{kind: idNumber, num: n} }

// IsAbsent reports whether the message carried no id at all.
func (id ID) IsAbsent() bool { return id.kind == idAbsent }

// IsNull reports whether the id is JSON null.
func (id ID) IsNull() bool { return id.kind == idNull }

// IsValid reports whether the id may identify a request (a string or integer).
func (id ID) IsValid() bool { return id.kind == idString || id.kind == idNumber }

// IsString reports whether the id is a string.
func (id ID) IsString() bool { return id.kind == idString }

// Int returns the integer value and whether the id is an integer.
func (id ID) Int() (int64, bool) { return id.num, id.kind == idNumber }

// Str returns the string value and whether the id is a string.
func (id ID) Str() (string, bool) { return id.str, id.kind == idString }

// String renders the id for logs: strings quoted, integers bare.
func (id ID) String() string {
	switch id.kind {
	case idString:
		return strconv.Quote(id.str)
	case idNumber:
		return strconv.FormatInt(id.num, 10)
	case idNull:
		return "null"
	}
	return "absent"
}

// Message is one decoded JSON-RPC message. Raw fields alias the input buffer
// given to Decode; copy them if the buffer is reused.
type Message struct {
	Kind   Kind
	ID     ID
	Method string
	// Params is the raw params object, or nil when absent.
	Params []byte
	// Result is the raw result value of a response.
	Result []byte
	// Error is the error member of an error response.
	Error *Error

	// paramSpans are where Decode found ParamNames in Params, when
	// paramsLocated.
	paramSpans    ParamSpans
	paramsLocated bool
}

// LocatedParams returns where the members ParamNames lie in Params, as
// Decode found them while validating, and whether it did: a request or
// notification whose params is an object, decoded by Decode. Otherwise
// read them with Members.
func (m *Message) LocatedParams() (ParamSpans, bool) { return m.paramSpans, m.paramsLocated }
