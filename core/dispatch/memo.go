package dispatch

import (
	"bytes"
	"sync/atomic"

	"github.com/polymcp/polymcp/core/spec"
)

// clients keeps, decoded, the last client capabilities and clientInfo that
// 2026-07-28 requests carried in their _meta. A client sends the same with
// every request: they were decoded again for each, into its call, which
// they made a size class larger. Requests share what it holds, as the
// requests of a legacy session share what initialize said; handlers only
// read it.
type clients struct {
	caps memo[spec.ClientCapabilities]
	info memo[spec.Implementation]
	// none is the capabilities of "{}", what most clients declare.
	none spec.ClientCapabilities
}

// memo holds the last value one decoder made, by the bytes it read.
type memo[T any] struct{ last atomic.Pointer[memoEntry[T]] }

type memoEntry[T any] struct {
	raw []byte
	v   T
}

// get returns raw read by read: the held value when raw is what it was
// read from, else a new one (held in its place when read succeeds). read
// gets a copy of raw that the value may point into, and must leave it as
// it is.
func (m *memo[T]) get(raw []byte, read func(raw []byte, v *T) error) (*T, error) {
	if e := m.last.Load(); e != nil && bytes.Equal(e.raw, raw) {
		return &e.v, nil
	}
	e := &memoEntry[T]{raw: bytes.Clone(raw)}
	if err := read(e.raw, &e.v); err != nil {
		return nil, err
	}
	m.last.Store(e)
	return &e.v, nil
}
