// Package gcdefault holds the garbage collector setting of polymcp's own
// runtimes: the polymcp command and libpolymcp.so. The Go packages leave
// the collector alone, as a library should; these two own their process's
// Go runtime (a host that loads the library cannot tune a runtime it does
// not see), so they set it, unless GOGC says otherwise.
package gcdefault

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Percent is the least setting of the collector (GOGC) the polymcp command
// uses, and the most the library does, unless GOGC is set. Go's 100 made
// these runtimes, whose live heap is a few MiB, collect every few dozen
// 64 KiB calls. Measured here: through the C ABI, 200 cost 11-12 us
// instead of 14-15 per 16 B stdio call and 202-206 instead of 247-272 per
// 64 KiB one, for 3-9 MiB more RSS (400 saved no more CPU and doubled RSS
// at 64 KiB); for polymcp everything over stdio at 16 B, 12-18% less CPU
// per call and half the p99 at C=16 and C=64, for 5 MiB more RSS.
const Percent = 200

// Apply sets the polymcp command's collector unless the GOGC environment
// variable is set: its heap goal is at least commandGoal. The setting is
// commandMax while the live heap is under a fifth of that, falls with it
// to Percent at a third, and stays there above, where the goal is three
// times the live heap. Go's heap goal is at least 4 MiB x GOGC/100, and
// polymcp everything keeps 1-2 MiB live serving small calls: at Percent it
// collected every 6 MiB allocated, dozens of times a second under load.
// Measured here, commandMax against Percent, 16 B calls: 10-20% less CPU
// per call over stdio at C=64 and 5-15% over HTTP at C=16, for 6-8 MiB
// more peak RSS (25 -> 32 MiB). 64 KiB calls, which keep more live, stay
// near Percent (a fixed 400 cost them 15-30 MiB more).
func Apply() {
	start(commandPolicy)
}

// ApplyScaled is Apply for libpolymcp.so: the setting follows the live
// heap and the pace of collections, read after each one. Go's heap goal
// is at least 4 MiB × GOGC/100, so Percent holds 8 MiB even for the ~1 MiB
// that a library serving small calls keeps live. Here the setting is Go's
// own 100 up to 1.3 MiB of live heap and rises with it to Percent at 2.7
// MiB, so the goal runs from 4 MiB to 8 MiB as three times the live heap,
// then as at Percent; and it is Percent while collections come less than
// 5 ms apart, which a small heap that allocates fast would otherwise pay
// for. Measured here through the Node binding: 16 B calls keep ~1 MiB
// live, collect every 8-15 ms at 100 and cost the same CPU as at 200, for
// 4-5 MiB less peak RSS (a fifteenth of the process's); 64 KiB calls keep
// 3-5 MiB live and Percent's headroom. Through the C example, 64 KiB
// calls one at a time keep ~1 MiB live but collected every 3 ms at 100,
// which cost them 15% more CPU than 200. In a host the interpreter does
// most of a call's work, so the Go side's memory weighs more than in the
// polymcp command. Past a live heap of 4 MiB the headroom stays within
// maxHeadroom (the setting falls back to 100 at 8 MiB), churn or not.
func ApplyScaled() {
	start(libraryPolicy)
}

// policy is how one runtime's setting follows its live heap.
type policy struct {
	// percent is the setting for a live heap of live bytes.
	percent func(live uint64) int
	// initial is the setting before any collection was observed.
	initial int
	// churn makes the setting Percent while collections come less than
	// churn apart.
	churn bool
}

var (
	libraryPolicy = policy{percent: libraryPercent, initial: floor, churn: true}
	commandPolicy = policy{percent: commandPercent, initial: Percent}
)

// start begins scaling with pol unless GOGC is set or it already scales.
func start(pol policy) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	scale.mu.Lock()
	defer scale.mu.Unlock()
	if scale.on {
		return
	}
	scale.on = true
	scale.policy = pol
	scale.percent = pol.initial
	debug.SetGCPercent(pol.initial)
	if !scale.armed {
		scale.armed = true
		arm()
	}
}

// Set fixes the setting at percent (-1: off), ending the scaling of Apply
// or ApplyScaled: an explicit choice of the host's. It returns the previous
// setting.
func Set(percent int) int {
	scale.mu.Lock()
	defer scale.mu.Unlock()
	scale.on = false
	return debug.SetGCPercent(percent)
}

// Scaling reports whether the scaling of Apply or ApplyScaled is on.
func Scaling() bool {
	scale.mu.Lock()
	defer scale.mu.Unlock()
	return scale.on
}

const (
	// commandGoal is the least heap goal of the polymcp command.
	commandGoal = 16 << 20
	// commandMax is the command's setting for a small live heap.
	commandMax = 400
	// floor is the library's setting for a live heap up to knee: Go's
	// default.
	floor = 100
	// knee is the live heap from which the scaled setting rises.
	knee = 4 << 20 / 3
	// rising is how many collections in a row must call for a setting
	// before it rises to it: the burst of registering a catalogue at
	// start, two or three cycles, would otherwise leave a heap sized for
	// it, and resident memory with it, long after (the library), and a
	// moment of small live heap in a large one would make its goal five
	// times as large (the command).
	rising = 4
	// churn is the time between collections under which the setting is
	// Percent, whatever the live heap.
	churn = 5 * time.Millisecond
	// calm is the time between collections, at Percent, over which
	// churning ends: at 100, with under half the headroom, they would
	// come over 6 ms apart, still over churn, so the setting does not
	// swing back and forth.
	calm = 3 * churn
	// step is the least change worth making: each costs the runtime a
	// pass over its pacer under the heap lock, and the live heap moves a
	// little between any two cycles.
	step = 10
)

// scaler is the state of the scaling.
type scaler struct {
	mu       sync.Mutex
	on       bool
	policy   policy
	armed    bool // a cleanup is waiting for the next collection
	percent  int
	recent   [rising]uint64        // the live heap after the last collections
	at       [rising]time.Duration // when they ended
	cycles   int
	churning bool // collections came less than churn apart
}

var scale scaler

// observe records the live heap after a collection that ended at now (on
// any monotonic clock) and returns the setting it calls for, and whether
// that differs from the current one by at least step. mu is held.
func (s *scaler) observe(live uint64, now time.Duration) (percent int, change bool) {
	i := s.cycles % rising
	oldest := s.at[i]
	s.recent[i], s.at[i] = live, now
	s.cycles++
	if s.cycles > rising && s.policy.churn {
		switch apart := (now - oldest) / rising; {
		case apart < churn:
			s.churning = true
		case apart > calm:
			s.churning = false
		}
	}
	// The least the recent cycles call for: a setting rises only once
	// rising cycles in a row call for it, and falls at once.
	seen := s.recent[:min(s.cycles, rising)]
	p := s.policy.percent(seen[0])
	for _, live := range seen[1:] {
		p = min(p, s.policy.percent(live))
	}
	if s.cycles < rising {
		p = min(p, s.policy.initial)
	}
	if s.churning { // only a policy with churn, the library's: its headroom stays capped
		p = headroomCapped(Percent, s.recent[i])
	}
	if p-s.percent < step && s.percent-p < step {
		return s.percent, false
	}
	s.percent = p
	return p, true
}

// libraryPercent is the library's setting for a live heap of live bytes:
// rising from floor at knee to Percent, then falling back to floor as the
// headroom it leaves reaches maxHeadroom.
func libraryPercent(live uint64) int {
	return headroomCapped(int(min(max(live*floor/knee, floor), Percent)), live)
}

// maxHeadroom bounds the heap the library's collector leaves above the
// live heap once the live heap exceeds half of it, down to floor: Percent's twice
// the live heap bought no CPU there, and cost resident memory (through
// the Node binding over HTTP, 64 KiB calls at C=16 keep 3-7 MiB live, for
// goals up to 24 MB and a third of the process's peak RSS).
const maxHeadroom = 8 << 20

// headroomCapped is percent for a live heap of live bytes, lowered (not
// under floor) so that the headroom stays within maxHeadroom.
func headroomCapped(percent int, live uint64) int {
	if live == 0 {
		return percent
	}
	return int(min(uint64(percent), max(maxHeadroom*100/live, floor)))
}

// commandPercent is the command's setting for a live heap of live bytes:
// the one whose goal is commandGoal, within Percent and commandMax.
func commandPercent(live uint64) int {
	if live >= commandGoal/(1+Percent/100) {
		return Percent
	}
	return int(min((commandGoal-live)*100/max(live, 1), commandMax))
}

// sentinel is what the scaling's cleanup hangs on: it holds a pointer, so
// the tiny allocator (which may keep an object alive with its block
// neighbours) never serves it.
type sentinel struct{ _ *sentinel }

// arm hangs a cleanup on an object nothing references: it runs, on the
// runtime's cleanup goroutine, after the next collection.
func arm() {
	runtime.AddCleanup(new(sentinel), func(struct{}) { rescale() }, struct{}{})
}

var liveHeap = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// epoch is the origin of the scaling's clock.
var epoch = time.Now()

func rescale() {
	scale.mu.Lock()
	defer scale.mu.Unlock()
	if !scale.on {
		scale.armed = false // Set ended the scaling; ApplyScaled re-arms it
		return
	}
	metrics.Read(liveHeap)
	if liveHeap[0].Value.Kind() == metrics.KindUint64 {
		if p, change := scale.observe(liveHeap[0].Value.Uint64(), time.Since(epoch)); change {
			debug.SetGCPercent(p)
		}
	}
	arm()
}
