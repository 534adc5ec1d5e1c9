package jsonrpc

import "fmt"

// Error codes used by polymcp. The JSON-RPC codes are fixed by JSON-RPC 2.0;
// the MCP codes are fixed by the MCP specification (see docs/transports.md
// for the HTTP status each maps to).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeResourceNotFound is the legacy (≤ 2025-11-25) resources/read miss.
	CodeResourceNotFound = -32002
	// CodeHeaderMismatch: an HTTP header is missing, malformed or differs from the body (2026-07-28).
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a client capability it did not declare (2026-07-28).
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the requested revision is not served (2026-07-28).
	CodeUnsupportedProtocolVersion = -32022
)

// ErrorKind classifies where an error arose; it never reaches the wire.
type ErrorKind uint8

const (
	KindJSONRPC   ErrorKind = iota // malformed envelope
	KindProtocol                   // MCP rule broken (version, capability, unknown method)
	KindTransport                  // framing or HTTP header rule
	KindExecution                  // handler, executor, timeout
	KindAuthorization
)

// Error is the single error type of polymcp's wire. Data, when not nil, is
// encoded as the error's data member.
type Error struct {
	Code    int64
	Message string
	Data    any
	Kind    ErrorKind
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Errorf builds an Error of the given kind and code.
func Errorf(kind ErrorKind, code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Kind: kind}
}

// WithData returns a copy of e carrying data.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}
