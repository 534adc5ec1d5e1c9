package sse

import "strings"

// testEvent is one event as a WHATWG EventSource parser dispatches it.
type testEvent struct {
	ID, Event, Data string
	Retry           string
}

// parseSSE is a small SSE parser after the HTML standard's algorithm: lines
// end at CRLF, LF or CR; a blank line dispatches the event when its data
// buffer is not empty; one space after the colon is stripped; comments and
// unknown fields are ignored. It returns the dispatched events and the
// number of comment lines.
func parseSSE(stream string) (events []testEvent, comments int) {
	var cur testEvent
	var data strings.Builder
	lastID := ""
	for stream != "" {
		i := strings.IndexAny(stream, "\r\n")
		if i < 0 {
			break // an unterminated line is never processed
		}
		line := stream[:i]
		if stream[i] == '\r' && i+1 < len(stream) && stream[i+1] == '\n' {
			i++
		}
		stream = stream[i+1:]
		switch {
		case line == "":
			if data.Len() > 0 {
				cur.Data = strings.TrimSuffix(data.String(), "\n")
				cur.ID = lastID
				events = append(events, cur)
			}
			cur, data = testEvent{}, strings.Builder{}
			continue
		case line[0] == ':':
			comments++
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
		case "event":
			cur.Event = value
		case "id":
			if !strings.Contains(value, "\x00") {
				lastID = value
			}
		case "retry":
			cur.Retry = value
		}
	}
	return events, comments
}
