package sse

import (
	"strconv"
	"strings"
	"time"
)

// AppendEvent appends one SSE event to dst: an "id:" line when id is not
// empty, an "event:" line when event is not empty, one "data:" line per line
// of data, and the blank line that ends the event.
//
// No input can end the event early or forge a field: data is split at every
// line break an SSE parser knows (CRLF, LF, CR), so a client reads it back
// with each break as LF (a JSON text keeps its meaning); CR and LF are
// removed from id and event.
func AppendEvent(dst []byte, id, event string, data []byte) []byte {
	dst = appendField(dst, "id", id)
	dst = appendField(dst, "event", event)
	for {
		i := lineBreak(data)
		line := data
		if i >= 0 {
			line = data[:i]
		}
		dst = append(dst, "data:"...)
		if len(line) > 0 {
			// One space after the colon, which parsers strip; a leading
			// space of the line itself survives.
			dst = append(dst, ' ')
			dst = append(dst, line...)
		}
		dst = append(dst, '\n')
		if i < 0 {
			break
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	return append(dst, '\n')
}

// AppendPriming appends the event that opens a resumable stream (2025-11-25):
// the id a client resumes from, the reconnection delay in milliseconds when
// retry is positive, and empty data.
func AppendPriming(dst []byte, id string, retry time.Duration) []byte {
	dst = appendField(dst, "id", id)
	if retry > 0 {
		dst = append(dst, "retry: "...)
		dst = strconv.AppendInt(dst, max(retry.Milliseconds(), 1), 10)
		dst = append(dst, '\n')
	}
	return append(dst, "data:\n\n"...)
}

// AppendComment appends a comment, which clients ignore: a keep-alive.
// Line breaks in text are removed.
func AppendComment(dst []byte, text string) []byte {
	dst = append(dst, ':')
	if text = clean(text); text != "" {
		dst = append(dst, ' ')
		dst = append(dst, text...)
	}
	return append(dst, "\n\n"...)
}

// appendField appends "name: value" unless value is empty once cleaned: an
// empty "id:" line would reset the client's last event id.
func appendField(dst []byte, name, value string) []byte {
	if value = clean(value); value == "" {
		return dst
	}
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	dst = append(dst, value...)
	return append(dst, '\n')
}

var lineBreaks = strings.NewReplacer("\r", "", "\n", "")

// clean drops CR and LF, which would end an SSE field early.
func clean(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return lineBreaks.Replace(s)
}

func lineBreak(b []byte) int {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return i
		}
	}
	return -1
}
