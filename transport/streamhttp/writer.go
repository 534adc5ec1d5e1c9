package streamhttp

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/dispatch"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/transport/sse"
)

// writer turns one reply into the HTTP answer. An answer that comes first
// is sent as application/json (the cheap, common case); anything else, or
// an answer slow to come (Options.StreamAfter), opens a text/event-stream
// that carries the request-scoped notifications and ends with the answer.
// The same path serves a subscriptions/listen stream, which simply ends
// later.
type writer struct {
	e       *Engine
	out     Output
	rep     *reply
	dialect protocol.Dialect
	// resumable, when set (legacy sessions, ls), makes an SSE reply
	// resumable: it moves into a store of ls (Engine.newStream).
	resumable bool
	header    http.Header // extra response headers
	// life and ls, if set, end the reply like ctx does (the Engine closing,
	// the legacy session ending), so that a request needs no context derived
	// from all three unless its reply becomes a resumable stream.
	life <-chan struct{}
	ls   *legacySession

	sse     bool
	started bool // the response's status line is written
	buf     []byte

	// ctx is the request's, for write and spawn; spawned carries the
	// result of a writer spawned while the handler ran inline.
	ctx     context.Context
	spawned chan error
}

// write writes the response (runDue), answering one cut before it started
// because the Engine or the legacy session ended.
func (w *writer) write(due bool) error {
	err := w.runDue(w.ctx, due)
	if !w.started && w.ended(w.ctx) {
		return w.e.ended(w.ctx, w.ls, w.out)
	}
	return err
}

// spawn runs write on a goroutine of its own; its result goes to spawned.
func (w *writer) spawn(due bool) {
	w.spawned = make(chan error, 1)
	go func() { w.spawned <- w.write(due) }()
}

func (w *writer) run(ctx context.Context) error { return w.runDue(ctx, false) }

// runDue is run; due says StreamAfter has passed already (an inline
// handler ran that long), so the stream opens at once.
func (w *writer) runDue(ctx context.Context, due bool) error {
	defer w.rep.leave()
	var after <-chan time.Time
	armed := due // the StreamAfter timer is set before the first wait
	var tick <-chan time.Time
	var lsDone <-chan struct{} // nil (never ready) without a session
	if w.ls != nil {
		lsDone = w.ls.ctx.Done()
	}
	var wake <-chan struct{} // made by the first wait
	for {
		msgs, final, overflow := w.rep.take()
		switch {
		case overflow:
			return errSlowClient
		case !w.sse && final && len(msgs) == 1:
			return w.json(msgs[0])
		case final && len(msgs) == 0:
			// Abandoned before its answer. When the Engine or the session
			// is closing, that is why: answer as for a closing server.
			select {
			case <-ctx.Done():
				return context.Cause(ctx)
			case <-w.life:
				return context.Canceled
			case <-lsDone:
				return context.Canceled
			default:
			}
			// Cancelled by the client: nothing is sent for the request, and
			// the response ends: an empty event stream if none was open
			// yet, resumable like any other on a session.
			if !w.sse {
				if store, start := w.begin(nil); store != nil {
					return w.follow(ctx, store, start)
				}
			}
			return nil
		case len(msgs) > 0 || due && !w.sse:
			if !w.sse {
				if store, start := w.begin(msgs); store != nil {
					return w.follow(ctx, store, start)
				}
				if w.e.o.KeepAlive > 0 {
					t := time.NewTicker(w.e.o.KeepAlive)
					defer t.Stop()
					tick = t.C
				}
			}
			if err := w.events(msgs); err != nil || final {
				return err
			}
		}
		if !armed {
			// An answer that is there at once (the common case) needs no
			// timer at all.
			armed = true
			if d := w.e.o.StreamAfter; d > 0 {
				t := getTimer(d)
				defer putTimer(t)
				after = t.C
			}
		}
		if wake == nil {
			wake = w.rep.wakeup()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-w.life:
			return context.Canceled
		case <-lsDone:
			return context.Canceled
		case <-after:
			due = true
		case <-tick:
			if err := w.comment(); err != nil {
				return err
			}
		}
	}
}

// timers are StreamAfter timers between replies: one per request in flight
// rather than a new one for each.
var timers sync.Pool

func getTimer(d time.Duration) *time.Timer {
	if t, ok := timers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

// putTimer stops t and keeps it. Since Go 1.23 a stopped timer's channel
// holds no stale tick, so the next Reset starts clean.
func putTimer(t *time.Timer) {
	t.Stop()
	timers.Put(t)
}

// begin opens the SSE response. A resumable reply moves into its store,
// which the caller then follows from the returned id.
func (w *writer) begin(taken [][]byte) (*sse.Store, string) {
	w.sse = true
	var store *sse.Store
	var start string
	priming := false
	if w.resumable {
		store, priming = w.e.newStream(w.ls)
		start = w.rep.resumable(store, priming, taken)
	}
	h := sse.Header()
	for k, v := range w.header {
		h[k] = v
	}
	w.started = true
	if err := w.out.Start(http.StatusOK, h); err != nil {
		return nil, "" // the next write fails the same way
	}
	if priming {
		w.buf = sse.AppendPriming(w.buf[:0], start, w.e.o.SSERetry)
		_ = w.flushBuf()
	}
	return store, start
}

// events writes msgs as SSE events without ids (a stream nobody resumes).
func (w *writer) events(msgs [][]byte) error {
	if len(msgs) == 0 {
		return nil
	}
	w.buf = w.buf[:0]
	for _, m := range msgs {
		w.buf = sse.AppendEvent(w.buf, "", "message", m)
	}
	return w.flushBuf()
}

func (w *writer) comment() error {
	w.buf = sse.AppendComment(w.buf[:0], "keepalive")
	return w.flushBuf()
}

func (w *writer) flushBuf() error {
	if err := w.out.Write(w.buf); err != nil {
		return err
	}
	return w.out.Flush()
}

// json sends the answer as the whole body, with the status the dialect
// gives its error.
func (w *writer) json(msg []byte) error {
	status := w.e.status(w.dialect, msg)
	var h http.Header
	if _, direct := w.out.(*httpOutput); direct && len(w.header) == 0 && status != http.StatusServiceUnavailable {
		h = jsonOnly // httpOutput.Start only reads it: no map of its own per answer
	} else {
		h = jsonHeader()
		for k, v := range w.header {
			h[k] = v
		}
		if status == http.StatusServiceUnavailable {
			h.Set("Retry-After", strconv.Itoa(int(max(w.e.o.RetryAfter.Seconds(), 1))))
		}
	}
	w.started = true
	sizeBody(w.out, len(msg))
	if err := w.out.Start(status, h); err != nil {
		return err
	}
	if err := w.out.Write(msg); err != nil {
		return err
	}
	return w.out.Flush()
}

// follow writes a resumable stream from the event after last until the
// store is closed (the answer was written), ctx ends, or the client falls
// so far behind that the store evicted what it had not read.
func (w *writer) follow(ctx context.Context, store *sse.Store, last string) error {
	if w.life != nil {
		var stop func()
		ctx, stop = w.e.bind(ctx, w.ls)
		defer stop()
	}
	return follow(ctx, w.out, store, last, w.e.o.KeepAlive, &w.buf)
}

// ended reports whether the reply was cut by ctx or by what life and ls
// stand for.
func (w *writer) ended(ctx context.Context) bool {
	return ctx.Err() != nil || w.e.life.Err() != nil || w.ls != nil && w.ls.ctx.Err() != nil
}

func follow(ctx context.Context, out Output, store *sse.Store, last string, keepAlive time.Duration, buf *[]byte) error {
	var tick <-chan time.Time
	if keepAlive > 0 {
		t := time.NewTicker(keepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		wake := store.Notify()
		closed := store.Closed()
		evs, ids, ok := store.After(last)
		if !ok {
			return errSlowClient
		}
		if len(evs) > 0 {
			b := (*buf)[:0]
			for i, ev := range evs {
				if len(ev) > 0 { // empty: a priming or position marker
					b = sse.AppendEvent(b, ids[i], "message", ev)
				}
			}
			*buf = b
			last = ids[len(ids)-1]
			if len(b) > 0 {
				if err := writeFlush(out, b); err != nil {
					return err
				}
			}
		}
		if closed {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick:
			*buf = sse.AppendComment((*buf)[:0], "keepalive")
			if err := writeFlush(out, *buf); err != nil {
				return err
			}
		}
	}
}

func writeFlush(out Output, b []byte) error {
	if err := out.Write(b); err != nil {
		return err
	}
	return out.Flush()
}

// status is the HTTP status of a JSON answer: 200 for a result, the
// dialect's status map for an error, and 503 for an overloaded executor on
// every revision (the client should retry later, not give up).
func (e *Engine) status(d protocol.Dialect, msg []byte) int {
	if classify(msg) != kindError {
		return http.StatusOK
	}
	m, err := jsonrpc.Decode(msg, jsonrpc.Limits{})
	if err != nil || m.Error == nil {
		return http.StatusOK
	}
	if data, _ := m.Error.Data.(jsonrpc.RawJSON); len(data) > 0 {
		if reason, _ := stringMember(data, "reason"); reason == dispatch.ReasonOverloaded {
			return http.StatusServiceUnavailable
		}
	}
	if d == nil {
		return http.StatusOK
	}
	return d.HTTPStatus(m.Error)
}
