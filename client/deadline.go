package client

import (
	"context"
	"sync"
	"time"
)

// deadline bounds each round of one call (Options.Timeout, or WithTimeout)
// and, with Options.ResetTimeoutOnProgress, gives the running round its
// whole timeout again on each progress notification of the call.
type deadline struct {
	timeout time.Duration
	mu      sync.Mutex
	timer   *time.Timer // the running round's, nil between rounds
}

type deadlineKey struct{}

// withDeadline returns ctx carrying d for the rounds of its call.
func withDeadline(ctx context.Context, d *deadline) context.Context {
	return context.WithValue(ctx, deadlineKey{}, d)
}

// round bounds one request of a call: by the call's deadline, when ctx
// carries one, else by timeout.
func round(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	d, _ := ctx.Value(deadlineKey{}).(*deadline)
	if d == nil {
		return context.WithTimeout(ctx, timeout)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	d.mu.Lock()
	d.timer = time.AfterFunc(d.timeout, func() { cancel(context.DeadlineExceeded) })
	d.mu.Unlock()
	return ctx, func() {
		d.mu.Lock()
		d.timer.Stop()
		d.timer = nil
		d.mu.Unlock()
		cancel(context.Canceled)
	}
}

// touch restarts the running round's timeout.
func (d *deadline) touch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Reset(d.timeout)
	}
}
