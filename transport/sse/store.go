package sse

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Defaults of NewStore.
const (
	// DefaultStoreEvents is how many events a Store holds for resumption.
	DefaultStoreEvents = 1024
	// DefaultStoreBytes is how many bytes of event data a Store holds.
	DefaultStoreBytes = 1 << 20
)

// Errors of Store.Wait.
var (
	// ErrEvicted: the id is not one of this store's, or events after it
	// were already evicted, so the stream cannot be resumed without a gap.
	ErrEvicted = errors.New("sse: event id unknown or already evicted")
	// ErrStoreClosed: the store is closed and every event after the id
	// was returned; the stream is complete.
	ErrStoreClosed = errors.New("sse: event stream ended")
)

// seqDigits is the width of the sequence part of an id: fixed, so that the
// ids of one store also increase as strings.
const seqDigits = 16

// Store is the bounded event log of one SSE stream, kept so that a client
// can resume it with Last-Event-ID (Streamable HTTP, 2025-03-26 and later).
// It is safe for concurrent use.
//
// Ids look like "<stream>-<seq>": a random stream prefix, unique across
// stores (see StreamOf), and a sequence number, increasing within one
// store both as a number and as a string. Ids are opaque to clients.
//
// Eviction: after each Append, the oldest events are dropped while the store
// holds more than maxEvents events or more than maxBytes bytes of data, but
// the newest event is always kept, however large. A client whose last id
// was followed by an evicted event cannot resume (After reports ok=false).
type Store struct {
	stream    string
	maxEvents int
	maxBytes  int

	mu     sync.Mutex
	held   []stored // oldest first
	next   uint64   // seq of the next Append; seqs start at 1
	bytes  int
	closed bool
	// wake is closed by the next Append or Close; nil until Notify asks.
	wake chan struct{}
}

type stored struct {
	seq  uint64
	data []byte
}

// NewStore returns an empty Store; maxEvents or maxBytes <= 0 mean
// DefaultStoreEvents and DefaultStoreBytes.
func NewStore(maxEvents, maxBytes int) *Store {
	if maxEvents <= 0 {
		maxEvents = DefaultStoreEvents
	}
	if maxBytes <= 0 {
		maxBytes = DefaultStoreBytes
	}
	return &Store{stream: rand.Text(), maxEvents: maxEvents, maxBytes: maxBytes, next: 1}
}

// Stream returns the stream prefix of this store's ids.
func (s *Store) Stream() string { return s.stream }

// StreamOf returns the stream prefix of an id made by a Store, or "" when
// id does not have that form. A session that owns several streams routes a
// Last-Event-ID to the one whose Stream matches.
func StreamOf(id string) string {
	stream, _, ok := splitID(id)
	if !ok {
		return ""
	}
	return stream
}

func splitID(id string) (stream string, seq uint64, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 || len(id)-i-1 != seqDigits {
		return "", 0, false
	}
	for _, c := range id[i+1:] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", 0, false // only the form id() writes
		}
	}
	seq, err := strconv.ParseUint(id[i+1:], 16, 64)
	return id[:i], seq, err == nil
}

func (s *Store) id(seq uint64) string {
	b := make([]byte, 0, len(s.stream)+1+seqDigits)
	b = append(b, s.stream...)
	b = append(b, '-')
	hex := strconv.FormatUint(seq, 16)
	for range seqDigits - len(hex) {
		b = append(b, '0')
	}
	return string(append(b, hex...))
}

// Append stores a copy of data as the next event and returns its id. After
// Close it stores nothing and returns "".
func (s *Store) Append(data []byte) string {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ""
	}
	seq := s.next
	s.next++
	s.held = append(s.held, stored{seq: seq, data: bytes.Clone(data)})
	s.bytes += len(data)
	for len(s.held) > 1 && (len(s.held) > s.maxEvents || s.bytes > s.maxBytes) {
		s.bytes -= len(s.held[0].data)
		s.held[0] = stored{} // let the evicted data go
		s.held = s.held[1:]
	}
	wake := s.wake
	s.wake = nil
	s.mu.Unlock()
	if wake != nil {
		close(wake)
	}
	return s.id(seq)
}

// After returns the events held after lastID, oldest first, with their
// ids; "" stands for the start of the stream. ok is false when lastID is
// not an id this store assigned, or when an event after it was evicted
// (lastID itself may be gone: the event just before the oldest held one
// still resumes without a gap). The returned data must not be modified.
func (s *Store) After(lastID string) (events [][]byte, ids []string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.after(lastID)
}

func (s *Store) after(lastID string) ([][]byte, []string, bool) {
	var last uint64
	if lastID != "" {
		stream, seq, ok := splitID(lastID)
		if !ok || stream != s.stream || seq == 0 || seq >= s.next {
			return nil, nil, false
		}
		last = seq
	}
	first := s.next
	if len(s.held) > 0 {
		first = s.held[0].seq
	}
	if last+1 < first {
		return nil, nil, false
	}
	rest := s.held[last+1-first:]
	if len(rest) == 0 {
		return nil, nil, true
	}
	events, ids := make([][]byte, len(rest)), make([]string, len(rest))
	for i, e := range rest {
		events[i], ids[i] = e.data, s.id(e.seq)
	}
	return events, ids, true
}

// Notify returns a channel that is closed by the next Append or by Close
// (at once when the store is closed). Take it before calling After so that
// no event falls between the two.
func (s *Store) Notify() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notify()
}

func (s *Store) notify() chan struct{} {
	if s.closed {
		// Not kept in s.wake: a later Close would close it a second time.
		return closedChan
	}
	if s.wake == nil {
		s.wake = make(chan struct{})
	}
	return s.wake
}

// closedChan is what Notify returns once the store is closed.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Wait is After for a live stream: it returns as soon as there are events
// after lastID. It fails with ErrEvicted where After reports ok=false, with
// ErrStoreClosed once the store is closed and nothing follows lastID, and
// with ctx's error when ctx ends first.
func (s *Store) Wait(ctx context.Context, lastID string) (events [][]byte, ids []string, err error) {
	for {
		s.mu.Lock()
		events, ids, ok := s.after(lastID)
		closed := s.closed
		var wake chan struct{}
		if ok && len(events) == 0 && !closed {
			wake = s.notify()
		}
		s.mu.Unlock()
		switch {
		case !ok:
			return nil, nil, ErrEvicted
		case len(events) > 0:
			return events, ids, nil
		case closed:
			return nil, nil, ErrStoreClosed
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// Close marks the stream complete: later Appends are refused, waiters
// wake, and the held events stay readable for resumption. It is idempotent.
func (s *Store) Close() {
	s.mu.Lock()
	s.closed = true
	wake := s.wake
	s.wake = nil
	s.mu.Unlock()
	if wake != nil {
		close(wake)
	}
}

// Closed reports whether Close was called.
func (s *Store) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
