package streamhttp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDuePeriod(t *testing.T) {
	for _, tc := range []struct {
		streamAfter, want time.Duration
	}{
		{-1, 5 * time.Millisecond}, // no stream switch: watchAfter's half
		{time.Second, 5 * time.Millisecond},
		{time.Millisecond, 500 * time.Microsecond},
		{10 * time.Microsecond, 100 * time.Microsecond},
	} {
		assert.Equal(t, tc.want, duePeriod(tc.streamAfter), "StreamAfter %v", tc.streamAfter)
	}
}

// The wheel tells a reply no earlier than it is due, at the first tick
// after; rearm makes it due again, remove never, and a freed slot is
// reused. The period is long, so only the test's own fire calls tick.
func TestDueWheel(t *testing.T) {
	w := &dueWheel{period: time.Hour}
	fired := func(slot int) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.entries.items[slot].at == never
	}
	a, b := &reply{}, &reply{}
	sa, sb := w.add(a, time.Hour), w.add(b, 3*time.Hour)
	t.Cleanup(func() { w.t.Stop() })

	w.fire()
	assert.False(t, fired(sa), "registered during tick 0: a full period has not passed")
	w.fire()
	assert.True(t, fired(sa))
	assert.False(t, fired(sb))

	w.rearm(sa, a, time.Hour)
	w.remove(sb, b)
	w.fire()
	assert.False(t, fired(sa))
	w.fire()
	assert.True(t, fired(sa), "due again")
	assert.Nil(t, w.entries.items[sb].r, "removed")
	assert.Equal(t, sb, w.add(b, time.Hour), "the freed slot")

	w.remove(sa, a)
	w.remove(sb, b)
	w.remove(sb, b) // twice: no effect
	assert.Equal(t, 0, w.entries.len())
	w.fire()
	assert.False(t, w.ticking, "nothing registered: the timer stops")
}
