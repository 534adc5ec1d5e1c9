package dispatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// Progress limits for one call.
const (
	MaxProgressUpdates = 1000
	MaxProgressMessage = 4096
)

// call is one request in flight. It is answered exactly once, or not at all
// when it was cancelled; after that nothing more is sent for it.
type call struct {
	s      *Session
	id     jsonrpc.ID
	method string
	params []byte
	adm    admission
	reply  transport.Sink
	req    router.Request

	// onEnd, when set, runs once the call is answered or abandoned.
	onEnd func()
	// in is the input state of a method that may ask the client for
	// input (see input.go), once it is needed.
	in atomic.Pointer[inputs]
	// inline is the reply while the handler runs on the delivering
	// goroutine (run); only that goroutine touches it.
	inline transport.Inliner
	// m is the method the call runs (Run), set before it is submitted.
	m method
	// slot is the executor's record of the call's job (executor.SlottedJob).
	slot executor.Slot
	// jobCtx is the context Run got; hold keeps its executor slot while a
	// deferred answer is awaited (Defer, Resume).
	jobCtx context.Context
	hold   executor.Hold
	// onEnd of a deferred call (OnEnd), and why it ended, once it did
	// before its Resume; guarded by mu.
	heldEnd   func(cause error)
	heldCause error
	// task is the task the call became (StartTask): its handler's outcome
	// goes there, not to the reply, which has had its answer.
	task atomic.Pointer[task]

	mu   sync.Mutex
	done bool
	// job is the job's context once submitted, for executor.Cancel from
	// any goroutine. It is jobCtx, set again here by run under mu: Run,
	// which sets jobCtx, may start on a worker before run gets the context.
	job context.Context
	// unwatch deregisters the watch on the job's parent (run); returned
	// says the handler came back on its own, after which the watch has
	// nothing left to answer.
	unwatch   func() bool
	returned  bool
	updates   int
	lastValue float64
	// asking counts the handler's questions to the client in flight; an
	// abandoned call's reply is ended once it is zero (endReply).
	asking     int
	abandoned  bool
	replyEnded bool
}

// newCall returns the call of msg, still to be admitted into c.adm (admit)
// and then made ready to run (admitted).
func (s *Session) newCall(msg jsonrpc.Message, reply transport.Sink) *call {
	return &call{s: s, id: msg.ID, method: msg.Method, params: msg.Params, reply: reply}
}

// Slot implements executor.SlottedJob: the call and its job are one
// allocation.
func (c *call) Slot() *executor.Slot { return &c.slot }

// modern reports whether the call speaks 2026-07-28 (or a later modern
// revision), where input comes in rounds and tools may become tasks.
func (c *call) modern() bool { return c.adm.dialect.Era() == protocol.Modern }

// param returns member i of the call's params (paramMembers), or nil.
func (c *call) param(i int) []byte { return c.adm.params.Value(c.params, i) }

// admitted sets up what the handler gets from the admission in c.adm.
func (c *call) admitted() {
	adm := &c.adm
	// admit set the client's info and capabilities and the request's meta.
	c.req.Method, c.req.Revision = c.method, adm.dialect.Revision()
	c.req.Notifier, c.req.Deferrer = c, c
	if adm.inputRequired {
		c.req.Inputs = c
		if c.modern() && c.method == "tools/call" {
			c.req.Tasks = c
		}
	}
}

// finish answers the call with res or err, unless it was already answered
// or abandoned.
func (c *call) finish(res spec.Result, err error) {
	if !c.settle() {
		return
	}
	if err != nil {
		c.s.send(c.reply, jsonrpc.AppendError(nil, c.id, c.s.rt.wireError(c.adm.dialect, err)))
		return
	}
	c.answer(res)
}

// answer shapes res for the call's revision and sends it, for a call that
// has settled.
func (c *call) answer(res spec.Result) {
	c.shape(res)
	if err := c.sendResult(res); err != nil {
		c.s.send(c.reply, jsonrpc.AppendError(nil, c.id, execError(ReasonPanic, "cannot encode result: "+err.Error())))
	}
}

// shape gives res what the call's revision writes on every result of its
// method (resultType, serverInfo, cache hints).
func (c *call) shape(res spec.Result) {
	rt := c.s.rt
	c.adm.dialect.Shape(res, protocol.Shaping{Method: c.method, ServerInfo: &rt.cfg.Server, Cache: rt.cachePolicy(c.method)})
}

// sendResult encodes and sends a shaped result, from a recycled buffer: a
// sink that copies what it is sent (transport.Copier, AnswerCopier) takes
// it as it is, which spares an allocation of the answer's size; any other
// gets a copy.
func (c *call) sendResult(res spec.Result) error {
	_, copies := c.reply.(transport.Copier)
	if !copies {
		_, copies = c.reply.(transport.AnswerCopier)
	}
	send := func(msg []byte) {
		if !copies {
			msg = bytes.Clone(msg)
		}
		c.s.send(c.reply, msg)
	}
	if tr, ok := res.(*spec.CallToolResult); ok {
		appendTool := func(dst []byte) ([]byte, bool) { return appendToolResult(dst, tr) }
		if jsonrpc.WithAppended(c.id, appendTool, send) {
			return nil
		}
	}
	if c.m.rare {
		return jsonrpc.WithResponseRare(c.id, res, send)
	}
	return jsonrpc.WithResponse(c.id, res, send)
}

// abandon ends the call without an answer (cancellation, closed session)
// and cancels the handler's context with cause.
func (c *call) abandon(cause error) {
	c.mu.Lock()
	job := c.job
	c.mu.Unlock()
	if c.settle() {
		c.mu.Lock()
		c.abandoned = true
		idle := c.asking == 0
		c.mu.Unlock()
		if idle {
			c.endReply()
		}
	}
	if job != nil {
		executor.Cancel(job, cause)
	}
	c.ended(cause)
}

// endReply tells a reply that wants to know (transport.Abandoner) that the
// call gets no answer, once. With questions to the client pending, the last
// one to end calls it, after sending their notifications/cancelled.
func (c *call) endReply() {
	c.mu.Lock()
	ended := c.replyEnded
	c.replyEnded = true
	c.mu.Unlock()
	if r, ok := c.reply.(transport.Abandoner); ok && !ended {
		r.Abandon()
	}
}

// settle marks the call done; it reports false when it already was.
func (c *call) settle() bool {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return false
	}
	c.done = true
	c.mu.Unlock()
	c.s.forget(c)
	if c.onEnd != nil {
		c.onEnd()
	}
	return true
}

// run executes a method on the executor. The executor's terminal causes
// become answers: a timeout or a panic is an error for this call only.
// When the reply is a transport.Inliner, the handler runs here, on the
// goroutine that delivered the request (which waits for the answer anyway),
// rather than on a worker: at once given a free slot, else when its turn in
// the executor's queue comes (on a worker then for a transport.HostThread).
func (c *call) run(ctx context.Context, m method) {
	ex := c.s.rt.cfg.Executor
	var (
		jobCtx context.Context
		turn   executor.Turn
		err    error
	)
	inl, _ := c.reply.(transport.Inliner)
	if inl != nil && c.mayBecomeTask() {
		inl = nil
	}
	if inl != nil {
		jobCtx, turn, err = ex.SubmitInline(ctx, c)
	} else {
		jobCtx, err = ex.SubmitJob(ctx, c)
	}
	switch {
	case errors.Is(err, executor.ErrOverloaded):
		c.finish(nil, ErrOverloaded())
		return
	case err != nil:
		c.finish(nil, execError(ReasonShutdown, "server is shutting down"))
		return
	}
	c.mu.Lock()
	c.job = jobCtx
	// Done already, the call was abandoned, unless it is done because it
	// became a task (StartTask, on the job's goroutine, may be quicker).
	abandoned := c.done && c.task.Load() == nil
	c.mu.Unlock()
	if abandoned {
		executor.Cancel(jobCtx, errCancelledByClient)
	} else {
		c.watch(ctx, jobCtx)
	}
	if inl != nil {
		if _, host := inl.(transport.HostThread); host && turn.Queued() {
			// The jobs ahead may be waiting for this very thread.
			turn.Hand()
			return
		}
		// A job given a slot holds it until it has run, abandoned or not; a
		// queued one waits here for its turn.
		c.inline = inl
		inl.Inline(true)
		turn.Run()
		c.inlineEnd() // the handler panicked, or exited its goroutine
	}
}

// Run implements executor.Job: the method's handler, then its answer,
// unless the handler deferred it (Resume gives it then).
func (c *call) Run(ctx context.Context) {
	c.jobCtx = ctx
	res, err := c.m.run(ctx, c)
	c.inlineEnd()
	if c.hold.Held() {
		if err == router.ErrDeferred {
			return
		}
		// The answer came before the handler could return without it.
		c.hold.Release()
	}
	c.complete(ctx, res, err)
}

// Defer implements router.Deferrer: a reply that takes late answers
// (transport.Deferrable) lets the handler return before its answer, which
// keeps the job's executor slot meanwhile.
func (c *call) Defer() bool {
	if _, ok := c.reply.(transport.Deferrable); !ok {
		return false
	}
	h, ok := executor.HoldJob(c.jobCtx)
	if ok {
		c.hold = h
	}
	return ok
}

// Resume implements router.Deferrer: the deferred answer, on the
// answering goroutine.
func (c *call) Resume(res spec.Result, err error) {
	c.complete(c.jobCtx, res, err)
	c.hold.Release()
}

// OnEnd implements router.Deferrer.
func (c *call) OnEnd(f func(cause error)) {
	c.mu.Lock()
	cause := c.heldCause
	if cause == nil {
		c.heldEnd = f
	}
	c.mu.Unlock()
	if cause != nil && cause != errFinished {
		go f(cause)
	}
}

// ended tells the OnEnd watcher of a deferred call that the call ended
// without its answer, once; any later end is not news.
func (c *call) ended(cause error) {
	c.mu.Lock()
	if c.heldCause != nil {
		c.mu.Unlock()
		return
	}
	c.heldCause = cause
	f := c.heldEnd
	c.heldEnd = nil
	c.mu.Unlock()
	if f != nil {
		go f(cause)
	}
}

// complete answers for a handler that is done with res and err, returned or
// deferred; a 2026-07-28 handler's ErrInputRequired becomes input_required.
func (c *call) complete(ctx context.Context, res spec.Result, err error) {
	if c.hold.Held() {
		// The answer is here: a later end of the call is no news to the
		// handler's watcher (OnEnd).
		c.mu.Lock()
		c.heldEnd = nil
		if c.heldCause == nil {
			c.heldCause = errFinished
		}
		c.mu.Unlock()
	}
	if t := c.task.Load(); t != nil {
		c.settleTask(t, ctx, res, err)
		c.unwatchJob()
		return
	}
	res, err = c.inputOutcome(res, err)
	if ctx.Err() != nil {
		// The deadline or a cancellation won the race with the handler:
		// the answer is decided by the cause, not by what the handler
		// returned in reaction to it.
		c.terminal(ctx)
	} else {
		c.finish(res, err)
	}
	c.unwatchJob()
}

// Ended implements executor.Job: a timeout, a panic or Close ended the job
// while its handler may still run (or before it ran).
func (c *call) Ended(ctx context.Context) { c.terminal(ctx) }

// watch answers for a job whose parent context ends (the client or the
// session going away) while its handler may still run; the executor tells
// of the ends it makes itself (Ended). A parent that never ends needs no
// watch. The watch is on the parent, not on the job's context: the parent
// already lists the job's context among its children, where a watch on the
// job's context made it a list of its own (two allocations). A handler that
// returns stops it first.
func (c *call) watch(parent, jobCtx context.Context) {
	if parent.Done() == nil {
		return
	}
	unwatch := context.AfterFunc(parent, func() {
		// The job's context ends with its parent, in the same cancellation
		// but perhaps only after this has started: wait for its cause.
		<-jobCtx.Done()
		c.terminal(jobCtx)
	})
	c.mu.Lock()
	returned := c.returned
	if !returned {
		c.unwatch = unwatch
	}
	c.mu.Unlock()
	if returned {
		unwatch()
	}
}

// inlineEnd tells an Inliner reply that its handler is no longer running
// on the delivering goroutine. It runs on that goroutine, once.
func (c *call) inlineEnd() {
	if c.inline != nil {
		c.inline.Inline(false)
		c.inline = nil
	}
}

// unwatchJob records that the handler returned and stops the watch on the
// job's context, if run registered it already (else run stops it).
func (c *call) unwatchJob() {
	c.mu.Lock()
	c.returned = true
	unwatch := c.unwatch
	c.unwatch = nil
	c.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
}

// terminal answers for a job that ended other than by returning.
func (c *call) terminal(ctx context.Context) {
	cause := context.Cause(ctx)
	if !errors.Is(cause, executor.ErrFinished) {
		// Whatever the answer, a deferred handler's watcher hears of it.
		defer c.ended(cause)
	}
	if t := c.task.Load(); t != nil {
		c.settleTask(t, ctx, nil, nil)
		return
	}
	var panicErr *executor.PanicError
	switch {
	case errors.Is(cause, executor.ErrFinished):
	case errors.Is(cause, executor.ErrTimeout):
		c.finish(nil, ErrTimeout(c.s.rt.timeout()))
	case errors.As(cause, &panicErr):
		c.finish(nil, c.panicked(panicErr))
	default:
		// Cancelled by the client, the transport or shutdown: the spec says
		// nothing more is sent for this request.
		c.abandon(cause)
	}
}

// panicked logs a handler's panic and returns the error that answers it.
func (c *call) panicked(p *executor.PanicError) *jsonrpc.Error {
	c.s.rt.log.Error("polymcp: handler panicked", "method", c.method, "id", c.id.String(),
		"panic", fmt.Sprint(p.Value), "stack", string(p.Stack))
	return execError(ReasonPanic, "internal error: the handler failed")
}

// notify sends a request-scoped notification unless the call is over.
func (c *call) notify(method string, params []byte) error {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done {
		return errFinished
	}
	sink := c.reply
	if b, ok := sink.(*batchSink); ok {
		sink = b.direct
	}
	c.s.send(sink, jsonrpc.AppendNotification(nil, method, params))
	return nil
}

// Detach implements the optional detaching of router.Request: a reply
// that runs the handler on a goroutine with other work (transport.Detacher)
// frees that goroutine. The reply never changes, so a goroutine the handler
// started may call it too.
func (c *call) Detach() {
	if d, ok := c.reply.(transport.Detacher); ok {
		d.Detach()
	}
}

// Progress implements router.Notifier. Without a progressToken it does
// nothing: the client did not ask for progress.
func (c *call) Progress(progress float64, total *float64, message string) error {
	if t := c.task.Load(); t != nil {
		// A task has no stream to report on: its message becomes the
		// task's statusMessage.
		if message != "" {
			t.note(message, c.s.rt.now())
		}
		return nil
	}
	token := c.adm.meta.ProgressToken
	if len(token) == 0 {
		return nil
	}
	if len(message) > MaxProgressMessage {
		return fmt.Errorf("polymcp: progress message is %d bytes, over the %d-byte limit", len(message), MaxProgressMessage)
	}
	c.mu.Lock()
	switch {
	case c.done:
		c.mu.Unlock()
		return errFinished
	case c.updates >= MaxProgressUpdates:
		c.mu.Unlock()
		return fmt.Errorf("polymcp: more than %d progress updates for one request", MaxProgressUpdates)
	case c.updates > 0 && progress <= c.lastValue:
		c.mu.Unlock()
		return fmt.Errorf("polymcp: progress must increase (got %v after %v)", progress, c.lastValue)
	}
	c.updates++
	c.lastValue = progress
	c.mu.Unlock()
	p := append([]byte(`{"progressToken":`), token...)
	p = append(p, `,"progress":`...)
	p = strconv.AppendFloat(p, progress, 'g', -1, 64)
	if total != nil {
		p = append(p, `,"total":`...)
		p = strconv.AppendFloat(p, *total, 'g', -1, 64)
	}
	if message != "" {
		p = append(p, `,"message":`...)
		p = jsonrpc.AppendString(p, message)
	}
	return c.notify("notifications/progress", append(p, '}'))
}

// Log implements router.Notifier: notifications/message at or above the
// level the client chose (legacy: logging/setLevel; 2026-07-28: the
// request's _meta logLevel, without which nothing is sent).
func (c *call) Log(level spec.LoggingLevel, logger string, data any) error {
	if c.task.Load() != nil {
		return nil // the extension sends no log messages for tasks
	}
	sev, ok := level.Severity()
	if !ok {
		return fmt.Errorf("polymcp: unknown log level %q", level)
	}
	if c.adm.logLevel < 0 || sev < c.adm.logLevel {
		return nil
	}
	params, err := jsonrpc.Marshal(spec.LoggingMessageParams{Level: level, Logger: logger, Data: data})
	if err != nil {
		return err
	}
	return c.notify("notifications/message", params)
}
