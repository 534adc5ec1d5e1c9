package sse

import (
	"net/http"
	"time"
)

// Output is where a host writes one HTTP response. Start sends the status
// line and headers (once, first); Write sends one chunk of the body (a whole
// JSON body, or one or more whole SSE events) and must not keep chunk after
// it returns; Flush pushes what was written to the client. None is called
// concurrently with another on the same Output. An error means the client
// is gone: the caller stops writing.
type Output interface {
	Start(status int, header http.Header) error
	Write(chunk []byte) error
	Flush() error
}

// WriteDeadliner is implemented by an Output that can bound a blocked Write
// and Flush, as net/http's ResponseController does. Once the deadline has
// passed, the blocked call returns an error.
type WriteDeadliner interface {
	SetWriteDeadline(t time.Time) error
}

// Header returns the response headers of an SSE stream: the media type,
// no caching, and no buffering by proxies such as nginx.
func Header() http.Header {
	return http.Header{
		"Content-Type":      {"text/event-stream"},
		"Cache-Control":     {"no-cache"},
		"X-Accel-Buffering": {"no"},
	}
}
