package stdio

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// errWouldBlock is what a pumped reader's Read returns when no input is
// ready: the Pump returns to its host, which calls again when there is.
var errWouldBlock = errors.New("stdio: no input ready")

// errPumpMore ends a Read after pumpBurst lines (see PumpMore).
var errPumpMore = errors.New("stdio: a burst was read")

// pumpBurst is how many lines one Read handles at most. Measured with a
// pipelining client (16 calls in flight) and Node's async handlers: a Read
// that handled everything ready answered it all in one write at its end,
// and the two processes took turns; ending each 8 lines let the client work
// on the first answers while the server read on: +15-30% calls/s (4 and
// 12 did about as well as 8, no limit worst).
const pumpBurst = 8

// Pump lets a host's own thread do the reading of a Serve, for a host that
// waits for input in its event loop anyway (Node's libuv loop polls the
// descriptor). With Options.Pump set, Serve starts no reading goroutine:
// each Read reads the lines that are ready without waiting, hands them to
// the session and runs their handlers on the calling thread, writes the
// answers held for them, and returns. A host whose handlers run on that
// thread (its one JS thread) then answers a burst of calls with no thread
// woken on either side: the wake-up of Go's reader and the hand-off to
// the host's thread cost more than the rest of a small call.
//
// The rest of the transport is unchanged: the framing and its limits, the
// writer goroutine (a flush on the host's thread never waits for a full
// pipe), cancellation and shutdown. What a pumped Serve gives up is the
// inline budget: a handler that is slow on the host's thread delays the
// input behind it, as anything slow on an event loop does.
//
// A Pump serves one ServeFD (Serve fails for any other input).
type Pump struct {
	ready chan struct{} // closed once Serve started, or ended without starting
	once  sync.Once
	mu    sync.Mutex // one Read at a time; Serve's end waits for the last
	l     atomic.Pointer[loop]
}

// NewPump returns a Pump for one Serve.
func NewPump() *Pump { return &Pump{ready: make(chan struct{})} }

// PumpStatus is what a Read leaves the host to do.
type PumpStatus uint8

const (
	// PumpDrained: every line ready was handled; call Read again when the
	// input is next readable.
	PumpDrained PumpStatus = iota
	// PumpMore: Read stopped after a burst of lines, with more input maybe
	// ready, so that the answers given so far can leave first (a Batch the
	// host holds around it should end now); call Read again at once.
	PumpMore
	// PumpEnded: the input has ended, the transport has stopped, or Serve
	// returned: stop calling.
	PumpEnded
)

// Read reads and handles the lines that are ready, up to a burst of 8,
// writes what it held, and says what to do next. It waits for the Serve it
// was given to, which the caller has started, to take it. Once it has
// returned PumpEnded it does nothing. One Read runs at a time; others wait.
func (p *Pump) Read() PumpStatus {
	<-p.ready
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.l.Load(); l != nil {
		return l.pump()
	}
	return PumpEnded
}

// attach is Serve's: l reads through p from now on.
func (p *Pump) attach(l *loop) {
	p.l.Store(l)
	p.open()
}

// detach is Serve's last step: it waits for a Read under way, then ends p.
func (p *Pump) detach() {
	p.open()
	p.mu.Lock()
	p.l.Store(nil)
	p.mu.Unlock()
}

func (p *Pump) open() { p.once.Do(func() { close(p.ready) }) }

// hostInput is the input of a pumped ServeFD, which the host's thread
// reads without waiting: errWouldBlock when nothing is ready. It is kept
// out of Go's poller: there each arrival of input would wake an idle Go
// thread for a read that the host does.
type hostInput interface {
	io.Reader
	readsWithoutWaiting() bool
}

// hostReader is the reply sink of a Pump's reader: the thread delivering
// is the host's, which must not wait for a turn in the executor's queue.
type hostReader struct{ *reader }

// OnHostThread implements transport.HostThread.
func (hostReader) OnHostThread() {}

// pump is the reading role for one Pump.Read, on the caller's thread.
func (l *loop) pump() PumpStatus {
	if l.pumpDone {
		return PumpEnded
	}
	r := l.pumped
	l.current.Store(r)
	err := l.read(r)
	switch err {
	case errWouldBlock:
		return PumpDrained
	case errPumpMore:
		l.flush()
		return PumpMore
	case nil:
		err = errStopped
	}
	l.pumpDone = true
	l.flush()
	l.done <- err
	return PumpEnded
}
