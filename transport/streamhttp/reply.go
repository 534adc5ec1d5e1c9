package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport/sse"
)

var (
	errSlowClient = errors.New("streamhttp: client reads too slowly; stream closed")
	errWriterGone = errors.New("streamhttp: the client is gone")
)

// reply is the Sink of one POSTed request: it holds the messages the
// dispatcher sends (request-scoped notifications, then the answer) until the
// one writer takes them. Once made resumable (legacy SSE) the messages go to
// an sse.Store instead, where a reconnecting client finds them.
type reply struct {
	maxEvents, maxBytes int
	dueAfter            time.Duration // StreamAfter, for an inline handler

	mu sync.Mutex
	// wake is poked when a message or the end arrives; it is made by the
	// first wait (wakeup), so an answer there at once needs no channel.
	wake    chan struct{}
	pending [][]byte
	// first holds the first message sent, so that the one answer most
	// replies carry needs no slice of its own; taken once, it is never
	// written again (the writer reads what take gave it unlocked).
	first     [1][]byte
	firstUsed bool
	// owned holds the copy of the answer, a buffer of kept's that goes
	// back when the writer leaves.
	owned    *[]byte
	bytes    int
	final    bool // the answer is among the messages
	overflow bool
	gone     bool       // the writer left: later messages are dropped
	store    *sse.Store // non-nil once resumable

	// While a handler runs on the request's goroutine (transport.Inliner),
	// nobody is writing: the first message or abandon in that time, or
	// StreamAfter passing, starts w on a goroutine of its own (once;
	// spawned tells). w is set only where that can happen (serveReply).
	inline  bool
	w       *writer
	spawned bool
	// wheel times the handler while it runs inline (dueSet: in dueSlot).
	wheel   *dueWheel
	dueSlot int
	dueSet  bool

	// cut, when set (a 2026-07-28 request), is the request's context: its
	// end closes sess, which cancels the handler. The handler's own context
	// does not derive from it, for a registration on the request's context
	// cost every request five allocations and two updates of its children
	// under its lock. The watch is registered only once a reply leaves the
	// fast path: its writer starts while the handler runs inline, or the
	// handler has run inline for watchAfter (a handler on the executor is
	// covered by the writer, which waits on cut itself).
	cut     context.Context
	sess    interface{ Close() }
	unwatch func() bool
}

// watchAfter is how long an inline 2026-07-28 handler runs before the
// client's going away starts to cancel it: far below the 100 ms a client
// may expect, far above what a quick handler takes.
const watchAfter = 10 * time.Millisecond

// watchLocked registers the watch on cut, once; it reports whether this
// call did.
func (r *reply) watchLocked() bool {
	if r.cut == nil || r.unwatch != nil {
		return false
	}
	r.unwatch = context.AfterFunc(r.cut, r.sess.Close)
	return true
}

// stopWatch deregisters the watch, if one was registered.
func (r *reply) stopWatch() {
	r.mu.Lock()
	stop := r.unwatch
	r.unwatch = nil
	r.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// reply returns p's reply, set up under e's limits: a request's reply (and
// its writer) are part of its Prepared, not allocations of their own.
func (p *Prepared) reply(e *Engine) *reply {
	r := &p.rep
	r.maxEvents, r.maxBytes = e.o.MaxStreamEvents, e.o.MaxStreamBytes
	return r
}

// Send implements transport.Sink. It never blocks: a writer that falls
// more than the limits behind loses its stream. It keeps a copy of the
// answer (transport.AnswerCopier), in a recycled buffer, so that a large
// answer costs no allocation of its size (the dispatcher recycles its
// encoding buffer too); other messages, made for this reply alone, are
// kept as they are (a sender never changes a message it sent), and a
// store copies what it keeps itself.
func (r *reply) Send(msg []byte) error {
	fin := isFinal(msg)
	r.mu.Lock()
	if r.store != nil {
		r.store.Append(msg)
		if fin {
			r.store.Close()
		}
		r.mu.Unlock()
		return nil
	}
	switch {
	case r.gone:
		r.mu.Unlock()
		return errWriterGone
	case len(r.pending) > 0 && (len(r.pending) >= r.maxEvents || r.bytes+len(msg) > r.maxBytes):
		r.overflow, r.gone, r.pending = true, true, nil
		r.pokeLocked()
		r.mu.Unlock()
		return errSlowClient
	}
	if r.pending == nil && !r.firstUsed {
		r.pending, r.firstUsed = r.first[:0], true
	}
	if fin {
		msg = r.keepLocked(msg)
	}
	r.pending = append(r.pending, msg)
	r.bytes += len(msg)
	r.final = r.final || fin
	r.spawnLocked(false)
	r.pokeLocked()
	r.mu.Unlock()
	return nil
}

// CopiesAnswers implements transport.AnswerCopier.
func (*reply) CopiesAnswers() {}

// keepLocked returns the copy of an answer the reply keeps: in a buffer of
// kept's, which goes back when the writer leaves (a second answer, in a
// batch's wake, gets a plain copy).
func (r *reply) keepLocked(msg []byte) []byte {
	if r.owned != nil {
		return bytes.Clone(msg)
	}
	r.owned = kept.Get().(*[]byte)
	*r.owned = append((*r.owned)[:0], msg...)
	return *r.owned
}

// kept recycles the buffers of replies' answers, up to maxKept bytes.
var kept = sync.Pool{New: func() any { return new([]byte) }}

const maxKept = 1 << 20

// inlineReply is a reply whose writer can start on demand (execModern sets
// spawn): only such a reply lets the dispatcher run a handler inline.
type inlineReply struct{ *reply }

// Inline implements transport.Inliner.
func (r inlineReply) Inline(running bool) { r.reply.inlined(running) }

// inlined records whether a handler runs inline. One starting arms the
// StreamAfter timer that would have made the writer open a stream.
func (r *reply) inlined(running bool) {
	r.mu.Lock()
	r.inline = running
	switch {
	case running && (len(r.pending) > 0 || r.final):
		r.spawnLocked(false)
	case running && r.w != nil && r.wheel != nil && !r.spawned && !r.dueSet && (r.dueAfter > 0 || r.cut != nil):
		r.dueSlot, r.dueSet = r.wheel.add(r, r.firstDue()), true
	case !running:
		r.leaveWheelLocked()
	}
	r.mu.Unlock()
}

// firstDue is when the due timer of an inline handler first fires: at
// watchAfter to register the watch, if there is one and it comes before
// StreamAfter, else at StreamAfter.
func (r *reply) firstDue() time.Duration {
	if r.cut != nil && (r.dueAfter <= 0 || watchAfter < r.dueAfter) {
		return watchAfter
	}
	return r.dueAfter
}

// leaveWheelLocked takes the handler off the wheel, if it is on it.
func (r *reply) leaveWheelLocked() {
	if r.dueSet {
		r.wheel.remove(r.dueSlot, r)
		r.dueSet = false
	}
}

// dueFired runs when an inline handler is due on the wheel (in slot): at
// watchAfter it registers the watch and is due again for the rest of
// StreamAfter, if any; at StreamAfter it starts the writer, due to open a
// stream.
func (r *reply) dueFired(slot int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.inline || !r.dueSet || r.dueSlot != slot {
		return // the handler returned meanwhile
	}
	if r.watchLocked() {
		// That was the watch's time; StreamAfter's may still come.
		if r.dueAfter <= 0 {
			return
		}
		if rest := r.dueAfter - watchAfter; rest > 0 {
			r.wheel.rearm(slot, r, rest)
			return
		}
	}
	r.spawnLocked(true)
}

// spawnLocked starts the writer, once, while a handler runs inline. That
// only starts a goroutine, so it is done under the lock: settleInline then
// sees whatever it set up.
func (r *reply) spawnLocked(due bool) {
	if !r.inline || r.spawned || r.w == nil {
		return
	}
	r.spawned = true
	// The handler still runs here, and the writer cannot cancel it.
	r.watchLocked()
	r.w.spawn(due)
}

// settleInline ends the inline phase once the handler has returned: it
// reports whether a writer was spawned (then it writes the response), and
// otherwise makes sure none is.
func (r *reply) settleInline() (spawned bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inline = false
	r.w = nil
	r.leaveWheelLocked()
	return r.spawned
}

// Abandon implements transport.Abandoner: the request will get no answer,
// so the reply is complete as it stands.
func (r *reply) Abandon() {
	r.mu.Lock()
	r.final = true
	if r.store != nil {
		r.store.Close()
	}
	r.spawnLocked(false)
	r.pokeLocked()
	r.mu.Unlock()
}

// pokeLocked wakes a waiting writer; without a wake channel nobody waits
// yet, and wakeup sees what arrived.
func (r *reply) pokeLocked() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// wakeup returns the channel a writer waits on for what Send and Abandon
// bring, made on first use. Whatever came since the last take, when no
// channel was there to poke, is a wake-up already.
func (r *reply) wakeup() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wake == nil {
		r.wake = make(chan struct{}, 1)
		if len(r.pending) > 0 || r.final || r.overflow {
			r.wake <- struct{}{}
		}
	}
	return r.wake
}

// take returns the messages waiting, whether the answer is among what was
// taken so far, and whether the writer fell too far behind.
func (r *reply) take() (msgs [][]byte, final, overflow bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msgs, r.pending, r.bytes = r.pending, nil, 0
	return msgs, r.final, r.overflow
}

// leave drops what is waiting; later messages are dropped too unless the
// reply is resumable, in which case its store keeps them. The writer is
// done with what it took, so the answer's buffer goes back.
func (r *reply) leave() {
	r.mu.Lock()
	r.gone, r.pending, r.bytes = true, nil, 0
	if p := r.owned; p != nil {
		r.owned, r.first[0] = nil, nil
		if cap(*p) <= maxKept {
			kept.Put(p)
		}
	}
	r.mu.Unlock()
}

// resumable moves the reply into store: first a priming event (when
// priming), then the messages already taken, then those waiting. It
// returns the id to follow the store from.
func (r *reply) resumable(store *sse.Store, priming bool, taken [][]byte) (start string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if priming {
		start = store.Append(nil)
	}
	for _, m := range taken {
		store.Append(m)
	}
	for _, m := range r.pending {
		store.Append(m)
	}
	if r.final {
		store.Close()
	}
	r.pending, r.bytes, r.store = nil, 0, store
	return start
}

// Kinds of outbound message, told apart by the envelope encoder's fixed
// member order without decoding the (possibly large) result.
type msgKind uint8

const (
	kindNotification msgKind = iota + 1
	kindRequest
	kindResult
	kindError
	kindBatch
)

const envelopeHead = `{"jsonrpc":"2.0",`

func classify(msg []byte) msgKind {
	if len(msg) > 0 && msg[0] == '[' {
		return kindBatch
	}
	if rest, ok := bytes.CutPrefix(msg, []byte(envelopeHead)); ok {
		if bytes.HasPrefix(rest, []byte(`"method":`)) {
			return kindNotification
		}
		if after, ok := bytes.CutPrefix(rest, []byte(`"id":`)); ok {
			if k := kindAfterID(after); k != 0 {
				return k
			}
		}
	}
	m, err := jsonrpc.Decode(msg, jsonrpc.Limits{})
	switch {
	case err != nil:
		return kindError
	case m.Kind == jsonrpc.KindNotification:
		return kindNotification
	case m.Kind == jsonrpc.KindRequest:
		return kindRequest
	case m.Error != nil:
		return kindError
	}
	return kindResult
}

// kindAfterID skips an id (number, null or string) and reads the member
// that follows it; 0 means the form was not recognised.
func kindAfterID(b []byte) msgKind {
	i := 0
	if len(b) > 0 && b[0] == '"' {
		for i = 1; i < len(b) && b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		i++
	} else {
		for i < len(b) && b[i] != ',' {
			i++
		}
	}
	if i > len(b) {
		return 0
	}
	switch rest := b[i:]; {
	case bytes.HasPrefix(rest, []byte(`,"result":`)):
		return kindResult
	case bytes.HasPrefix(rest, []byte(`,"error":`)):
		return kindError
	case bytes.HasPrefix(rest, []byte(`,"method":`)):
		return kindRequest
	}
	return 0
}

// isFinal reports whether msg answers the request (or the batch).
func isFinal(msg []byte) bool {
	k := classify(msg)
	return k == kindResult || k == kindError || k == kindBatch
}
