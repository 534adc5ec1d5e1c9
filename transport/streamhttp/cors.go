package streamhttp

import (
	"net/http"
	"strings"
)

// CORS lets a web page call the endpoint from its browser (a browser-based
// client such as the MCP Inspector, served from its own origin) when, and
// only when, its origin passes the Origin check: loopback on any port, or
// AllowedOriginHosts. The check is the trust decision (such a page may
// already send requests); CORS only lets its browser send the JSON POSTs
// and MCP headers, and read the answers. Pages of other origins still get
// 403, and no CORS header names them. DisableCORS turns CORS off:
// preflights get 405 and answers carry no CORS header.

// What a page may read of an answer beyond the CORS-safelisted headers.
const corsExposed = hdrSessionID + ", " + hdrProtocolVersion

// corsMaxAge is how long, in seconds, a browser may reuse a preflight.
const corsMaxAge = "600"

// corsDefaultHeaders are allowed when a preflight does not list the headers
// it wants (browsers always do; this is for hand-made preflights).
const corsDefaultHeaders = "Content-Type, Accept, Authorization, " + hdrSessionID + ", " + hdrProtocolVersion +
	", " + hdrMethod + ", " + hdrName + ", " + hdrLastEventID

// CORSHeader returns the headers that every answer to r carries for a
// browser: Access-Control-Allow-Origin naming r's origin, the MCP headers
// exposed to the page, and Vary. It is nil when r has no Origin, when its
// origin is not allowed (Prepare answers 403) or when CORS is disabled.
// Handler sets them itself; a host writing Prepare's and Execute's answers
// (Output) adds them to each head.
func (e *Engine) CORSHeader(r *Request) http.Header {
	origin, ok := e.corsOrigin(r.Header)
	if !ok {
		return nil
	}
	return http.Header{
		"Access-Control-Allow-Origin":   {origin},
		"Access-Control-Expose-Headers": {corsExposed},
		"Vary":                          {"Origin"},
	}
}

// corsOrigin returns the origin of a browser request whose answers carry
// CORS headers.
func (e *Engine) corsOrigin(h http.Header) (string, bool) {
	if e.o.DisableCORS {
		return "", false
	}
	v := h["Origin"]
	if len(v) != 1 || !e.pol.originAllowed(v) {
		return "", false
	}
	return strings.TrimSpace(v[0]), true
}

// preflight answers OPTIONS at an endpoint that serves allow: 204, with
// the CORS grants when a browser asks from an allowed origin (admit has
// refused the others).
func (e *Engine) preflight(r *Request, allow string) *Response {
	resp := &Response{Status: http.StatusNoContent, Header: http.Header{"Allow": {allow + ", OPTIONS"}}}
	if _, ok := e.corsOrigin(r.Header); !ok {
		return resp
	}
	headers := corsDefaultHeaders
	if asked := strings.Join(r.Header.Values("Access-Control-Request-Headers"), ","); asked != "" && isTokenList(asked) {
		headers = asked
	}
	resp.Header["Access-Control-Allow-Methods"] = []string{allow}
	resp.Header["Access-Control-Allow-Headers"] = []string{headers}
	resp.Header["Access-Control-Max-Age"] = []string{corsMaxAge}
	resp.Header["Vary"] = []string{"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"}
	return resp
}

// isTokenList reports whether s is a comma-separated list of header names
// (RFC 9110 tokens), so that it can be echoed as a header value.
func isTokenList(s string) bool {
	if len(s) > 4096 {
		return false
	}
	for name := range strings.SplitSeq(s, ",") {
		if name = strings.Trim(name, " \t"); name != "" && !isToken(name) {
			return false
		}
	}
	return true
}

// addHeader merges extra into h, replacing what h has of the same names.
func addHeader(h, extra http.Header) {
	for k, v := range extra {
		h[k] = v
	}
}
