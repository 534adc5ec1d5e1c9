package streamhttp

// slots holds values in numbered slots that are reused once freed, for a
// set whose members are added and removed on every request: a map cost
// hashing and growth there. The zero T marks a free slot. Callers lock.
type slots[T comparable] struct {
	items []T
	free  []int
}

// put stores v, not the zero T, in a slot and returns the slot.
func (s *slots[T]) put(v T) int {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		s.items[i] = v
		return i
	}
	s.items = append(s.items, v)
	return len(s.items) - 1
}

// release frees slot i.
func (s *slots[T]) release(i int) {
	var zero T
	s.items[i] = zero
	s.free = append(s.free, i)
}

// len is how many slots are in use.
func (s *slots[T]) len() int { return len(s.items) - len(s.free) }
