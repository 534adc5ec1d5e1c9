package stdio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	// ErrClosed is returned by a send after the transport has shut down.
	ErrClosed = errors.New("stdio: transport closed")
	// ErrWriteTimeout means a write made no progress for WriteTimeout: the
	// peer stopped reading. It is terminal.
	ErrWriteTimeout = errors.New("stdio: write timed out; the peer stopped reading")
	// errEmpty refuses a message that would be a blank line.
	errEmpty = errors.New("stdio: empty message")
)

// writeChunk is the most one write call is given. A message is always
// encoded whole into the queue, and only the writer goroutine writes, so
// lines never interleave however the bytes are cut. Cutting at a pipe's
// capacity gives each chunk its own deadline, so WriteTimeout measures how
// long the peer made no room at all: one reading a 50 MB result slowly but
// steadily is not mistaken for one that stopped.
const writeChunk = 64 << 10

// deadliner is what a writer needs for the runtime poller to time out a
// blocked write (an *os.File on a non-blocking pipe, a net.Conn).
type deadliner interface {
	SetWriteDeadline(time.Time) error
}

// writer is the transport's one sink. Senders encode their message straight
// into pending under mu; the writer goroutine swaps pending with an empty
// buffer and writes what it took in one call. While a write is under way
// new messages pile up in pending and go out together in the next call, so
// under load one syscall carries many messages, and an idle writer sends a
// lone message at once, with no batching delay.
//
// A flush (the reader's held answers) is written by the flushing goroutine
// itself when no write is under way: waking the writer goroutine for it
// cost a futex wake and a goroutine switch per burst, more than the write.
// Only one goroutine writes at a time (writing), so lines still never
// interleave. It does so only on a writer with deadlines: a write the
// watchdog gives up on may never return, and only the writer goroutine may
// be left stuck in one.
type writer struct {
	out     io.Writer
	timeout time.Duration
	dl      deadliner       // nil: writes are timed by watchdog instead
	raw     syscall.RawConn // for tryWrite; nil when out has no descriptor
	batch   *Batch          // Options.Batch, or nil
	epoch   time.Time       // the origin of last
	watch   *time.Timer     // fires fail(ErrWriteTimeout) when a write hangs

	mu      sync.Mutex
	ready   sync.Cond // pending became non-empty, or closed, or failed
	room    sync.Cond // pending shrank, or closed, or failed
	pending []byte
	spare   []byte
	last    time.Duration // when the last message was sent, after epoch
	writing bool          // a write is under way, outside mu
	closed  bool          // no new messages
	err     error         // terminal write error
	// holding says the reader will flush before it next waits for input:
	// set by the reader as it takes a line, cleared by the flush under mu.
	// A send may be held only while it is set, and decides so under mu, so
	// a held message is always in some flush, whichever goroutine sent it
	// (an answer from a C ABI host's thread arrives while the reader is at
	// any point of its loop).
	holding atomic.Bool

	failed   chan struct{} // closed when err is set
	finished chan struct{} // closed when no more output will be written
	finish   sync.Once
}

func newWriter(out io.Writer, timeout time.Duration) *writer {
	w := &writer{
		out:      out,
		timeout:  timeout,
		failed:   make(chan struct{}),
		finished: make(chan struct{}),
	}
	w.ready.L, w.room.L = &w.mu, &w.mu
	// A writer that accepts deadlines is timed by the poller, which also
	// unblocks the write; anything else (io.Pipe, a regular file, a
	// terminal not in the poller) gets a watchdog that can only give up on
	// the write, not interrupt it.
	if d, ok := out.(deadliner); ok && d.SetWriteDeadline(time.Time{}) == nil {
		w.dl = d
		w.raw = rawConn(out)
		w.epoch = time.Now()
		w.last = -loneGap
	} else {
		w.watch = time.AfterFunc(time.Hour, func() { w.fail(w.timeoutError()) })
		w.watch.Stop()
	}
	go w.run()
	return w
}

// CopiesMessages implements transport.Copier: Send copies msg into the queue.
func (w *writer) CopiesMessages() {}

// Send queues msg as one line. It blocks while the queue is full, and
// fails once the writer has failed or been closed. msg is copied.
func (w *writer) Send(msg []byte) error { return w.send(msg, false) }

// send queues msg; held leaves it for the next flush rather than waking
// the writer, so that the answers to a burst of input go out in one write,
// if the reader is holding (else it is written at once).
func (w *writer) send(msg []byte, held bool) error {
	if len(msg) == 0 {
		return errEmpty
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// A message larger than the whole queue still goes, alone.
	for w.err == nil && !w.closed && len(w.pending) > 0 && len(w.pending)+len(msg) > queueBytes {
		w.ready.Signal() // what is held must go to make room
		w.room.Wait()
	}
	switch {
	case w.err != nil:
		return w.err
	case w.closed:
		return ErrClosed
	}
	alone := len(w.pending) == 0 && !w.writing
	w.pending = AppendLine(w.pending, msg)
	switch {
	case held && w.holding.Load():
	case w.batch.holding(): // its End writes it
	case alone && w.raw != nil && w.lone():
		// Nothing queued, being written or just sent: the sender writes
		// it, with a write that does not wait for a full pipe. Waking the
		// writer goroutine for it cost a thread switch per answer a host
		// sends from its own thread (a third of a call's latency from
		// Node); in a burst, the writer gathers what comes while it wakes
		// into one write instead.
		w.writeNowLocked(w.tryWrite)
	default:
		w.ready.Signal() // nearly free when the writer is not waiting
	}
	return nil
}

// loneGap is how long after the last message a new one counts as lone:
// well under a thread's wake-up here, well over the gap between the
// answers of a burst.
const loneGap = 50 * time.Microsecond

// lone reports whether the last message that could be written at once was
// sent loneGap ago or more, and notes this one's time. mu is held. Asked
// only of such a message, so that held answers cost no clock read.
func (w *writer) lone() bool {
	now := time.Since(w.epoch)
	gap := now - w.last
	w.last = now
	return gap >= loneGap
}

// flush has the held messages written: by the caller, when no write is
// under way; else by the writer, which takes pending when its write ends.
func (w *writer) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holding.Store(false)
	w.flushLocked(w.dl != nil, w.write)
}

// flushHost is flush for a reader on a host's thread (Pump), which must
// not be kept waiting: the write does not wait for a full pipe (the writer
// goroutine takes the rest), and while a Batch is open the held messages
// stay queued for its End, so that they leave with what the host answers
// later in the batch.
func (w *writer) flushHost() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holding.Store(false)
	if !w.batch.holding() {
		w.flushLocked(w.raw != nil, w.tryWrite)
	}
}

// flushBatch writes what a Batch held, from the caller's thread when no
// write is under way (one that is takes it after), with a write that does
// not wait for a full pipe.
func (w *writer) flushBatch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked(w.raw != nil, w.tryWrite)
}

// flushLocked has what is pending written: with write by the caller when
// it may write here (here) and no write is under way, else by the writer
// goroutine (a write under way takes pending when it ends).
func (w *writer) flushLocked(here bool, write func([]byte) (int, error)) {
	switch {
	case len(w.pending) == 0 || w.writing || w.err != nil:
	case w.closed || !here:
		w.ready.Signal()
	default:
		w.writeNowLocked(write)
	}
}

// writeNowLocked writes what is pending on the calling goroutine; what is
// left (sent meanwhile, or what a write that does not wait left), or a
// close that found the write under way, is the writer goroutine's.
func (w *writer) writeNowLocked(write func([]byte) (int, error)) {
	w.writeLocked(write)
	if len(w.pending) > 0 || w.closed {
		w.ready.Signal()
	}
}

// run is the writer goroutine.
func (w *writer) run() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.err == nil {
		if len(w.pending) > 0 && !w.writing {
			w.writeLocked(w.write)
			continue
		}
		if w.closed && !w.writing {
			break // flushed
		}
		w.ready.Wait()
	}
	w.finish.Do(func() { close(w.finished) })
}

// writeLocked writes what is pending with write (w.write, or w.tryWrite,
// which does not wait for a full pipe), with mu released during the write;
// what write leaves goes first in the queue again. mu is held on entry and
// on return, and no other write is under way.
func (w *writer) writeLocked(write func([]byte) (int, error)) {
	batch := w.pending
	w.pending, w.spare = w.spare[:0], nil
	w.writing = true
	w.room.Broadcast()
	w.mu.Unlock()
	n, err := write(batch)
	w.mu.Lock()
	w.writing = false
	switch {
	case err != nil:
		w.failLocked(err)
	case n < len(batch):
		// Sent meanwhile goes after the rest; rare enough to copy.
		w.pending = append(batch[n:len(batch):len(batch)], w.pending...)
	case cap(batch) <= 4*queueBytes: // let a huge one-off buffer go
		w.spare = batch[:0]
	}
}

// write writes b in chunks, each bounded by the timeout: all of it, or
// it fails.
func (w *writer) write(b []byte) (int, error) {
	for done := 0; done < len(b); {
		n := min(len(b)-done, writeChunk)
		if err := w.writeTimed(b[done : done+n]); err != nil {
			return done, err
		}
		done += n
	}
	return len(b), nil
}

func (w *writer) writeTimed(b []byte) error {
	if w.dl != nil {
		if err := w.dl.SetWriteDeadline(time.Now().Add(w.timeout)); err != nil {
			return fmt.Errorf("stdio: setting write deadline: %w", err)
		}
		_, err := w.out.Write(b)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return w.timeoutError()
		}
		return wrapWrite(err)
	}
	w.watch.Reset(w.timeout)
	_, err := w.out.Write(b)
	w.watch.Stop()
	// If the watchdog fired meanwhile, err is already recorded: the write
	// took the whole timeout, which is terminal whatever it returned.
	return wrapWrite(err)
}

// timeoutError is the terminal error of a write that hung for the timeout.
func (w *writer) timeoutError() error {
	return fmt.Errorf("%w (write_timeout %v)", ErrWriteTimeout, w.timeout)
}

func wrapWrite(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("stdio: write: %w", err)
}

// fail records a terminal error and wakes everyone.
func (w *writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failLocked(err)
}

func (w *writer) failLocked(err error) {
	if w.err != nil {
		return
	}
	w.err = err
	w.pending = nil
	close(w.failed)
	w.ready.Broadcast()
	w.room.Broadcast()
	// A write stuck past the watchdog may never return: stop waiting for it.
	w.finish.Do(func() { close(w.finished) })
}

// close stops accepting messages; the writer goroutine writes out what is
// queued and then stops.
func (w *writer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.ready.Broadcast()
	w.room.Broadcast()
}

// result returns the terminal write error, if any.
func (w *writer) result() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// release undoes the deadline set on a caller's writer.
func (w *writer) release() {
	if w.dl != nil {
		_ = w.dl.SetWriteDeadline(time.Time{})
	}
}
