package sse

import (
	"context"
	"net/http"
	"time"
)

var keepAlive = AppendComment(nil, "keepalive")

// maxKeptBuffer is the largest event buffer a stream keeps between writes.
const maxKeptBuffer = 64 << 10

// pump writes queued messages as "message" events, all that are waiting in
// one write, and keep-alive comments when the stream is idle.
func (s *Server) pump(ctx context.Context, ss *session, w *writer) error {
	var tick <-chan time.Time
	if s.o.KeepAlive > 0 {
		t := time.NewTicker(s.o.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	var buf []byte
	for {
		msgs, ended, reason := ss.q.take()
		if reason != nil {
			return reason
		}
		if len(msgs) > 0 {
			buf = buf[:0]
			for _, m := range msgs {
				buf = AppendEvent(buf, "", "message", m)
			}
			if err := w.write(buf); err != nil {
				return err
			}
			if cap(buf) > maxKeptBuffer {
				buf = nil
			}
		}
		if ended {
			return nil
		}
		select {
		case <-ss.q.wake:
		case <-ctx.Done():
			return nil
		case <-tick:
			if err := w.write(keepAlive); err != nil {
				return err
			}
		}
	}
}

// writer bounds every write to one Output by a timeout: through the
// Output's write deadline when it has one, and by a watchdog that ends the
// session when a write is stuck longer (an Output without deadlines may
// stay blocked, but the session, its calls and its slot are freed).
type writer struct {
	out      Output
	dl       WriteDeadliner
	timeout  time.Duration
	watchdog *time.Timer
}

func newWriter(out Output, timeout time.Duration, stuck func()) *writer {
	w := &writer{out: out}
	if timeout > 0 {
		w.timeout = timeout
		w.dl, _ = out.(WriteDeadliner)
		w.watchdog = time.AfterFunc(timeout, stuck)
		w.watchdog.Stop()
	}
	return w
}

// start sends the status, the SSE headers and the first event.
func (w *writer) start(first []byte) error {
	return w.bounded(func() error {
		if err := w.out.Start(http.StatusOK, Header()); err != nil {
			return err
		}
		return w.writeFlush(first)
	})
}

func (w *writer) write(chunk []byte) error {
	return w.bounded(func() error { return w.writeFlush(chunk) })
}

func (w *writer) writeFlush(chunk []byte) error {
	if err := w.out.Write(chunk); err != nil {
		return err
	}
	return w.out.Flush()
}

func (w *writer) bounded(f func() error) error {
	if w.timeout <= 0 {
		return f()
	}
	if w.dl != nil {
		// An Output that cannot set deadlines still has the watchdog.
		_ = w.dl.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	w.watchdog.Reset(w.timeout)
	defer w.watchdog.Stop()
	return f()
}

// stop disarms the watchdog and clears the deadline, which would otherwise
// outlive the stream on a connection the host reuses.
func (w *writer) stop() {
	if w.watchdog != nil {
		w.watchdog.Stop()
	}
	if w.dl != nil {
		_ = w.dl.SetWriteDeadline(time.Time{})
	}
}
