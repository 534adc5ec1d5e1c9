package streamhttp

import (
	"net/http"
	"strconv"
	"strings"
)

// endpoint is which of the served paths a request is for.
type endpoint uint8

const (
	epMCP     endpoint = iota + 1 // Streamable HTTP (Options.Path)
	epSSE                         // 2024-11-05 GET stream (Options.SSEPath)
	epMessage                     // 2024-11-05 POST (Options.MessagePath)
)

// admit makes the checks that need no body, cheapest and most important
// first: a request from a foreign page or for a foreign host is refused
// before anything else is looked at.
func (e *Engine) admit(r *Request) (endpoint, *Response) {
	host := r.Host
	if host == "" {
		host = headerOne(r.Header, "Host")
	}
	if !e.pol.hostAllowed(host, r.LocalAddr) {
		return 0, transportError(http.StatusMisdirectedRequest, "this server does not answer to host %q", host)
	}
	if !e.pol.originAllowed(r.Header.Values("Origin")) {
		return 0, transportError(http.StatusForbidden, "origin not allowed")
	}
	ep := e.endpointOf(r.Path)
	if ep == 0 {
		return 0, transportError(http.StatusNotFound, "no MCP endpoint at %q", r.Path)
	}
	if resp := e.allowMethod(r, ep); resp != nil {
		return 0, resp
	}
	if r.Method != http.MethodPost {
		if ep == epSSE && !accepts(r.Header, "text/event-stream") {
			return 0, transportError(http.StatusNotAcceptable, "Accept must list text/event-stream")
		}
		return ep, nil
	}
	if !isJSONMediaType(headerOne(r.Header, "Content-Type")) {
		return 0, transportError(http.StatusUnsupportedMediaType, "Content-Type must be application/json")
	}
	if ep == epMCP && (!accepts(r.Header, "application/json") || !accepts(r.Header, "text/event-stream")) {
		return 0, transportError(http.StatusNotAcceptable, "Accept must list application/json and text/event-stream")
	}
	// Without the header (a chunked body) there is nothing to parse: the
	// error ParseInt would make of "" is an allocation.
	if cl := headerOne(r.Header, "Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n > e.o.MaxBodyBytes {
			return 0, e.tooLarge()
		}
	}
	return ep, nil
}

func (e *Engine) tooLarge() *Response {
	return transportError(http.StatusRequestEntityTooLarge, "request body over the %d-byte limit", e.o.MaxBodyBytes)
}

func (e *Engine) endpointOf(path string) endpoint {
	switch {
	case path == e.o.Path:
		return epMCP
	case e.o.DisableSSE:
		return 0
	case path == e.o.SSEPath:
		return epSSE
	case path == e.o.MessagePath:
		return epMessage
	}
	return 0
}

// allowMethod answers a method ep does not serve: 405, or with CORS on a
// preflight for OPTIONS.
func (e *Engine) allowMethod(r *Request, ep endpoint) *Response {
	allow := "GET, POST, DELETE"
	switch ep {
	case epMCP:
		if r.Method == http.MethodPost || r.Method == http.MethodGet || r.Method == http.MethodDelete {
			return nil
		}
	case epSSE:
		if allow = "GET"; r.Method == http.MethodGet {
			return nil
		}
	case epMessage:
		if allow = "POST"; r.Method == http.MethodPost {
			return nil
		}
	}
	if e.o.DisableCORS {
		return methodNotAllowed(allow, "method %s not allowed here", r.Method)
	}
	if r.Method == http.MethodOptions {
		return e.preflight(r, allow)
	}
	return methodNotAllowed(allow+", OPTIONS", "method %s not allowed here", r.Method)
}

func methodNotAllowed(allow, format string, args ...any) *Response {
	r := transportError(http.StatusMethodNotAllowed, format, args...)
	r.Header.Set("Allow", allow)
	return r
}

// headerOne returns the first value of a header, or "".
func headerOne(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// isJSONMediaType accepts application/json with any parameters.
func isJSONMediaType(v string) bool {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return strings.EqualFold(strings.TrimSpace(v), "application/json")
}

// accepts reports whether the Accept header admits the media type want,
// exactly or through a wildcard, with a non-zero quality.
func accepts(h http.Header, want string) bool {
	major, _, _ := strings.Cut(want, "/")
	for _, line := range h.Values("Accept") {
		for rest, more := line, true; more; {
			var item string
			item, rest, more = strings.Cut(rest, ",")
			mt, params, _ := strings.Cut(item, ";")
			mt = strings.TrimSpace(mt)
			if !strings.EqualFold(mt, want) && mt != "*/*" && !isRangeOf(mt, major) {
				continue
			}
			if !zeroQuality(params) {
				return true
			}
		}
	}
	return false
}

// isRangeOf reports whether mt is the media range major/* (major in any
// case), without building that string for every item of every request.
func isRangeOf(mt, major string) bool {
	base, ok := strings.CutSuffix(mt, "/*")
	return ok && strings.EqualFold(base, major)
}

// zeroQuality reports whether media-range parameters hold q=0.
func zeroQuality(params string) bool {
	for rest, more := params, true; more; {
		var p string
		p, rest, more = strings.Cut(rest, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}
