package router

import (
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// ErrDeferred is what a handler returns after a successful Request.Defer:
// its answer comes later, through the Later. It is a *jsonrpc.Error so
// that a handler returning it without having deferred fails its request
// with -32603 rather than leaving it unanswered.
var ErrDeferred = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
	Message: "polymcp: the handler deferred its answer without asking the request first",
	Kind:    jsonrpc.KindExecution}

// Deferrer is implemented by the dispatcher's requests that can take their
// answer after the handler has returned (see Request.Defer).
type Deferrer interface {
	// Defer readies the request for a later answer and reports whether it
	// can take one. It is called on the handler's goroutine, while the
	// handler runs.
	Defer() bool
	// Resume delivers the answer of a deferred request, the way the
	// Router's method shaped it, from any goroutine, exactly once.
	Resume(res spec.Result, err error)
	// OnEnd registers f, which is called once, on a goroutine of its own,
	// with the cause, if the deferred request ends before Resume (see
	// Later.OnEnd). Any goroutine.
	OnEnd(f func(cause error))
}

// Later answers a request whose handler deferred its answer.
type Later struct{ r *Request }

// Defer lets a handler answer after it has returned, so that a handler
// whose answer comes from elsewhere (a C ABI host answering from its own
// thread) needs no goroutine blocked meanwhile. When ok, the handler must
// return ErrDeferred — or, should the answer come before it returns, that
// answer as usual, never both — and otherwise call the Later's Answer
// exactly once, from any goroutine; the request stays in flight (its
// context alive, its concurrency slot taken, its deadline running) until
// then. When not ok (a Request built by hand, a transport that waits on
// the handler's goroutine), the handler answers by returning.
func (r *Request) Defer() (Later, bool) {
	if r == nil || r.then == nil || r.Deferrer == nil || !r.Deferrer.Defer() {
		return Later{}, false
	}
	return Later{r}, true
}

// Answer gives the deferred request its outcome: v is what the handler
// would have returned with err — a *spec.CallToolResult for a tool, a
// *spec.ReadResourceResult for a resource, a *spec.GetPromptResult for a
// prompt, a *spec.Completion for a completer — and goes through the same
// checks as a returned one (an output schema, empty defaults, errors
// turned into isError results).
func (l Later) Answer(v any, err error) {
	l.r.Deferrer.Resume(l.r.then(l.r, v, err))
}

// OnEnd has f called, once and on a goroutine of its own, with the cause
// if the request ends before its Answer: the client cancelled it, its
// deadline passed, its transport or the server went away. f should stop
// the work and then Answer (the answer is dropped; the Answer releases
// what the request holds). It is what a context.AfterFunc on the handler's
// context would do, for a lock and no allocation; an f given after the end
// is called at once.
func (l Later) OnEnd(f func(cause error)) { l.r.Deferrer.OnEnd(f) }

// deferAs records how the method about to call a handler shapes a deferred
// answer; a Request built by hand may be nil.
func (r *Request) deferAs(then func(*Request, any, error) (spec.Result, error), t *tool) {
	if r != nil {
		r.then, r.tool = then, t
	}
}

// The Router's shaping of a deferred handler's outcome, per method: each is
// what the method does with a returned one. They are functions, not
// closures, so that a call that never defers allocates nothing for them.

func toolThen(req *Request, v any, err error) (spec.Result, error) {
	res, _ := v.(*spec.CallToolResult)
	return ResultOf(req.tool.outcome(req, res, err))
}

func resourceThen(_ *Request, v any, err error) (spec.Result, error) {
	res, _ := v.(*spec.ReadResourceResult)
	res, err = readResult(res, err)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func promptThen(_ *Request, v any, err error) (spec.Result, error) {
	res, _ := v.(*spec.GetPromptResult)
	return ResultOf(promptResult(res, err))
}

func completeThen(_ *Request, v any, err error) (spec.Result, error) {
	c, _ := v.(*spec.Completion)
	return ResultOf(completeResult(c, err))
}

// ResultOf turns a (result, *jsonrpc.Error) pair into a (spec.Result,
// error) pair without the typed-nil trap.
func ResultOf[R spec.Result](res R, err *jsonrpc.Error) (spec.Result, error) {
	if err != nil {
		return nil, err
	}
	return res, nil
}
