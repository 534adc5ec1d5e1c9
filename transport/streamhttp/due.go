package streamhttp

import (
	"sync"
	"time"
)

// dueWheel times an Engine's handlers running inline: when one has run for
// watchAfter (its disconnect watch is due) or for StreamAfter (its reply
// becomes a stream). One timer serves them all, ticking every period while
// any is registered. A timer per request, set and stopped around each
// handler, cost ~5% of a small request's CPU at C=64 in the runtime's timer
// locks.
type dueWheel struct {
	period time.Duration

	mu      sync.Mutex
	entries slots[dueEntry]
	tick    uint64 // ticks so far
	t       *time.Timer
	ticking bool
}

type dueEntry struct {
	r  *reply
	at uint64 // the tick at which r is due; never once it fired
}

const never = ^uint64(0)

// duePeriod is the wheel's tick for StreamAfter: half the shorter of it and
// watchAfter, within 100 µs and 5 ms, so a reply is due at most that late.
func duePeriod(streamAfter time.Duration) time.Duration {
	d := watchAfter
	if streamAfter > 0 {
		d = min(d, streamAfter)
	}
	return min(max(d/2, 100*time.Microsecond), 5*time.Millisecond)
}

// ticksFor is the tick at which something after d from now is due: at
// least d later, whenever in the current tick it is registered.
func (w *dueWheel) ticksFor(d time.Duration) uint64 {
	return w.tick + uint64((d+w.period-1)/w.period) + 1
}

// add registers r, due after d, and returns its slot.
func (w *dueWheel) add(r *reply, d time.Duration) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	slot := w.entries.put(dueEntry{r: r, at: w.ticksFor(d)})
	if !w.ticking {
		w.ticking = true
		if w.t == nil {
			w.t = time.AfterFunc(w.period, w.fire)
		} else {
			w.t.Reset(w.period)
		}
	}
	return slot
}

// rearm makes r, in slot, due again after d.
func (w *dueWheel) rearm(slot int, r *reply, d time.Duration) {
	w.mu.Lock()
	if e := &w.entries.items[slot]; e.r == r {
		e.at = w.ticksFor(d)
	}
	w.mu.Unlock()
}

// remove unregisters r from slot.
func (w *dueWheel) remove(slot int, r *reply) {
	w.mu.Lock()
	if w.entries.items[slot].r == r {
		w.entries.release(slot)
	}
	w.mu.Unlock()
}

// fire is the timer's tick: the replies now due are told (dueFired),
// outside the lock, and the timer ticks on while any is registered.
func (w *dueWheel) fire() {
	var due []dueEntry
	var dueSlots []int
	w.mu.Lock()
	w.tick++
	for i := range w.entries.items {
		if e := &w.entries.items[i]; e.r != nil && e.at <= w.tick {
			due = append(due, *e)
			dueSlots = append(dueSlots, i)
			e.at = never
		}
	}
	if w.entries.len() > 0 {
		w.t.Reset(w.period)
	} else {
		w.ticking = false
	}
	w.mu.Unlock()
	for i, e := range due {
		e.r.dueFired(dueSlots[i])
	}
}
