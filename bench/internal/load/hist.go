package load

import (
	"math/bits"
	"time"
)

// subBits sets the histogram's precision: each power of two is split into
// 2^(subBits-1) buckets, so a recorded value is off by at most 1/64.
const subBits = 7

// Hist is a log-linear latency histogram in the spirit of HDR histograms:
// fixed memory, constant-time Record, and quantiles within 1.6%.
// The zero value is ready to use. It is not safe for concurrent use.
type Hist struct {
	counts [64 << (subBits - 1)]uint64
	n      uint64
	max    time.Duration
}

func bucketOf(v uint64) int {
	l := bits.Len64(v)
	if l <= subBits {
		return int(v)
	}
	shift := l - subBits
	return shift<<(subBits-1) + int(v>>shift)
}

// midpointOf returns the middle of bucket i's value range.
func midpointOf(i int) uint64 {
	if i < 1<<subBits {
		return uint64(i)
	}
	shift := i>>(subBits-1) - 1
	top := uint64(i - shift<<(subBits-1))
	return top<<shift + (1<<shift)/2
}

// Record adds one observation.
func (h *Hist) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.n++
	h.max = max(h.max, d)
}

// Count returns the number of observations.
func (h *Hist) Count() uint64 { return h.n }

// Max returns the largest observation.
func (h *Hist) Max() time.Duration { return h.max }

// Quantile returns the value below which a fraction q of observations fall.
func (h *Hist) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return min(time.Duration(midpointOf(i)), h.max)
		}
	}
	return h.max
}
