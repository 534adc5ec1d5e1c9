package host

import (
	"errors"
	"fmt"
)

// Code is a result code of the C ABI (polymcp.h). Zero is success; every
// failure is negative, so C callers can test rc < 0.
type Code int32

// The codes, equal to POLYMCP_OK and POLYMCP_E_* in polymcp.h.
const (
	OK           Code = 0
	EInvalid     Code = -1 // bad argument, bad JSON, unknown option
	EBadHandle   Code = -2 // never issued, wrong type, or already freed
	EUnknownCall Code = -3 // the call was already completed or cancelled
	EClosed      Code = -4 // the server is closing or closed
	EForked      Code = -5 // called in a child after fork (decided in C)
	ETimeout     Code = -6 // wait: still running when the timeout passed
	EIO          Code = -7 // a descriptor or socket could not be used
	// EInputRequired: on 2026-07-28 the client has yet to answer; the call
	// is over (the core answers input_required) and the host stops.
	EInputRequired Code = -8
	// ECapability: the client did not declare what the input needs.
	ECapability Code = -9
	// ECancelled: the call ended while the host waited for input.
	ECancelled Code = -10
	// ELimit: StartTask found the server's task limits reached.
	ELimit Code = -11
	// ERPC: a client's request was answered with a JSON-RPC error.
	ERPC Code = -12
	// EOutput: a tool result does not match its tool's outputSchema.
	EOutput   Code = -13
	EInternal Code = -99 // a bug: a recovered panic
)

// Error is a failure with the code the export returns and the message
// polymcp_last_error reports.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code for err: OK for nil, the Error's own code, or
// EInternal for anything else (which is a bug in this package).
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}
