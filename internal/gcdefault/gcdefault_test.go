package gcdefault

import (
	"os"
	"runtime"
	"runtime/debug"
	"slices"
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
		{maxHeadroom * 100 / Percent, Percent},
		{6 << 20, 133}, // a headroom of maxHeadroom
		{maxHeadroom, floor},
		{64 << 20, floor},
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

// collection is one collection seen by observe, and what it must decide.
type collection struct {
	live   uint64
	want   int
	change bool
	why    string
}

// repeat is n times c.
func repeat(n int, c collection) []collection {
	out := make([]collection, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// Each policy's setting moves to the one holding less memory at once, and
// to one holding more only once rising collections in a row call for it.
func TestObserve(t *testing.T) {
	// mid is a live heap the library gives Percent; large, one it caps.
	const small, mid, large = 1 << 20, 3 << 20, 32 << 20
	for _, tc := range []struct {
		name  string
		pol   policy
		steps []collection
	}{
		{"library", libraryPolicy, slices.Concat(
			repeat(rising, collection{small, floor, false, "a small heap"}),
			repeat(rising-1, collection{mid, floor, false, "a burst"}),
			[]collection{{mid, Percent, true, "a larger heap that lasted"}, {small, floor, true, "a small one, at once"}},
			repeat(rising, collection{knee + knee*(step-1)/100, floor, false, "a move under step"}),
		)},
		{"command", commandPolicy, slices.Concat(
			repeat(rising-1, collection{small, Percent, false, "not yet rising cycles"}),
			[]collection{{small, commandMax, true, "a small heap that lasted"}, {large, Percent, true, "a large one, at once"}},
			repeat(rising-1, collection{small, Percent, false, "small again, not yet rising cycles"}),
			[]collection{{small, commandMax, true, "small again for rising cycles"}},
		)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scaler{percent: tc.pol.initial, policy: tc.pol}
			var now time.Duration
			for i, st := range tc.steps {
				now += 2 * churn // no churn
				p, change := s.observe(st.live, now)
				assert.Equal(t, st.want, p, "step %d: %s", i, st.why)
				assert.Equal(t, st.change, change, "step %d: %s", i, st.why)
			}
		})
	}
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

	// A large heap that churns keeps its headroom within maxHeadroom.
	big := &scaler{percent: floor, policy: libraryPolicy}
	for range 2 * rising {
		now += churn / 2
		big.observe(6<<20, now)
	}
	assert.True(t, big.churning)
	assert.Equal(t, 133, big.percent)
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

	kept = make([]byte, 5*knee/2) // a live heap of two and a half knees
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
