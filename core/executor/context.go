package executor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// jobContext is a job's context. It is cancelable, reports the executor's
// deadline (which the executor's sweep enforces) and leads back to its job
// (HoldJob, Extend, Cancel).
//
// The cancelable context that does the work, a context.WithCancelCause of
// the parent, is made only when something first needs it: Done, Cause (by
// way of Value), a context derived from this one, or the parent having
// ended. Most small jobs finish without anyone asking, and making it and
// cancelling it cost two allocations and ~6% of a small call's CPU.
// An end that comes first is kept as the job's cause, and a context made
// after it is made already cancelled with that cause, so every observer
// sees what an eagerly made context would have shown it.
type jobContext struct {
	parent context.Context
	// deadline is the executor's deadline, an instant, 0 without one;
	// atomic because Extend may move it while the job runs.
	deadline atomic.Int64
	j        *job

	mu    sync.Mutex
	ctx   context.Context // the cancelable context, once made
	stop  context.CancelCauseFunc
	cause error // why the job ended, while ctx is not made
}

// cancelCtxKey is the key with which the context package finds a
// context's cancelable ancestor (context.Cause, and each context derived
// from ours, which registers with that ancestor). It is unexported there;
// a context that records the keys it is asked for learns it from
// context.Cause. Were it ever not found, every Value makes the context.
var cancelCtxKey = func() any {
	spy := &keySpy{Context: context.Background()}
	_ = context.Cause(spy)
	return spy.key
}()

// keySpy is an ended context that records the last key it was asked for.
type keySpy struct {
	context.Context
	key any
}

func (*keySpy) Err() error { return context.Canceled }

func (s *keySpy) Value(key any) any {
	s.key = key
	return nil
}

func (c *jobContext) Deadline() (time.Time, bool) {
	var own time.Time
	if n := c.deadline.Load(); n != 0 {
		own = c.j.e.time(instant(n))
	}
	if d, ok := c.parent.Deadline(); ok && (own.IsZero() || d.Before(own)) {
		return d, true
	}
	return own, !own.IsZero()
}

func (c *jobContext) Done() <-chan struct{} { return c.cancelable().Done() }

// Err reports a timed-out job as context.DeadlineExceeded, like a context
// with a deadline would.
func (c *jobContext) Err() error {
	c.mu.Lock()
	ctx, cause := c.ctx, c.cause
	c.mu.Unlock()
	switch {
	case ctx != nil:
		err := ctx.Err()
		if err != nil && context.Cause(ctx) == ErrTimeout {
			return context.DeadlineExceeded
		}
		return err
	case cause == ErrTimeout:
		return context.DeadlineExceeded
	case cause != nil:
		return context.Canceled
	case c.parent.Err() == nil:
		return nil
	}
	// The parent has ended: so has the job, with the parent's cause.
	c.cancelable()
	return c.Err()
}

func (c *jobContext) Value(key any) any {
	if key == cancelCtxKey || cancelCtxKey == nil {
		return c.cancelable().Value(key)
	}
	return c.parent.Value(key)
}

// cancelable returns the job's cancelable context, made on first need.
func (c *jobContext) cancelable() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		c.makeLocked()
	}
	return c.ctx
}

// makeLocked makes the cancelable context: a child of the parent, or,
// for a job that has ended already, one cancelled with its cause (a
// parent that ended since is no news to it).
func (c *jobContext) makeLocked() {
	parent := c.parent
	if c.cause != nil {
		parent = context.WithoutCancel(parent)
	}
	c.ctx, c.stop = context.WithCancelCause(parent)
	if c.cause != nil {
		c.stop(c.cause)
		c.cause = nil
	}
}

// cancel ends the job's context with cause (context.Canceled if nil);
// only the first end counts. A parent that ended before it is the cause.
func (c *jobContext) cancel(cause error) {
	if cause == nil {
		cause = context.Canceled
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		if c.cause != nil {
			return
		}
		if c.parent.Err() == nil {
			c.cause = cause
			return
		}
		c.makeLocked()
	}
	// Under mu, so that Err never sees the context made but not yet
	// cancelled; cancelling calls nothing of ours.
	c.stop(cause)
}
