package router

import (
	"slices"
	"sync"
	"sync/atomic"
)

// table is one catalogue: the writers' ordered copy, guarded by mu, and the
// readers' immutable snapshot of it.
//
// Writers never touch a published snapshot; they clear it, and the first
// reader after a change builds a new one under mu. So registering n items
// before the first read costs O(n) in all, while every read in the steady
// state is a single atomic load.
type table[V any] struct {
	mu      sync.Mutex
	version uint64         // bumped on every change to the list
	keys    []string       // registration order
	items   []*V           // parallel to keys
	pos     map[string]int // key → index in keys and items

	snap atomic.Pointer[view[V]] // nil when stale
}

// view is an immutable snapshot of a table.
type view[V any] struct {
	version uint64
	items   []*V
	byKey   map[string]*V
}

// load returns the current snapshot, building it if a change cleared it.
func (t *table[V]) load() *view[V] {
	if v := t.snap.Load(); v != nil {
		return v
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if v := t.snap.Load(); v != nil {
		return v // another reader built it while we waited
	}
	v := &view[V]{version: t.version, items: slices.Clone(t.items), byKey: make(map[string]*V, len(t.items))}
	for i, it := range v.items {
		v.byKey[t.keys[i]] = it
	}
	t.snap.Store(v)
	return v
}

// lookup returns the item under key in the current snapshot.
func (t *table[V]) lookup(key string) (*V, bool) {
	it, ok := t.load().byKey[key]
	return it, ok
}

// put adds item under key, or replaces the item there in its place. merge,
// when not nil, sees the item being replaced and may carry state over (a
// prompt's completer). The caller holds no lock.
func (t *table[V]) put(key string, item *V, merge func(prev, next *V)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pos == nil {
		t.pos = make(map[string]int)
	}
	if i, ok := t.pos[key]; ok {
		if merge != nil {
			merge(t.items[i], item)
		}
		t.items[i] = item
	} else {
		t.pos[key] = len(t.keys)
		t.keys = append(t.keys, key)
		t.items = append(t.items, item)
	}
	t.version++
	t.snap.Store(nil)
}

// update replaces the item under key with f(old) without bumping the
// version: the list is unchanged, so cursors stay valid. It reports false
// when key is absent.
func (t *table[V]) update(key string, f func(old *V) *V) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.pos[key]
	if !ok {
		return false
	}
	t.items[i] = f(t.items[i])
	t.snap.Store(nil)
	return true
}

// remove deletes the items under keys and reports how many there were.
func (t *table[V]) remove(keys []string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	gone := make(map[string]bool, len(keys))
	for _, k := range keys {
		if _, ok := t.pos[k]; ok {
			gone[k] = true
		}
	}
	if len(gone) == 0 {
		return 0
	}
	// Compact in place so the survivors keep their relative order.
	j := 0
	for i, k := range t.keys {
		if gone[k] {
			delete(t.pos, k)
			continue
		}
		t.keys[j], t.items[j] = k, t.items[i]
		t.pos[k] = j
		j++
	}
	clear(t.keys[j:])
	clear(t.items[j:])
	t.keys, t.items = t.keys[:j], t.items[:j]
	t.version++
	t.snap.Store(nil)
	return len(gone)
}
