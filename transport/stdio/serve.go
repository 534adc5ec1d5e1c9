package stdio

import (
	"context"
	"errors"
	"io"
	"time"

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
	if o.Pump != nil {
		defer o.Pump.detach() // after everything below: no Read outlives Serve
		if h, ok := in.(hostInput); !ok || !h.readsWithoutWaiting() {
			return errors.New("stdio: a Pump reads the input of ServeFD")
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	w := newWriter(out, o.WriteTimeout)
	defer w.release()
	if o.Batch != nil {
		w.batch = o.Batch
		o.Batch.w.Store(w)
		defer o.Batch.w.CompareAndSwap(w, nil)
	}
	// Calls get ctx's values but not its cancellation: the session's Close
	// below cancels every call in flight, so tying each call to ctx as
	// well only cost a registration per call (and a watch on it).
	l := newLoop(context.WithoutCancel(ctx), in, w, &o)
	l.session = srv.NewSession(info, w)
	if o.Pump != nil {
		o.Pump.attach(l)
	} else {
		l.start()
	}

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
	// Close cancels the calls in flight, which also frees a reader running
	// one inline; they may still answer while it runs, and the writer
	// accepts those answers until it is closed below.
	l.session.Close()
	if !readerDone && o.Pump == nil {
		interruptRead(in, l.done)
	}
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
