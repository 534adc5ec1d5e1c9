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
	entries []dueEntry // r nil: free
	free    []int
	n       int    // entries in use
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
	e := dueEntry{r: r, at: w.ticksFor(d)}
	var slot int
	if n := len(w.free); n > 0 {
		slot = w.free[n-1]
		w.free = w.free[:n-1]
		w.entries[slot] = e
	} else {
		slot = len(w.entries)
		w.entries = append(w.entries, e)
	}
	w.n++
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
	if w.entries[slot].r == r {
		w.entries[slot].at = w.ticksFor(d)
	}
	w.mu.Unlock()
}

// remove unregisters r from slot.
func (w *dueWheel) remove(slot int, r *reply) {
	w.mu.Lock()
	if w.entries[slot].r == r {
		w.entries[slot] = dueEntry{}
		w.free = append(w.free, slot)
		w.n--
	}
	w.mu.Unlock()
}

// fire is the timer's tick: the replies now due are told (dueFired),
// outside the lock, and the timer ticks on while any is registered.
func (w *dueWheel) fire() {
	var due []dueEntry
	var slots []int
	w.mu.Lock()
	w.tick++
	for i, e := range w.entries {
		if e.r != nil && e.at <= w.tick {
			due = append(due, e)
			slots = append(slots, i)
			w.entries[i].at = never
		}
	}
	if w.n > 0 {
		w.t.Reset(w.period)
	} else {
		w.ticking = false
	}
	w.mu.Unlock()
	for i, e := range due {
		e.r.dueFired(slots[i])
	}
}
