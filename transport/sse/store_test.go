package sse

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func appendAll(s *Store, data ...string) []string {
	ids := make([]string, len(data))
	for i, d := range data {
		ids[i] = s.Append([]byte(d))
	}
	return ids
}

func strs(b [][]byte) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i] = string(x)
	}
	return out
}

func TestStoreIDs(t *testing.T) {
	a, b := NewStore(0, 0), NewStore(0, 0)
	assert.NotEqual(t, a.Stream(), b.Stream(), "stream prefixes are random")
	ids := appendAll(a, "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17")
	for i, id := range ids {
		assert.Equal(t, a.Stream(), StreamOf(id))
		assert.Len(t, id, len(a.Stream())+1+seqDigits)
		if i > 0 {
			assert.Less(t, ids[i-1], id, "ids increase as strings")
		}
	}
	assert.Equal(t, a.Stream()+"-0000000000000011", ids[16])
	assert.NotContains(t, ids, b.Append([]byte("1")), "ids are unique across stores")
}

func TestStreamOf(t *testing.T) {
	cases := []struct{ id, want string }{
		{"ABC-0000000000000001", "ABC"},
		{"A-B-00000000000000ff", "A-B"},
		{"ABC-00000000000000FF", ""}, // not the form Store writes
		{"ABC-1", ""},
		{"-0000000000000001", ""},
		{"ABC0000000000000001", ""},
		{"ABC-000000000000001g", ""},
		{"", ""},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, StreamOf(tc.id), tc.id)
	}
}

func TestStoreAfter(t *testing.T) {
	s := NewStore(0, 0)
	other := NewStore(0, 0)
	ids := appendAll(s, "a", "b", "c")
	future := s.Stream() + "-0000000000000004"
	cases := []struct {
		name   string
		lastID string
		want   []string
		ok     bool
	}{
		{"start of stream", "", []string{"a", "b", "c"}, true},
		{"after first", ids[0], []string{"b", "c"}, true},
		{"after last", ids[2], nil, true},
		{"id not yet assigned", future, nil, false},
		{"sequence zero", s.Stream() + "-0000000000000000", nil, false},
		{"other store's id", other.Append([]byte("x")), nil, false},
		{"garbage", "not-an-id", nil, false},
		{"upper-case hex", s.Stream() + "-000000000000000A", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			events, gotIDs, ok := s.After(tc.lastID)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, nilIfEmpty(strs(events)))
			assert.Len(t, gotIDs, len(tc.want))
		})
	}
	_, gotIDs, _ := s.After("")
	assert.Equal(t, ids, gotIDs)
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestStoreCopiesData(t *testing.T) {
	s := NewStore(0, 0)
	buf := []byte("abc")
	s.Append(buf)
	copy(buf, "xyz")
	events, _, _ := s.After("")
	assert.Equal(t, []string{"abc"}, strs(events))
}

func TestStoreEviction(t *testing.T) {
	cases := []struct {
		name                string
		maxEvents, maxBytes int
		data                []string
		held                []string
		// resumable[i] says whether After(id of data[i]) is ok.
		resumable []bool
	}{
		{"by count", 2, 100, []string{"a", "b", "c", "d"}, []string{"c", "d"},
			[]bool{false, true, true, true}},
		{"by bytes", 100, 5, []string{"aa", "bb", "cc", "d"}, []string{"bb", "cc", "d"},
			[]bool{true, true, true, true}},
		{"by bytes drops several", 100, 4, []string{"a", "b", "c", "dddd"}, []string{"dddd"},
			[]bool{false, false, true, true}},
		{"newest kept even when too large", 100, 3, []string{"a", "bbbbbb"}, []string{"bbbbbb"},
			[]bool{true, true}},
		{"both bounds", 3, 6, []string{"aa", "bb", "cc", "dd", "e"}, []string{"cc", "dd", "e"},
			[]bool{false, true, true, true, true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(tc.maxEvents, tc.maxBytes)
			ids := appendAll(s, tc.data...)
			// Each case evicts: resume from the id just before the oldest held.
			events, _, ok := s.After(ids[len(ids)-len(tc.held)-1])
			require.True(t, ok)
			assert.Equal(t, tc.held, strs(events))
			for i, id := range ids {
				_, _, ok := s.After(id)
				assert.Equal(t, tc.resumable[i], ok, "After(id of %q)", tc.data[i])
			}
			_, _, ok = s.After("")
			assert.False(t, ok, "the start is not resumable once the first event is gone")
		})
	}
}

func TestStoreDefaults(t *testing.T) {
	s := NewStore(-1, 0)
	assert.Equal(t, DefaultStoreEvents, s.maxEvents)
	assert.Equal(t, DefaultStoreBytes, s.maxBytes)
	for i := range DefaultStoreEvents + 1 {
		s.Append([]byte(strconv.Itoa(i)))
	}
	_, _, ok := s.After("")
	assert.False(t, ok)
	events, _, ok := s.After(s.Stream() + "-0000000000000001")
	require.True(t, ok)
	assert.Len(t, events, DefaultStoreEvents)
}

func TestStoreClose(t *testing.T) {
	s := NewStore(0, 0)
	ids := appendAll(s, "a")
	wake := s.Notify()
	s.Close()
	s.Close()
	assert.True(t, s.Closed())
	assert.Equal(t, "", s.Append([]byte("b")), "no Append after Close")
	select {
	case <-wake:
	default:
		t.Fatal("Close must wake Notify channels")
	}
	select {
	case <-s.Notify():
	default:
		t.Fatal("Notify after Close returns a closed channel")
	}
	events, _, err := s.Wait(context.Background(), "")
	require.NoError(t, err, "held events stay readable")
	assert.Equal(t, []string{"a"}, strs(events))
	_, _, err = s.Wait(context.Background(), ids[0])
	assert.ErrorIs(t, err, ErrStoreClosed)
	// Notify after Close followed by another Close used to close its
	// channel twice: a panic in Engine.Close with a waiting stream.
	<-s.Notify()
	assert.NotPanics(t, s.Close)
}

func TestStoreWait(t *testing.T) {
	s := NewStore(1, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := s.Wait(ctx, "")
	assert.ErrorIs(t, err, context.Canceled)
	_, _, err = s.Wait(context.Background(), "bogus")
	assert.ErrorIs(t, err, ErrEvicted)

	got := make(chan []string, 1)
	go func() {
		events, _, err := s.Wait(context.Background(), "")
		assert.NoError(t, err)
		got <- strs(events)
	}()
	s.Append([]byte("a"))
	select {
	case events := <-got:
		assert.Equal(t, []string{"a"}, events)
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after Append")
	}
	s.Append([]byte("b"))
	_, _, err = s.Wait(context.Background(), "")
	assert.ErrorIs(t, err, ErrEvicted, "a gap is reported, not skipped")
}

// TestStoreConcurrent: writers append while live readers follow with Wait;
// every reader sees every event once, in order. Run with -race.
func TestStoreConcurrent(t *testing.T) {
	const writers, perWriter, readers = 4, 200, 3
	s := NewStore(writers*perWriter, 0)
	var wg sync.WaitGroup
	seen := make([][]string, readers)
	for r := range readers {
		wg.Go(func() {
			last := ""
			for {
				events, ids, err := s.Wait(context.Background(), last)
				if err != nil {
					assert.ErrorIs(t, err, ErrStoreClosed)
					return
				}
				seen[r] = append(seen[r], strs(events)...)
				last = ids[len(ids)-1]
			}
		})
	}
	var ww sync.WaitGroup
	for w := range writers {
		ww.Go(func() {
			for i := range perWriter {
				s.Append(fmt.Appendf(nil, "%d/%d", w, i))
				if i%50 == 0 {
					s.After("")
					StreamOf(s.Stream())
				}
			}
		})
	}
	ww.Wait()
	s.Close()
	wg.Wait()
	all, _, ok := s.After("")
	require.True(t, ok)
	require.Len(t, all, writers*perWriter)
	for r := range readers {
		assert.Equal(t, strs(all), seen[r], "reader %d", r)
	}
}
