package dispatch

import (
	"errors"
	"fmt"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

// Causes with which the core cancels a handler's context; handlers see them
// through context.Cause.
var (
	errCancelledByClient = errors.New("polymcp: request cancelled by the client")
	errSessionClosed     = errors.New("polymcp: session closed")
	// errFinished is returned to a handler that notifies after its answer.
	errFinished = errors.New("polymcp: the request is already finished")
)

// Reasons carried in data.reason of the executor's errors, so clients can
// tell them apart without parsing messages.
const (
	ReasonOverloaded = "overloaded"
	ReasonTimeout    = "timeout"
	ReasonShutdown   = "shutdown"
	ReasonPanic      = "panic"
)

// ErrOverloaded is the answer when the executor's slots and queue are full:
// -32603 with data.reason "overloaded" (HTTP 503 on every revision).
func ErrOverloaded() *jsonrpc.Error {
	return execError(ReasonOverloaded, "server overloaded: too many requests in flight; retry later")
}

// ErrTimeout is the answer when a request outlives its deadline: -32603
// with data.reason "timeout".
func ErrTimeout(d time.Duration) *jsonrpc.Error {
	if d <= 0 {
		return execError(ReasonTimeout, "request timed out")
	}
	return execError(ReasonTimeout, fmt.Sprintf("request timed out after %s", d))
}

func execError(reason, msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg,
		Data: map[string]any{"reason": reason}, Kind: jsonrpc.KindExecution}
}

// toRPCError turns a handler or router error into the wire error.
func toRPCError(err error) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error(), Kind: jsonrpc.KindExecution}
}
