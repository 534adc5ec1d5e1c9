package gcdefault

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unsetGOGC leaves GOGC unset for the test and restores the collector.
func unsetGOGC(t *testing.T) {
	old := debug.SetGCPercent(150)
	t.Cleanup(func() { Set(old) })
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC") // t.Setenv restores it afterwards
}

func TestLibraryPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, floor},
		{1 << 20, floor},
		{knee, floor},
		{2 << 20, 150},
		{2 * knee, Percent},
		{64 << 20, Percent},
	} {
		assert.Equal(t, tc.want, libraryPercent(tc.live), "live %d", tc.live)
	}
}

func TestCommandPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, commandMax},
		{1 << 20, commandMax},
		{commandGoal / 5, commandMax},
		{commandGoal / 4, 300},
		{commandGoal/3 - 1, Percent},
		{commandGoal / 3, Percent},
		{64 << 20, Percent},
	} {
		got := commandPercent(tc.live)
		assert.Equal(t, tc.want, got, "live %d", tc.live)
		if tc.live > 0 && got < commandMax {
			// The goal, live × (1 + GOGC/100), is commandGoal or more.
			assert.GreaterOrEqual(t, tc.live*uint64(100+got)/100, uint64(commandGoal-tc.live/50), "live %d", tc.live)
		}
	}
}

func TestObserve(t *testing.T) {
	s := &scaler{percent: floor, policy: libraryPolicy}
	var now time.Duration
	next := func(live uint64) (int, bool) { // a collection every 2 churn
		now += 2 * churn
		return s.observe(live, now)
	}
	for range rising {
		p, change := next(1 << 20)
		assert.Equal(t, floor, p)
		assert.False(t, change)
	}
	// A large heap raises the setting only once it has lasted rising cycles.
	for range rising - 1 {
		_, change := next(16 << 20)
		assert.False(t, change, "a burst")
	}
	p, change := next(16 << 20)
	assert.True(t, change)
	assert.Equal(t, Percent, p)
	// A small one lowers it at once.
	p, change = next(1 << 20)
	assert.True(t, change)
	assert.Equal(t, floor, p)
	// Moves under step are left alone.
	for range rising {
		next(knee + knee*(step-1)/100)
	}
	assert.Equal(t, floor, s.percent)
}

// The command's setting falls at once when the live heap grows, and rises
// only once it has stayed small; churn does not move it.
func TestObserveCommand(t *testing.T) {
	s := &scaler{percent: Percent, policy: commandPolicy}
	var now time.Duration
	next := func(live uint64) (int, bool) { // a collection every churn/2
		now += churn / 2
		return s.observe(live, now)
	}
	for range rising - 1 {
		_, change := next(1 << 20)
		assert.False(t, change, "not yet rising cycles")
	}
	p, change := next(1 << 20)
	assert.True(t, change)
	assert.Equal(t, commandMax, p)
	p, change = next(32 << 20)
	assert.True(t, change)
	assert.Equal(t, Percent, p, "a large heap lowers it at once")
	for range rising - 1 {
		_, change := next(1 << 20)
		assert.False(t, change)
	}
	p, _ = next(1 << 20)
	assert.Equal(t, commandMax, p)
}

func TestObserveChurn(t *testing.T) {
	s := &scaler{percent: floor, policy: libraryPolicy}
	var now time.Duration
	every := func(apart time.Duration, n int) (p int) {
		for range n {
			now += apart
			p, _ = s.observe(1<<20, now)
		}
		return p
	}
	assert.Equal(t, floor, every(churn+time.Millisecond, 2*rising), "apart enough")
	assert.Equal(t, Percent, every(churn/2, rising), "a small heap that churns")
	// At Percent, collections come further apart; that is no reason to
	// go back to a setting that would make them churn again.
	assert.Equal(t, Percent, every(calm-time.Millisecond, 2*rising))
	assert.Equal(t, floor, every(calm+time.Millisecond, rising), "calm")
}

// settles waits for the collector's setting to become want, collecting
// meanwhile (the scaling runs after collections, on another goroutine),
// calm apart so that it does not see churn.
func settles(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		got := debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the setting stayed %d, want %d", got, want)
		}
		time.Sleep(calm + 5*time.Millisecond)
	}
}

var kept []byte

func TestApplyScaled(t *testing.T) {
	unsetGOGC(t)
	ApplyScaled()
	require.True(t, Scaling())
	settles(t, floor) // this test's own heap is small

	kept = make([]byte, 3*knee) // a live heap of three knees
	settles(t, Percent)
	kept = nil
	settles(t, floor)

	assert.Equal(t, floor, Set(150), "Set returns the setting it replaces")
	assert.False(t, Scaling())
	kept = make([]byte, 3*knee)
	for range 2 * rising {
		runtime.GC()
	}
	kept = nil
	assert.Equal(t, 150, debug.SetGCPercent(150), "Set ends the scaling")
}

func TestApply(t *testing.T) {
	unsetGOGC(t)
	Apply()
	require.True(t, Scaling())
	settles(t, commandMax) // this test's own heap is small

	kept = make([]byte, commandGoal/2)
	settles(t, Percent)
	kept = nil
	settles(t, commandMax)
	assert.Equal(t, commandMax, Set(150))
	assert.False(t, Scaling())
}

func TestApplyLeavesGOGC(t *testing.T) {
	for name, apply := range map[string]func(){"Apply": Apply, "ApplyScaled": ApplyScaled} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("GOGC", "150")
			old := debug.SetGCPercent(150)
			t.Cleanup(func() { debug.SetGCPercent(old) })
			apply()
			assert.False(t, Scaling())
			assert.Equal(t, 150, debug.SetGCPercent(150))
		})
	}
}
