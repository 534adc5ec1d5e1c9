package host

import (
	"sync"
	"sync/atomic"
)

// Handles are what the C side holds instead of Go pointers: a kind in the
// top byte and a sequence number below it. Numbers are never reused, so a
// stale handle can always be told from a live one, and a handle of the
// wrong kind is refused rather than misread.
const (
	kindShift = 56
	seqMask   = 1<<kindShift - 1
)

// handleKind is the top byte of a handle.
type handleKind uint64

const (
	kindServer handleKind = iota + 1
	kindCall
	kindSession
	kindHTTP
	kindClient
	kindQuestion
)

func (k handleKind) String() string {
	switch k {
	case kindServer:
		return "server"
	case kindCall:
		return "call"
	case kindSession:
		return "session"
	case kindHTTP:
		return "http exchange"
	case kindClient:
		return "client"
	case kindQuestion:
		return "question"
	}
	return "unknown"
}

// table maps the handles of one kind to their objects. It is safe for
// concurrent use. Handles are spread over shards by their low bits, each a
// plain map under its own lock: a map that has grown reuses its room, so a
// call's handle costs no allocation (sync.Map allocated a node per Store).
type table[T any] struct {
	kind   handleKind
	issued atomic.Uint64 // last sequence number handed out
	live   atomic.Int64
	shards [tableShards]shard[T]
}

const tableShards = 16

type shard[T any] struct {
	mu sync.Mutex
	m  map[uint64]*T
	_  [48]byte // a cache line each, so threads on different shards do not share one
}

func newTable[T any](kind handleKind) *table[T] {
	t := &table[T]{kind: kind}
	for i := range t.shards {
		t.shards[i].m = make(map[uint64]*T)
	}
	return t
}

func (t *table[T]) shard(h uint64) *shard[T] { return &t.shards[h%tableShards] }

// add stores v under a fresh handle.
func (t *table[T]) add(v *T) uint64 {
	h := uint64(t.kind)<<kindShift | t.issued.Add(1)
	sh := t.shard(h)
	sh.mu.Lock()
	sh.m[h] = v
	sh.mu.Unlock()
	t.live.Add(1)
	return h
}

// get returns the object of h. A handle that was issued but is gone gives
// gone; anything else that is not live gives EBadHandle.
func (t *table[T]) get(h uint64, gone Code, what string) (*T, error) {
	sh := t.shard(h)
	sh.mu.Lock()
	v, ok := sh.m[h]
	sh.mu.Unlock()
	if ok {
		return v, nil
	}
	return nil, t.miss(h, gone, what)
}

func (t *table[T]) miss(h uint64, gone Code, what string) error {
	seq := h & seqMask
	switch {
	case h == 0:
		return errorf(EBadHandle, "%s handle is 0", t.kind)
	case handleKind(h>>kindShift) != t.kind:
		return errorf(EBadHandle, "handle %#x is not a %s handle", h, t.kind)
	case seq > t.issued.Load():
		return errorf(EBadHandle, "%s handle %#x was never issued", t.kind, h)
	}
	return errorf(gone, "%s handle %#x %s", t.kind, h, what)
}

// remove deletes h and reports whether it was live.
func (t *table[T]) remove(h uint64) bool {
	sh := t.shard(h)
	sh.mu.Lock()
	_, ok := sh.m[h]
	delete(sh.m, h)
	sh.mu.Unlock()
	if ok {
		t.live.Add(-1)
	}
	return ok
}

// Len is the number of live handles.
func (t *table[T]) Len() int { return int(t.live.Load()) }
