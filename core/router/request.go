package router

import (
	"context"
	"encoding/json"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// Request is what every handler gets besides its arguments. The dispatcher
// fills it; handlers must treat it as read-only.
type Request struct {
	Method   string
	Revision string // the revision the request speaks, e.g. "2025-06-18"
	// RawMeta is the request's params._meta as the client sent it (nil
	// without one); Meta decodes it.
	RawMeta json.RawMessage
	// ClientInfo and ClientCapabilities are what the client said of
	// itself: at initialize (legacy) or in this request's _meta
	// (2026-07-28). Requests share them; read them, never modify them.
	ClientInfo         *spec.Implementation
	ClientCapabilities *spec.ClientCapabilities
	// Notifier sends progress and log notifications for this request. The
	// dispatcher always sets it; it is nil only in Requests built by hand.
	Notifier Notifier
	// Inputs asks the client for input (Input, Elicit, Sample, Roots). The
	// dispatcher sets it for tools/call, prompts/get and resources/read.
	Inputs Inputter
	// Deferrer takes answers given after the handler returned (Defer); the
	// dispatcher sets it.
	Deferrer Deferrer
	// Tasks is the tasks extension's side of a 2026-07-28 tools/call
	// (StartTask); the dispatcher sets it, nil elsewhere.
	Tasks Tasker

	// then shapes a deferred answer as the method being run shapes a
	// returned one; the Router sets it, and tool, before it calls a
	// handler that may defer.
	then func(req *Request, v any, err error) (spec.Result, error)
	tool *tool
}

// Notifier is implemented by the dispatcher. It enforces the protocol's
// rules (a progressToken must have been given, progress must increase, the
// log level chosen by the client), so handlers need not know them.
type Notifier interface {
	Progress(progress float64, total *float64, message string) error
	Log(level spec.LoggingLevel, logger string, data any) error
}

// Detach tells the transport that the handler is about to wait (for a
// host, for another process, for the client): a transport that runs quick
// handlers on the goroutine reading its input (stdio) hands the reading to
// another goroutine, so the messages that follow are not held up meanwhile.
// Elsewhere it does nothing. It is cheap, and calling it twice is harmless.
func (r *Request) Detach() {
	if r == nil {
		return
	}
	if d, ok := r.Notifier.(interface{ Detach() }); ok {
		d.Detach()
	}
}

// Meta decodes params._meta, or returns nil when the request has none. It
// decodes on every call: few handlers read _meta, and a modern request
// always carries one, so decoding it up front cost every call.
func (r *Request) Meta() spec.Meta {
	if r == nil || len(r.RawMeta) == 0 {
		return nil
	}
	var m spec.Meta
	if jsonrpc.UnmarshalDecoded(r.RawMeta, &m) != nil {
		return nil
	}
	return m
}

// Progress reports progress on the request. It does nothing and returns nil
// when the Request or its Notifier is nil, so handlers can call it
// unconditionally (in tests, say).
func (r *Request) Progress(progress float64, total *float64, message string) error {
	if r == nil || r.Notifier == nil {
		return nil
	}
	return r.Notifier.Progress(progress, total, message)
}

// Log sends a log message tied to the request. Like Progress it is a no-op
// without a Notifier.
func (r *Request) Log(level spec.LoggingLevel, logger string, data any) error {
	if r == nil || r.Notifier == nil {
		return nil
	}
	return r.Notifier.Log(level, logger, data)
}

// ToolHandler runs a tool. args is the arguments object, already checked
// against the tool's inputSchema; it is never empty ("{}" when the client
// sent none) and must not be modified.
//
// A returned error becomes an isError result carrying its message, unless
// it implements ToolResulter (its result is used) or is a *jsonrpc.Error
// (sent as a JSON-RPC error instead of a result).
type ToolHandler func(ctx context.Context, req *Request, args json.RawMessage) (*spec.CallToolResult, error)

// ResourceHandler reads a resource. uri is the URI requested; vars holds the
// variables of the matched template (nil for an exact resource). Variables
// are percent-decoded client input: a handler that maps them onto files or
// keys must guard against traversal ("..", "/") itself.
type ResourceHandler func(ctx context.Context, req *Request, uri string, vars map[string]string) (*spec.ReadResourceResult, error)

// PromptHandler renders a prompt. args holds the arguments sent, declared
// or not; every required argument is present. It may be nil when none
// were sent.
type PromptHandler func(ctx context.Context, req *Request, args map[string]string) (*spec.GetPromptResult, error)

// CompleteHandler proposes values for one argument of a prompt or resource
// template. The Router caps the answer at spec.MaxCompletionValues.
type CompleteHandler func(ctx context.Context, req *Request, p *spec.CompleteParams) (*spec.Completion, error)

// ToolResulter is implemented by errors that carry the tool result to send
// in their place. The result is sent with isError set.
type ToolResulter interface {
	ToolResult() *spec.CallToolResult
}
