package host

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// Call states. A call leaves statePending exactly once: to stateCompleting
// (won by Complete or Fail, which then publish the outcome and move to
// stateCompleted) or to stateCancelled (won by the handler when its context
// ends first).
const (
	statePending uint32 = iota
	stateCompleting
	stateCompleted
	stateCancelled
)

// Call is one polymcp_call_t: a handler invocation waiting for the host.
type Call struct {
	handle uint64
	kind   uint32
	key    string // the resource URI, for a not-found failure
	req    *router.Request
	ctx    context.Context // the handler's: Input waits within it
	s      *Server
	state  atomic.Uint32
	// wake is made only by a handler that has to wait (most hosts answer
	// inside on_call, and then no channel is needed); settle closes it if
	// it is there once the outcome is published.
	wake atomic.Pointer[chan struct{}]

	// A deferred call (deferred, later: the request took a late answer)
	// has no goroutine waiting: the outcome goes to later. invoke and
	// settle each count handoff once they are done with their part, and
	// the second answers: invoke by returning the outcome (the host
	// answered before invoke could return without it), settle through
	// later. The request tells of its end without an answer through
	// later.OnEnd, which invoke registers before it counts.
	deferred bool
	later    router.Later
	handoff  atomic.Uint32

	result any // what the router's handler returns: *spec.CallToolResult, ..., *spec.Completion
	err    error
}

// invoke hands one handler invocation to the host and returns its outcome.
// The host may complete inside on_call (then no goroutine is woken) or
// later from any thread; if ctx ends first (client cancel, deadline,
// transport gone, server closed) the host gets on_cancel instead and any
// later Complete fails with EUnknownCall. Where the request takes a late
// answer (stdio), a call the host does not answer inside on_call returns
// router.ErrDeferred, and the thread that completes it answers the client:
// no goroutine waits, so none is woken, for the answer.
func (s *Server) invoke(ctx context.Context, req *router.Request, kind uint32, tag uint64, key string, params *[]byte) (any, error) {
	c := &Call{kind: kind, key: key, req: req, ctx: ctx, s: s}
	// Asked before on_call, which may answer at once: settle must know
	// where the outcome goes.
	c.later, c.deferred = req.Defer()
	c.handle = calls.add(c)
	s.cb.OnCall(c.handle, kind, tag, *params)
	putParams(params)
	if c.deferred {
		return c.deferAnswer()
	}
	if c.state.Load() == stateCompleted {
		return c.result, c.err
	}
	// The host answers later, from another thread: whatever else the
	// transport has to do must not wait for that.
	req.Detach()
	// Publish the channel, then look again: either settle sees the channel
	// and closes it, or this sees the outcome settle stored before it looked.
	done := make(chan struct{})
	c.wake.Store(&done)
	if c.state.Load() != stateCompleted {
		select {
		case <-done:
		case <-ctx.Done():
			if c.state.CompareAndSwap(statePending, stateCancelled) {
				calls.remove(c.handle)
				s.cb.OnCancel(c.handle)
				return nil, context.Cause(ctx)
			}
			<-done // a completion won the race and is publishing
		}
	}
	return c.result, c.err
}

// deferAnswer returns the outcome if the host gave it already, else
// router.ErrDeferred, with the call watched for its context's end.
func (c *Call) deferAnswer() (any, error) {
	if c.state.Load() == statePending {
		c.later.OnEnd(c.cancelled)
	}
	if c.handoff.Add(1) == 2 {
		return c.result, c.err
	}
	return nil, router.ErrDeferred
}

// cancelled is the end watch of a deferred call: the call ends without the
// host's answer, which the request gets as the cause.
func (c *Call) cancelled(cause error) {
	if !c.state.CompareAndSwap(statePending, stateCancelled) {
		return
	}
	calls.remove(c.handle)
	c.s.cb.OnCancel(c.handle)
	c.later.Answer(nil, cause)
}

// answerLater gives a deferred call's outcome to its request.
func (c *Call) answerLater() { c.later.Answer(c.result, c.err) }

func lookupCall(h uint64) (*Call, error) {
	return calls.get(h, EUnknownCall, "was already completed, failed or cancelled")
}

// settle publishes an outcome if the call is still pending.
func (c *Call) settle(result any, err error) error {
	if !c.state.CompareAndSwap(statePending, stateCompleting) {
		return errorf(EUnknownCall, "call %#x was already completed, failed or cancelled", c.handle)
	}
	calls.remove(c.handle)
	c.result, c.err = result, err
	c.state.Store(stateCompleted)
	if c.deferred {
		if c.handoff.Add(1) == 2 {
			c.answerLater()
		}
	} else if done := c.wake.Load(); done != nil {
		close(*done)
	}
	return nil
}

// Complete answers call h with result, the method's result object. Bad
// JSON leaves the call pending, so the host can still answer it.
func Complete(h uint64, result []byte) error {
	c, err := lookupCall(h)
	if err != nil {
		return err
	}
	res, err := decodeResult(c.kind, result)
	if err != nil {
		return err
	}
	return c.settle(res, nil)
}

// CompleteText answers tool call h with one text item, text: the commonest
// result without JSON to build on the host's side or to decode on ours
// (at 64 KiB that decode was the largest cost of a call in the core).
// Text that is not UTF-8, or a call that is not a tool's, is EInvalid and
// leaves the call pending.
func CompleteText(h uint64, text []byte) error {
	c, err := lookupCall(h)
	if err != nil {
		return err
	}
	if c.kind != KindTool {
		return errorf(EInvalid, "a text result answers a tool call only; complete this one with its result object")
	}
	if !utf8.Valid(text) {
		return errorf(EInvalid, "text is not UTF-8")
	}
	// text is the library's own copy of the host's bytes, never changed:
	// the result's string can be it.
	return c.settle(spec.TextResult(unsafe.String(unsafe.SliceData(text), len(text))), nil)
}

// decodeResult decodes the host's result object into what the router's
// handler of kind returns (for a completion, the Completion inside it).
func decodeResult(kind uint32, raw []byte) (any, error) {
	var v any
	switch kind {
	case KindTool:
		v = &spec.CallToolResult{}
	case KindResource:
		v = &spec.ReadResourceResult{}
	case KindPrompt:
		v = &spec.GetPromptResult{}
	default:
		v = &spec.CompleteResult{}
	}
	if firstByte(raw) != '{' {
		return nil, errorf(EInvalid, "result must be a JSON object")
	}
	// raw is the library's own copy of the host's bytes (see input in capi).
	if err := jsonrpc.UnmarshalOwned(raw, v); err != nil {
		return nil, errorf(EInvalid, "%s", jsonrpc.Describe(err, "result"))
	}
	if r, ok := v.(*spec.CompleteResult); ok {
		return &r.Completion, nil
	}
	return v, nil
}

// Fail answers call h with an error. code 0 means a handler failure: for a
// tool, an isError result with msg as its text (the model sees it); for
// the others, -32603 with msg. A resource failing with -32002 is a
// not-found, which each revision answers its own way. Any other code is
// sent as that JSON-RPC error. data, when not empty, is the JSON of the
// error's data member; a tool failure and a not-found have no data of the
// host's (one is a result, the other is shaped by the revision), so data
// there is EInvalid and leaves the call pending.
func Fail(h uint64, code int32, msg string, data []byte) error {
	c, err := lookupCall(h)
	if err != nil {
		return err
	}
	tool := code == 0 && c.kind == KindTool
	notFound := code == jsonrpc.CodeResourceNotFound && c.kind == KindResource
	if len(data) == 0 {
		switch {
		case tool:
			return c.settle(spec.ErrorResult(msg), nil)
		case notFound:
			return c.settle(nil, &router.NotFoundError{URI: c.key})
		}
	} else if tool || notFound {
		return errorf(EInvalid, "error data needs a JSON-RPC error: a tool failure is a result (complete it with "+
			`"isError":true to add structuredContent) and a not-found's data is the library's`)
	}
	rpc := &jsonrpc.Error{Code: int64(code), Message: msg, Kind: jsonrpc.KindExecution}
	if code == 0 {
		rpc.Code = jsonrpc.CodeInternalError
	}
	if len(data) > 0 {
		var raw json.RawMessage
		// data is the library's own copy of the host's bytes.
		if err := jsonrpc.UnmarshalOwned(data, &raw); err != nil {
			return errorf(EInvalid, "%s", jsonrpc.Describe(err, "data"))
		}
		rpc.Data = raw
	}
	return c.settle(nil, rpc)
}

// progressParams is polymcp_call_progress's JSON.
type progressParams struct {
	Progress *float64 `json:"progress"`
	Total    *float64 `json:"total"`
	Message  string   `json:"message"`
}

// Progress reports progress on a pending call; without a progressToken
// from the client it does nothing.
func Progress(h uint64, raw []byte) error {
	c, err := lookupCall(h)
	if err != nil {
		return err
	}
	var p progressParams
	if err := decodeDef(raw, "progress", &p); err != nil {
		return err
	}
	if p.Progress == nil {
		return errorf(EInvalid, "progress: the progress member is required")
	}
	if err := c.req.Progress(*p.Progress, p.Total, p.Message); err != nil {
		return errorf(EInvalid, "%v", err)
	}
	return nil
}

// logParams is polymcp_call_log's JSON.
type logParams struct {
	Level  spec.LoggingLevel `json:"level"`
	Logger string            `json:"logger"`
	Data   any               `json:"data"`
}

// Log sends notifications/message tied to a pending call, if the client's
// log level lets it through.
func Log(h uint64, raw []byte) error {
	c, err := lookupCall(h)
	if err != nil {
		return err
	}
	var p logParams
	if err := decodeDef(raw, "log", &p); err != nil {
		return err
	}
	if err := c.req.Log(p.Level, p.Logger, p.Data); err != nil {
		return errorf(EInvalid, "%v", err)
	}
	return nil
}

// callInfo is polymcp_call_info's JSON.
type callInfo struct {
	Method             string                   `json:"method"`
	Revision           string                   `json:"revision"`
	Meta               json.RawMessage          `json:"_meta,omitempty"`
	ClientInfo         *spec.Implementation     `json:"clientInfo,omitempty"`
	ClientCapabilities *spec.ClientCapabilities `json:"clientCapabilities,omitempty"`
}

// Info describes a pending call: the parts of the request on_call leaves
// out because few handlers need them.
func Info(h uint64) ([]byte, error) {
	c, err := lookupCall(h)
	if err != nil {
		return nil, err
	}
	r := c.req
	b, err := jsonrpc.Marshal(callInfo{Method: r.Method, Revision: r.Revision, Meta: r.RawMeta,
		ClientInfo: r.ClientInfo, ClientCapabilities: r.ClientCapabilities})
	if err != nil {
		return nil, errorf(EInternal, "call info: %v", err)
	}
	return b, nil
}

// Input asks the client for the input requests of raw, a JSON object
// {key: {"method","params"}}, and returns the answers as a JSON object
// under the same keys. It blocks the calling host thread on the legacy
// revisions, where each request goes to the client while the call waits;
// on 2026-07-28 it returns at once: the answers the retry carried, or
// EInputRequired, after which the call is over (the core answers
// input_required with every request asked so far) and the host stops.
func Input(h uint64, raw []byte) ([]byte, error) {
	c, err := lookupCall(h)
	if err != nil {
		return nil, err
	}
	var asked map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := decodeDef(raw, "input requests", &asked); err != nil {
		return nil, err
	}
	if len(asked) == 0 {
		return nil, errorf(EInvalid, "input requests: at least one is needed")
	}
	reqs := make(map[string]router.InputRequest, len(asked))
	for k, q := range asked {
		if q.Method == "" {
			return nil, errorf(EInvalid, "input request %q needs a method", k)
		}
		if len(q.Params) == 0 {
			q.Params = json.RawMessage(`{}`)
		}
		reqs[k] = router.InputRequest{Method: q.Method, Params: q.Params}
	}
	answers, err := c.req.Input(c.ctx, reqs)
	var missing *router.MissingCapabilityError
	switch {
	case err == nil:
		b, merr := jsonrpc.Marshal(answers)
		if merr != nil {
			return nil, errorf(EInternal, "input answers: %v", merr)
		}
		return b, nil
	case errors.Is(err, router.ErrInputRequired):
		_ = c.settle(nil, err)
		return nil, errorf(EInputRequired, "the client has yet to answer: the call ends with input_required")
	case errors.As(err, &missing):
		if missing.Modern {
			_ = c.settle(nil, missing.RPCError()) // -32021 for the whole request
		}
		return nil, errorf(ECapability, "%v", err)
	case c.ctx.Err() != nil:
		return nil, errorf(ECancelled, "the call ended while waiting for input: %v", err)
	default:
		return nil, errorf(EInvalid, "%v", err)
	}
}

// StartTask makes call h a task (polymcp_call_start_task).
func StartTask(h uint64) error {
	c, err := lookupCall(h)
	if err != nil {
		return err
	}
	err = c.req.StartTask()
	var rpc *jsonrpc.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, router.ErrNoTask):
		return errorf(EInvalid, "%v", err)
	case errors.As(err, &rpc):
		return errorf(ELimit, "%s", rpc.Message)
	}
	return errorf(EUnknownCall, "call %#x is over: %v", h, err)
}

// Cancelled reports whether the call's context has ended (client cancel,
// deadline, session or server closed) while the host still holds it: a
// handler running inside on_call, which gets on_cancel only once it has
// returned, polls this instead.
func Cancelled(h uint64) (bool, error) {
	c, err := lookupCall(h)
	if err != nil {
		return false, err
	}
	return c.ctx.Err() != nil, nil
}

// InputState returns the state the host kept with SetInputState in an
// earlier round (nil when none).
func InputState(h uint64) ([]byte, error) {
	c, err := lookupCall(h)
	if err != nil {
		return nil, err
	}
	return c.req.InputState(), nil
}

// SetInputState keeps state for the call's next round (2026-07-28, carried
// signed in requestState) or later in this one.
func SetInputState(h uint64, state []byte) error {
	c, err := lookupCall(h)
	if err != nil {
		return err
	}
	c.req.SetInputState(state)
	return nil
}
