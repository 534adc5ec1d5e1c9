package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport"
)

// The reading side of a Serve. One goroutine at a time holds the reading
// role: it reads a line, hands it to the session and, for a request, runs
// the handler itself (the reply it gives is a transport.Inliner), then
// reads on. Its answers are held while more input is buffered and written
// together before it next reads, so a burst of pipelined requests costs one
// write and no goroutine switch per call.
//
// A handler that runs for longer than the inline budget, or says it is
// about to wait (transport.Detacher), loses the role: a parked spare, or a
// new goroutine, reads on while the old one finishes its call and then
// parks as a spare. So a slow call delays the lines behind it by at most
// the budget, and many calls are in flight at once as before.

// Reader phases. A reader changes its own phase except for the one
// transition others make: phaseRunning to phaseRetired (takeover).
const (
	phaseIdle       uint32 = iota // reading, or about to
	phaseDelivering               // handling a line it read
	phaseRunning                  // running a handler inline: may be taken over
	phaseRetired                  // lost the role while running a handler
)

// maxBurst bounds how many lines a reader handles between flushes: while
// input keeps coming, its held answers still wake the writer that often.
// (The writer then takes whatever is queued, so one write may hold more.)
const maxBurst = 64

// maxSpares bounds the goroutines parked to take over reading; one finding
// the spares full exits instead.
const maxSpares = 64

// errStopped ends the reading after stop.
var errStopped = errors.New("stdio: stopped")

type loop struct {
	ctx     context.Context
	lines   *LineReader
	session transport.Session
	w       *writer
	log     *slog.Logger
	tooLong []byte // the answer to an oversize line
	budget  time.Duration
	// done receives the one error that ends the reading role (io.EOF at
	// end of input, a read error, errStopped).
	done chan error

	stopped atomic.Bool
	quit    chan struct{} // closed by stop: spares exit
	// current is the reader holding the role; the budget timer looks at it.
	current atomic.Pointer[reader]
	// budgetT checks on the current reader's call once a budget. It is
	// armed by the first call to start after it last found none running,
	// then re-arms itself for as long as calls keep running: resetting a
	// timer for every call cost more than the rest of the stdio side of a
	// call. A call it finds running at two ticks in a row has run for a
	// budget at least, and loses the role: after one to two budgets, with
	// no clock read per call (reading one was 1% of a small call).
	budgetT *time.Timer
	armed   atomic.Bool // budgetT is set
	// seen and seenRun are the call the last tick found running (its
	// reader and reader.runs), or nil; only checkBudget uses them.
	seen    *reader
	seenRun uint64
	// wake passes the role to a parked spare.
	wake   chan struct{}
	spares atomic.Int32

	// flush writes the answers held for the lines read: w.flush, or for a
	// Pump's reader, on the host's thread, w.flushHost.
	flush func()
	// pumped is the one reader of a Serve read through a Pump (nil
	// otherwise): it is never taken over, and pumpDone (the Pump's lock
	// guards it) says its input has ended.
	pumped   *reader
	pumpDone bool
}

func newLoop(ctx context.Context, in io.Reader, w *writer, o *Options) *loop {
	l := &loop{
		flush:  w.flush,
		ctx:    ctx,
		lines:  NewLineReader(in, o.MaxLineBytes),
		w:      w,
		log:    o.Logger,
		budget: o.InlineBudget,
		tooLong: jsonrpc.AppendError(nil, jsonrpc.NullID, jsonrpc.Errorf(jsonrpc.KindTransport,
			jsonrpc.CodeInvalidRequest, "message exceeds max_line_bytes (%d)", o.MaxLineBytes)),
		done: make(chan error, 1),
		quit: make(chan struct{}),
		wake: make(chan struct{}),
	}
	if o.Pump != nil {
		l.pumped = &reader{l: l}
		l.flush = w.flushHost
		l.budget = min(l.budget, 0) // no takeover: the host's thread is the one reader
	}
	l.lines.beforeRead = l.flush
	if l.budget > 0 {
		l.budgetT = time.AfterFunc(time.Hour, l.checkBudget)
		l.budgetT.Stop()
	}
	return l
}

// start gives the role to a first reader.
func (l *loop) start() { go l.serve(&reader{l: l}) }

// stop ends the reading: no line is handed to the session after it, a
// reader running a handler gives up the role at once, and spares exit.
func (l *loop) stop() {
	l.stopped.Store(true)
	close(l.quit)
	if l.budgetT != nil {
		l.budgetT.Stop()
	}
	l.takeover(l.current.Load())
}

// serve is one reader goroutine: it reads while it holds the role, then
// parks until it is given the role again.
func (l *loop) serve(r *reader) {
	for {
		l.current.Store(r)
		if err := l.read(r); err != nil {
			l.w.flush() // what it held
			l.done <- err
			return
		}
		// Retired: the call it ran is over.
		if !l.park() {
			return
		}
		r.phase.Store(phaseIdle)
	}
}

// read reads and handles lines until the input ends (the error) or the
// reader is taken over (nil).
func (l *loop) read(r *reader) error {
	var sink transport.Sink = r
	switch {
	case l.budget < 0:
		sink = l.w // every call on the executor, answered when ready
	case l.pumped != nil:
		sink = hostReader{r}
	}
	for burst := 0; ; burst++ {
		if burst == pumpBurst && l.pumped != nil {
			return errPumpMore
		}
		if burst == maxBurst {
			l.flush()
			burst = 0
		}
		if l.stopped.Load() {
			return errStopped
		}
		line, tooLong, err := l.lines.Next()
		l.w.holding.Store(true) // it flushes before the next read
		if tooLong {
			l.log.Warn("stdio: input line too long, discarded", "max_line_bytes", l.lines.max)
			if err := l.w.send(l.tooLong, true); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) || err == errWouldBlock || err == errPumpMore {
				return err
			}
			return fmt.Errorf("stdio: read: %w", err)
		}
		if l.stopped.Load() {
			return errStopped
		}
		r.phase.Store(phaseDelivering)
		// The session owns the frame; the reader's buffer is reused.
		l.session.Deliver(l.ctx, bytes.Clone(line), sink)
		if !r.phase.CompareAndSwap(phaseDelivering, phaseIdle) {
			// Taken over while it ran the handler; what it sent is held
			// until the new reader flushes, which may be a while.
			l.flush()
			return nil
		}
	}
}

// takeover moves the role from r, if r is running a handler, to a spare or
// a new goroutine; after stop it ends the role instead.
func (l *loop) takeover(r *reader) {
	if r == nil || l.pumped != nil || !r.phase.CompareAndSwap(phaseRunning, phaseRetired) {
		return
	}
	if l.stopped.Load() {
		l.done <- errStopped
		return
	}
	select {
	case l.wake <- struct{}{}:
	default:
		go l.serve(&reader{l: l})
	}
}

// checkBudget is budgetT's function: it takes the role from a reader whose
// call it also found running at its last tick, and otherwise notes the
// running call and ticks again a budget later, or disarms when none runs.
func (l *loop) checkBudget() {
	for {
		if r := l.current.Load(); r != nil && r.phase.Load() == phaseRunning {
			// runs was counted before the phase became phaseRunning.
			if run := r.runs.Load(); r != l.seen || run != l.seenRun {
				l.seen, l.seenRun = r, run
				l.budgetT.Reset(l.budget)
				return
			}
			l.takeover(r)
		}
		l.seen = nil
		l.armed.Store(false)
		// A call that started meanwhile may have seen the timer armed.
		if r := l.current.Load(); r == nil || r.phase.Load() != phaseRunning || !l.armed.CompareAndSwap(false, true) {
			return
		}
	}
}

// park waits as a spare until given the role (true), or until stop or
// the spares being full send it away (false).
func (l *loop) park() bool {
	if l.spares.Add(1) > maxSpares {
		l.spares.Add(-1)
		return false
	}
	defer l.spares.Add(-1)
	select {
	case <-l.wake:
		return true
	case <-l.quit:
		return false
	}
}

// reader is one reader goroutine's reply sink, given with every line it
// hands to the session.
type reader struct {
	l     *loop
	phase atomic.Uint32
	runs  atomic.Uint64 // inline calls it has started, for checkBudget
}

// Send implements transport.Sink. A message sent while the reader handles
// a line (its own answer, or a deferred one from another thread) waits for
// the flush before the next read; any other is written at once.
func (r *reader) Send(msg []byte) error {
	return r.l.w.send(msg, r.phase.Load() == phaseDelivering)
}

// CopiesMessages implements transport.Copier: the writer copies.
func (*reader) CopiesMessages() {}

// TakesLateAnswers implements transport.Deferrable: the writer takes
// messages from any thread, and its held ones always reach a flush.
func (*reader) TakesLateAnswers() {}

// Inline implements transport.Inliner: the budget runs while the handler
// does, and what is sent meanwhile is not held for the reader, which is
// busy.
func (r *reader) Inline(running bool) {
	l := r.l
	l.w.holding.Store(!running)
	if !running {
		r.phase.CompareAndSwap(phaseRunning, phaseDelivering)
		return
	}
	if l.budgetT == nil { // no budget: nothing will take the role over
		r.phase.CompareAndSwap(phaseDelivering, phaseRunning)
		return
	}
	r.runs.Add(1)
	if r.phase.CompareAndSwap(phaseDelivering, phaseRunning) && !l.armed.Load() && l.armed.CompareAndSwap(false, true) {
		l.budgetT.Reset(l.budget)
	}
}

// Detach implements transport.Detacher.
func (r *reader) Detach() { r.l.takeover(r) }
