package stdio

import "sync/atomic"

// Batch gathers the messages a host sends in one go into one write: a Node
// host answering, on its one thread, the calls one wake-up of its event loop
// brought. Between Begin and End, what is sent (from any goroutine) is
// queued without waking the writer goroutine; End writes the queue at once
// from the caller's thread, with a write that does not wait for a full pipe
// (the writer goroutine takes what is left). Without it every batch cost
// the writer goroutine a wake-up, and its first answer a write of its own.
//
// Begin and End nest and are safe for concurrent use; each End must follow
// a Begin. A Batch serves the Serve it is given to (Options.Batch) while
// that runs, and does nothing otherwise. The queue stays bounded: a batch
// that outgrows it is written as it goes.
type Batch struct {
	open atomic.Int32
	w    atomic.Pointer[writer]
}

// Begin starts holding what is sent.
func (b *Batch) Begin() { b.open.Add(1) }

// End ends the batch Begin started; the last one open writes what was held.
func (b *Batch) End() {
	if b.open.Add(-1) != 0 {
		return
	}
	if w := b.w.Load(); w != nil {
		w.flushBatch()
	}
}

// holding reports whether a batch is open.
func (b *Batch) holding() bool { return b != nil && b.open.Load() > 0 }
