package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readEvents reads every event of stream with a reader bounded by max, one
// byte per read when bytewise (line ends split across reads), and returns
// the events as "name|data", the cursor and the error that ended it.
func readEvents(stream string, max int64, bytewise bool) ([]string, Cursor, error) {
	var r io.Reader = strings.NewReader(stream)
	if bytewise {
		r = iotest.OneByteReader(r)
	}
	cur := Cursor{}
	rd := NewReader(r, max, &cur)
	var got []string
	for {
		ev, err := rd.Next()
		if err != nil {
			return got, cur, err
		}
		got = append(got, ev.Name+"|"+string(ev.Data))
	}
}

// TestSSEReader: the HTML standard's parsing rules, line by line, and the
// bound on one event.
func TestSSEReader(t *testing.T) {
	cases := []struct {
		name   string
		stream string
		max    int64
		want   []string
		lastID string
		retry  time.Duration
		err    error
	}{
		{name: "one event", stream: "data: {}\n\n", want: []string{"|{}"}},
		{name: "CRLF", stream: "data: a\r\n\r\ndata: b\r\n\r\n", want: []string{"|a", "|b"}},
		{name: "CR", stream: "data: a\r\rdata: b\r\r", want: []string{"|a", "|b"}},
		{name: "mixed line ends", stream: "data: a\r\ndata: b\rdata: c\n\r\n", want: []string{"|a\nb\nc"}},
		{name: "one space dropped", stream: "data:a\n\ndata:  b\n\n", want: []string{"|a", "| b"}},
		{name: "comments and blank lines", stream: ": keep-alive\n\n\n: x\ndata: y\n\n", want: []string{"|y"}},
		{name: "priming event", stream: "id: s-1\nretry: 250\ndata:\n\n", want: []string{"|"}, lastID: "s-1", retry: 250 * time.Millisecond},
		{name: "field without colon", stream: "data\n\n", want: []string{"|"}},
		{name: "event name", stream: "event: endpoint\ndata: /m\n\ndata: x\n\n", want: []string{"endpoint|/m", "|x"}},
		{name: "name without data is dropped", stream: "event: e\n\ndata: x\n\n", want: []string{"|x"}},
		{name: "unknown field", stream: "foo: bar\ndata: x\n\n", want: []string{"|x"}},
		{name: "id with NUL ignored", stream: "id: a\n\nid: b\x00\ndata: x\n\n", want: []string{"|x"}, lastID: "a"},
		{name: "empty id resets", stream: "id: a\n\nid\n\n", lastID: ""},
		{name: "bad retry ignored", stream: "retry: 10\nretry: 1s\nretry: -5\nretry: 99999999999999999999\n\n", retry: 10 * time.Millisecond},
		{name: "cut event not dispatched, nor its id", stream: "id: 1\ndata: a\n\nid: 2\ndata: b\n", want: []string{"|a"}, lastID: "1"},
		{name: "data at the bound", stream: "data: 1234\ndata: 123\n\n", max: 8, want: []string{"|1234\n123"}},
		{name: "data over the bound", stream: "data: 12345\ndata: 1234\n\n", max: 8, err: ErrTooLarge},
		{name: "line over the bound", stream: ": " + strings.Repeat("x", 20) + "\n\n", max: 8, err: ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			max := tc.max
			if max == 0 {
				max = 64 << 20
			}
			for _, bytewise := range []bool{false, true} {
				got, cur, err := readEvents(tc.stream, max, bytewise)
				if tc.err != nil {
					require.ErrorIs(t, err, tc.err)
					continue
				}
				require.ErrorIs(t, err, io.EOF)
				assert.Equal(t, tc.want, got)
				assert.Equal(t, tc.lastID, cur.LastID)
				assert.Equal(t, tc.retry, cur.Retry)
			}
		})
	}
}

// TestSSEReaderHoldsNoEvent: an event ending in CR is dispatched at once,
// without waiting for the byte after it (which might be an LF).
func TestSSEReaderHoldsNoEvent(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() { _, _ = pw.Write([]byte("data: x\r\r")) }()
	ev, err := NewReader(pr, 64, &Cursor{}).Next()
	require.NoError(t, err)
	assert.Equal(t, "x", string(ev.Data))
}

// FuzzSSEReader: any stream, any bound: no panic, the same events whether
// it arrives whole or byte by byte, no event over the bound, and no line
// end inside data or ids.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "id: 1\r\nretry: 5\r\ndata:\r\n\r\n", "data: a\rdata: b\r\r",
		": c\n\nevent: x\ndata\n\n", "data: " + strings.Repeat("y", 40) + "\n\n", "id: \x00\n\n", "\r\n\r\r\n\n"} {
		f.Add(s, int64(16))
	}
	f.Fuzz(func(t *testing.T, stream string, max int64) {
		max = 1 + max&0xff
		whole, cur, err := readEvents(stream, max, false)
		bytewise, cur2, err2 := readEvents(stream, max, true)
		assert.Equal(t, whole, bytewise)
		assert.Equal(t, cur, cur2)
		assert.Equal(t, errors.Is(err, ErrTooLarge), errors.Is(err2, ErrTooLarge))
		if !errors.Is(err, ErrTooLarge) {
			assert.ErrorIs(t, err, io.EOF)
		}
		for _, ev := range whole {
			_, data, _ := strings.Cut(ev, "|")
			assert.LessOrEqual(t, int64(len(data)), max)
			assert.NotContains(t, data, "\r")
		}
		assert.NotContains(t, cur.LastID, "\r")
		assert.NotContains(t, cur.LastID, "\n")
		assert.NotContains(t, cur.LastID, "\x00")
	})
}

// FuzzSSERoundTrip: what the server's encoder (AppendEvent) writes, the
// reader reads back: the data with every line break as LF, and the id.
func FuzzSSERoundTrip(f *testing.F) {
	for _, s := range [][2]string{{"1", `{"jsonrpc":"2.0"}`}, {"s-2", "a\r\nb\rc\n"}, {"", ""}, {"x\ny", " lead"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, id, data string) {
		if strings.Contains(id, "\x00") {
			return // an id the reader ignores, as browsers do
		}
		got, cur, err := readEvents(string(AppendEvent(nil, id, "", []byte(data))), 64<<20, false)
		require.ErrorIs(t, err, io.EOF)
		want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(data)
		assert.Equal(t, []string{"|" + want}, got)
		assert.Equal(t, strings.NewReplacer("\r", "", "\n", "").Replace(id), cur.LastID)
	})
}

func TestIndexLineBreak(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{{"", -1}, {"abc", -1}, {"\n", 0}, {"\r", 0}, {"ab\ncd\r", 2}, {"ab\rcd\n", 2}, {"ab\r\n", 2}, {"abc\n", 3}} {
		assert.Equal(t, tc.want, indexLineBreak([]byte(tc.in)), "%q", tc.in)
		assert.Equal(t, bytes.IndexAny([]byte(tc.in), "\r\n"), indexLineBreak([]byte(tc.in)), "%q", tc.in)
	}
}
