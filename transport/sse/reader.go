package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"time"
)

// ErrTooLarge is the error of a Reader whose event data, or one line, is
// over its bound.
var ErrTooLarge = errors.New("sse: event over the size bound")

// Event is one event of a text/event-stream.
type Event struct {
	Name string
	Data []byte // valid until the next call of Next
}

// IsMessage reports whether ev is a "message" event (the default type)
// with data: the only kind that carries MCP messages. Priming events have
// empty data; other types belong to other protocols.
func (ev Event) IsMessage() bool {
	return len(ev.Data) > 0 && (ev.Name == "" || ev.Name == "message")
}

// Cursor is where a stream can be resumed from: the last event id and
// the reconnection delay the server asked for. It outlives one response.
type Cursor struct {
	LastID string
	Retry  time.Duration // 0: the client's default
}

// Reader reads the events of a text/event-stream after the HTML
// standard's parsing rules (lines end at CRLF, LF or CR; one space after
// the colon is dropped; comments and unknown fields are ignored; an event
// is dispatched at a blank line when it has data). One event's data, and
// one line, are bounded by max bytes.
type Reader struct {
	r   *bufio.Reader
	max int64
	cur *Cursor

	line, data []byte
	// id is the last id field read; it becomes the cursor's LastID at the
	// end of its event, so that an event cut short is not skipped.
	id string
	// afterCR is set when the last line ended with CR: an LF that follows
	// belongs to the same line end. Waiting for it instead would hold an
	// event until the server sends more.
	afterCR bool
}

// NewReader reads r, bounding event data and lines by max bytes, and keeps
// cur up to date (it may carry the cursor of an earlier response).
func NewReader(r io.Reader, max int64, cur *Cursor) *Reader {
	return &Reader{r: bufio.NewReader(r), max: max, cur: cur, id: cur.LastID}
}

// lineOverhead is what a line holds besides its value: a line is at most
// max bytes of value plus the longest field name and ": ".
const lineOverhead = int64(len("retry: "))

// Next returns the next dispatched event. A stream that ends in the middle
// of an event does not dispatch it: the error is then io.EOF or the read's.
func (s *Reader) Next() (Event, error) {
	var ev Event
	s.data = s.data[:0]
	for {
		line, err := s.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			s.cur.LastID = s.id
			if ev.Data != nil {
				ev.Data = s.data[:len(s.data)-1] // the LF after the last data line
				return ev, nil
			}
			ev.Name = ""
			continue
		}
		name, value := splitField(line)
		switch string(name) {
		case "data":
			if int64(len(s.data)+len(value)) > s.max {
				return Event{}, ErrTooLarge
			}
			s.data = append(append(s.data, value...), '\n')
			ev.Data = s.data
		case "event":
			ev.Name = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.id = string(value)
			}
		case "retry":
			if d, ok := parseRetry(value); ok {
				s.cur.Retry = d
			}
		}
	}
}

// splitField splits a line at its first colon; one space after the colon
// is not part of the value. A comment (a line starting with a colon) has
// an empty name, which no field has.
func splitField(line []byte) (name, value []byte) {
	name, value, _ = bytes.Cut(line, []byte{':'})
	return name, bytes.TrimPrefix(value, []byte{' '})
}

// parseRetry reads a retry field: ASCII digits only, in milliseconds.
func parseRetry(v []byte) (time.Duration, bool) {
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	ms, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || ms > math.MaxInt64/int64(time.Millisecond) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// readLine returns the next line without its end. It reads what the
// buffer holds at once rather than byte by byte.
func (s *Reader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		if _, err := s.r.Peek(1); err != nil {
			return nil, err
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		if s.afterCR {
			s.afterCR = false
			if buf[0] == '\n' {
				_, _ = s.r.Discard(1)
				continue
			}
		}
		i := indexLineBreak(buf)
		n := i
		if i < 0 {
			n = len(buf)
		}
		if int64(len(s.line)+n) > s.max+lineOverhead {
			return nil, ErrTooLarge
		}
		s.line = append(s.line, buf[:n]...)
		if i < 0 {
			_, _ = s.r.Discard(n)
			continue
		}
		s.afterCR = buf[i] == '\r'
		_, _ = s.r.Discard(i + 1)
		return s.line, nil
	}
}

// indexLineBreak returns the index of the first CR or LF in b, or -1. Two
// vector scans: bytes.IndexAny reads a byte at a time, a quarter of a
// client's CPU on a 64 KiB event.
func indexLineBreak(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	end := lf
	if lf < 0 {
		end = len(b)
	}
	if cr := bytes.IndexByte(b[:end], '\r'); cr >= 0 {
		return cr
	}
	return lf
}
