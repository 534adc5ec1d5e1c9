package streamhttp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/polymcp/polymcp/transport"
)

// Handler serves the Engine over net/http: Streamable HTTP on Options.Path
// and, unless disabled, 2024-11-05 HTTP+SSE on SSEPath and MessagePath, all
// behind the same Origin and Host checks and limits.
type Handler struct {
	e *Engine
	// laddr is the text of the last local address seen: every connection
	// of a listener has the same one, and writing it out was an allocation
	// per request.
	laddr atomic.Pointer[localAddr]
}

type localAddr struct {
	ip   net.IP
	port int
	zone string
	text string
}

// localAddrText returns a.String(), reusing the last one for an equal
// TCP address.
func (h *Handler) localAddrText(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	if c := h.laddr.Load(); c != nil && c.port == ta.Port && c.zone == ta.Zone && c.ip.Equal(ta.IP) {
		return c.text
	}
	c := &localAddr{ip: ta.IP, port: ta.Port, zone: ta.Zone, text: ta.String()}
	h.laddr.Store(c)
	return c.text
}

// NewHandler returns a Handler with an Engine of its own.
func NewHandler(srv transport.Server, opts *Options) (*Handler, error) {
	e, err := New(srv, opts)
	if err != nil {
		return nil, err
	}
	return &Handler{e: e}, nil
}

// Handler returns a net/http Handler over e.
func (e *Engine) Handler() *Handler { return &Handler{e: e} }

// Engine returns the Engine the Handler serves.
func (h *Handler) Engine() *Engine { return h.e }

// ServeHTTP implements http.Handler, reading the body itself (413 as soon
// as it passes MaxBodyBytes, before anything is decoded).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, nil, false)
}

// ServeBody serves a request whose body a framework already read: r.Body
// is not touched and body is used instead (the Engine owns it from now on).
func (h *Handler) ServeBody(w http.ResponseWriter, r *http.Request, body []byte) {
	h.serve(w, r, body, true)
}

// exchange is what the Handler keeps of one request, in one allocation.
type exchange struct {
	req Request
	out httpOutput
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, body []byte, haveBody bool) {
	x := new(exchange)
	req, out := &x.req, &x.out
	h.requestOf(req, r)
	if cors := h.e.CORSHeader(req); cors != nil {
		addHeader(w.Header(), cors) // every head this request writes keeps them
	}
	out.init(w, h.e.o.WriteTimeout)
	defer out.done()
	ep, resp := h.e.admit(req)
	if resp != nil {
		_ = resp.write(out)
		return
	}
	if r.Method == http.MethodPost {
		if !haveBody {
			var err error
			if body, err = readBody(r.Body, r.ContentLength, h.e.o.MaxBodyBytes); err != nil {
				_ = h.readError(err).write(out)
				return
			}
		}
		req.Body = body
	}
	p, resp := h.e.prepare(req, ep)
	if resp != nil {
		_ = resp.write(out)
		return
	}
	// The body is read: the read deadline of the body must not cut a
	// stream that lasts longer (net/http would cancel the context).
	_ = out.rc.SetReadDeadline(time.Time{})
	if err := h.e.Execute(r.Context(), p, out); err != nil {
		h.e.o.Logger.Debug("streamhttp: response ended", "method", p.method, "err", err)
	}
}

// requestOf copies what the Engine needs of r into req.
func (h *Handler) requestOf(req *Request, r *http.Request) {
	*req = Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header, Host: r.Host}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		req.LocalAddr = h.localAddrText(a)
	}
}

var errTooLarge = errors.New("streamhttp: body too large")

// readBody reads at most max bytes; one more is an error. A body of known
// length (net/http enforces its Content-Length) is read into one buffer of
// that size, without the growing and copying of a bytes.Buffer.
func readBody(r io.Reader, length, max int64) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	if length >= 0 && length <= max {
		buf := make([]byte, length)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
}

func (h *Handler) readError(err error) *Response {
	var mbe *http.MaxBytesError
	if errors.Is(err, errTooLarge) || errors.As(err, &mbe) {
		r := h.e.tooLarge()
		r.Header.Set("Connection", "close")
		return r
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return transportError(http.StatusRequestTimeout, "request body not received in time")
	}
	return transportError(http.StatusBadRequest, "cannot read the request body: %v", err)
}

// httpOutput is an Output over a ResponseWriter. Each write gets its own
// deadline, so a stuck client loses its stream without a limit on how long
// a healthy stream may last.
type httpOutput struct {
	w       http.ResponseWriter
	rc      http.ResponseController
	timeout time.Duration
	length  int // of the whole body, if sizeBody announced it; -1 otherwise
	// armed says Write just set the deadline: the Flush that follows it
	// (the same bytes, on to the client) needs no other.
	armed bool
}

func (o *httpOutput) init(w http.ResponseWriter, timeout time.Duration) {
	*o = httpOutput{w: w, rc: *http.NewResponseController(w), timeout: timeout, length: -1}
}

// sizeBody implements bodySizer: the response is a whole body of n bytes.
func (o *httpOutput) sizeBody(n int) { o.length = n }

func (o *httpOutput) Start(status int, header http.Header) error {
	h := o.w.Header()
	for k, v := range header {
		h[k] = v
	}
	if o.length >= 0 && status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified {
		// With its length known, net/http sends the body as it is, not
		// chunked: the head and a small body leave in one write, with no
		// terminating chunk to write after it.
		h["Content-Length"] = contentLength(o.length)
	}
	o.w.WriteHeader(status)
	return nil
}

func (o *httpOutput) Write(chunk []byte) error {
	o.deadline()
	o.armed = true
	_, err := o.w.Write(chunk)
	return err
}

func (o *httpOutput) Flush() error {
	if !o.armed {
		o.deadline()
	}
	o.armed = false
	err := o.rc.Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return err
}

// contentLengths are the Content-Length values of the small bodies most
// answers have, made once each: httpOutput.Start only hands them to net/http,
// which copies header values before writing them (a slice and a string per
// answer were two allocations).
var contentLengths [4096]atomic.Pointer[[]string]

func contentLength(n int) []string {
	if n >= len(contentLengths) {
		return []string{strconv.Itoa(n)}
	}
	if v := contentLengths[n].Load(); v != nil {
		return *v
	}
	v := []string{strconv.Itoa(n)}
	contentLengths[n].Store(&v)
	return v
}

// SetWriteDeadline implements sse.WriteDeadliner.
func (o *httpOutput) SetWriteDeadline(t time.Time) error { return o.rc.SetWriteDeadline(t) }

func (o *httpOutput) deadline() {
	if o.timeout > 0 {
		_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	}
}

// done clears the write deadline, which would otherwise outlive the
// request on a keep-alive connection.
func (o *httpOutput) done() {
	if o.timeout > 0 {
		_ = o.rc.SetWriteDeadline(time.Time{})
	}
}
