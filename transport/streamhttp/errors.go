package streamhttp

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

// headerMismatch is the 2026-07-28 answer to a request header that is
// missing, malformed or differs from the body: -32020, HTTP 400. data.header
// names the header so a client can tell which one to fix.
func headerMismatch(header, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeHeaderMismatch, Message: fmt.Sprintf(format, args...),
		Data: map[string]any{"header": header}, Kind: jsonrpc.KindTransport}
}

func invalidRequest(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.KindTransport, jsonrpc.CodeInvalidRequest, format, args...)
}

// jsonOnly is jsonHeader shared, for an Output known to only read it.
var jsonOnly = jsonHeader()

// jsonHeader is the header of every JSON answer.
func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json"}}
}

// errorResponse is an HTTP answer whose body is a JSON-RPC error for id
// (NullID when the request could not be read that far).
func errorResponse(status int, id jsonrpc.ID, e *jsonrpc.Error) *Response {
	return &Response{Status: status, Header: jsonHeader(), Body: jsonrpc.AppendError(nil, id, e)}
}

// transportError answers a rule of HTTP itself (Origin, Host, method, media
// types, sizes) with status and an id-less -32600 error naming the rule.
func transportError(status int, format string, args ...any) *Response {
	return errorResponse(status, jsonrpc.NullID, invalidRequest(format, args...))
}

// unavailable is 503 with Retry-After: too many sessions or connections,
// an overloaded executor, or a server shutting down.
func (e *Engine) unavailable(id jsonrpc.ID, msg string) *Response {
	r := errorResponse(http.StatusServiceUnavailable, id,
		jsonrpc.Errorf(jsonrpc.KindTransport, jsonrpc.CodeInternalError, "%s", msg))
	r.Header.Set("Retry-After", strconv.Itoa(int(max(e.o.RetryAfter.Seconds(), 1))))
	return r
}

// bodySizer is an Output that can announce the length of a whole body
// before Start (the net/http one sets Content-Length). Other Outputs, such
// as the C ABI's, see the same Start and Writes as before.
type bodySizer interface {
	sizeBody(n int)
}

func sizeBody(out Output, n int) {
	if s, ok := out.(bodySizer); ok {
		s.sizeBody(n)
	}
}

// write sends a complete Response through out.
func (r *Response) write(out Output) error {
	sizeBody(out, len(r.Body))
	if err := out.Start(r.Status, r.Header); err != nil {
		return err
	}
	if len(r.Body) > 0 {
		if err := out.Write(r.Body); err != nil {
			return err
		}
	}
	return out.Flush()
}
