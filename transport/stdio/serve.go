package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport"
)

// info is what every stdio session is told about its connection. A line
// can hold a JSON array, so batches are possible; whether they are
// accepted is the dialect's business.
var info = transport.Info{Name: "stdio", Batches: true}

// readDeadliner is a reader whose blocked Read can be interrupted.
type readDeadliner interface {
	SetReadDeadline(time.Time) error
}

// Serve runs one session of srv over in and out until in ends, ctx is
// cancelled or writing fails.
//
// Each input line is handed to the session as it arrives, so many calls
// are in flight at once and answers go out in the order they are ready.
// At the end the session is closed, which cancels the calls still running,
// and the answers already queued are written. End of input and
// cancellation return nil; a read error or a failed write (including one
// blocked for WriteTimeout) returns that error.
//
// When ctx is cancelled while a Read is blocked, Serve interrupts it if in
// has SetReadDeadline (and clears the deadline afterwards); otherwise it
// returns without waiting, and whatever that Read still returns is dropped.
// Serve never closes in or out.
func Serve(ctx context.Context, srv transport.Server, in io.Reader, out io.Writer, opts *Options) error {
	o := opts.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	w := newWriter(out, o.WriteTimeout)
	defer w.release()
	l := &loop{
		lines: NewLineReader(in, o.MaxLineBytes),
		sink:  w,
		log:   o.Logger,
		tooLong: jsonrpc.AppendError(nil, jsonrpc.NullID, jsonrpc.Errorf(jsonrpc.KindTransport,
			jsonrpc.CodeInvalidRequest, "message exceeds max_line_bytes (%d)", o.MaxLineBytes)),
		done: make(chan error, 1),
	}
	l.session = srv.NewSession(info, w)
	go func() { l.done <- l.run(ctx) }()

	var err error
	readerDone := false
	select {
	case err = <-l.done:
		readerDone = true
		if errors.Is(err, io.EOF) {
			err = nil
		}
	case <-ctx.Done():
	case <-w.failed:
		err = w.result()
	}

	l.stop()
	if !readerDone {
		interruptRead(in, l.done)
	}
	// Close cancels the calls in flight; they may still answer while it
	// runs, and the writer accepts those answers until it is closed below.
	l.session.Close()
	w.close()
	<-w.finished
	if werr := w.result(); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		o.Logger.Error("stdio transport stopped", "err", err)
	}
	return err
}

// interruptRead unblocks the reading goroutine through a read deadline and
// waits for it to end; a reader without deadlines is left to finish alone.
func interruptRead(in io.Reader, done <-chan error) {
	d, ok := in.(readDeadliner)
	if !ok || d.SetReadDeadline(time.Now()) != nil {
		return
	}
	<-done
	_ = d.SetReadDeadline(time.Time{})
}

// loop is the reading side of a Serve.
type loop struct {
	lines   *LineReader
	session transport.Session
	sink    transport.Sink
	log     *slog.Logger
	tooLong []byte // the answer to an oversize line
	done    chan error

	// mu orders Deliver before Close: once stop has run, no line is
	// delivered, so the session never sees a frame after Close.
	mu      sync.Mutex
	stopped bool
}

// errStopped ends the loop after stop.
var errStopped = errors.New("stdio: stopped")

func (l *loop) run(ctx context.Context) error {
	for {
		line, tooLong, err := l.lines.Next()
		if tooLong {
			l.log.Warn("stdio: input line too long, discarded", "max_line_bytes", l.lines.max)
			if err := l.sink.Send(l.tooLong); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("stdio: read: %w", err)
		}
		// The session owns the frame; the reader's buffer is reused.
		if !l.deliver(ctx, bytes.Clone(line)) {
			return errStopped
		}
	}
}

func (l *loop) deliver(ctx context.Context, frame []byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	l.session.Deliver(ctx, frame, l.sink)
	return true
}

func (l *loop) stop() {
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
}
