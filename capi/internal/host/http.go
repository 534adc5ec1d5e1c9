package host

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// HTTPConfig is the HTTP part of the options: polymcp_server_serve_http's
// JSON, and the "http" member of polymcp_server_new's for host-owned HTTP.
// Zero means streamhttp's documented default.
type HTTPConfig struct {
	Addr                 string   `json:"addr"` // serve_http only; default 127.0.0.1:0
	Path                 string   `json:"path"` // default /mcp
	DisableSSE           bool     `json:"disable_sse"`
	AllowedOriginHosts   []string `json:"allowed_origin_hosts"`
	AllowedHosts         []string `json:"allowed_hosts"`
	DisableHostCheck     bool     `json:"disable_host_check"`
	DisableCORS          bool     `json:"disable_cors"`
	MaxBodyBytes         int64    `json:"max_body_bytes"`
	MaxConnections       int      `json:"max_connections"`
	MaxSessions          int      `json:"max_sessions"`
	SessionIdleTimeoutMs int64    `json:"session_idle_timeout_ms"`
	WriteTimeoutMs       int64    `json:"write_timeout_ms"`
	ReadTimeoutMs        int64    `json:"read_timeout_ms"`
	KeepAliveMs          int64    `json:"keep_alive_ms"`
	StreamAfterMs        int64    `json:"stream_after_ms"`
}

func ms(v int64) time.Duration {
	if v < 0 {
		return -1
	}
	return time.Duration(v) * time.Millisecond
}

func (c *HTTPConfig) options(s *Server) *streamhttp.Options {
	return &streamhttp.Options{Path: c.Path, DisableSSE: c.DisableSSE, AllowedOriginHosts: c.AllowedOriginHosts,
		AllowedHosts: c.AllowedHosts, DisableHostCheck: c.DisableHostCheck, DisableCORS: c.DisableCORS,
		MaxBodyBytes: c.MaxBodyBytes, MaxConnections: c.MaxConnections, MaxSessions: c.MaxSessions,
		SessionIdleTimeout: ms(c.SessionIdleTimeoutMs), WriteTimeout: ms(c.WriteTimeoutMs),
		ReadTimeout: ms(c.ReadTimeoutMs), KeepAlive: ms(c.KeepAliveMs), StreamAfter: ms(c.StreamAfterMs),
		Logger: s.log}
}

// ServeHTTP binds the address of the options and serves Streamable HTTP
// (and 2024-11-05 HTTP+SSE) there in the background. It returns the
// endpoint's URL with the real port.
func ServeHTTP(h uint64, options []byte) (string, error) {
	var cfg HTTPConfig
	if err := decodeStrict(options, "http options", &cfg); err != nil {
		return "", err
	}
	s, err := openServer(h)
	if err != nil {
		return "", err
	}
	l, err := listen(s, &cfg)
	if err != nil {
		return "", err
	}
	err = s.startTransport("http", func(ctx context.Context) error {
		// Close, not Shutdown: closing the server cancels the calls in
		// flight rather than waiting for the host to answer them.
		stop := context.AfterFunc(ctx, func() { _ = l.Close() })
		defer stop()
		return l.Wait()
	})
	if err != nil {
		_ = l.Close()
		return "", err
	}
	return l.URL(), nil
}

func listen(s *Server, cfg *HTTPConfig) (l *streamhttp.Listener, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errorf(EInvalid, "http options: %v", r)
		}
	}()
	l, err = s.srv.ListenHTTP(context.Background(), cfg.Addr, cfg.options(s))
	switch {
	case err == nil:
		return l, nil
	case isInvalidOptions(err):
		return nil, errorf(EInvalid, "http options: %v", err)
	}
	return nil, errorf(EIO, "http: %v", err)
}

// engine returns the server's Engine for host-owned HTTP, made on first use
// with the "http" member of the server's options.
func (s *Server) engine() (*streamhttp.Engine, error) {
	s.engineOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				s.engineErr = errorf(EInvalid, "http options: %v", r)
			}
		}()
		// HTTPHandler builds the Engine over the server's own dispatcher,
		// so the Mcp-Param header checks see the registered tools.
		h := s.srv.HTTPHandler(s.httpCfg.options(s))
		s.eng = h.(*streamhttp.Handler).Engine()
	})
	if s.eng == nil && s.engineErr == nil {
		return nil, errorf(EClosed, "server %#x is closed", s.handle)
	}
	return s.eng, s.engineErr
}

// HTTPRequest is polymcp_server_http's request JSON; the body travels
// beside it as bytes.
type HTTPRequest struct {
	Method    string                  `json:"method"`
	Path      string                  `json:"path"`
	Query     string                  `json:"query"`
	Headers   map[string]stringOrList `json:"headers"`
	Host      string                  `json:"host"`
	LocalAddr string                  `json:"local_addr"`
}

// stringOrList reads a header value given as "v" or ["v1","v2"].
type stringOrList []string

func (v *stringOrList) UnmarshalJSON(b []byte) error {
	if firstByte(b) == '[' {
		return jsonrpc.Unmarshal(b, (*[]string)(v))
	}
	var s string
	if err := jsonrpc.Unmarshal(b, &s); err != nil {
		return err
	}
	*v = []string{s}
	return nil
}

// HTTPOutput receives one exchange's response. Start comes once, then any
// number of Write and Flush, then End, the exchange's last callback.
type HTTPOutput interface {
	Start(status int, headers []byte)
	Write(chunk []byte)
	Flush()
	End(code Code)
}

// exchange is one polymcp_http_t: a request being executed.
type exchange struct {
	handle uint64
	out    HTTPOutput
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

var exchanges = newTable[exchange](kindHTTP)

// HTTP runs one host-owned HTTP request through the same Prepare/Execute
// as the library's own listener. A request Prepare answers at once (an
// error, a 202) is written before HTTP returns; the rest runs in the
// background and ends with End. The handle lets the host cancel it.
func HTTP(h uint64, request, body []byte, out HTTPOutput) (uint64, error) {
	var req HTTPRequest
	if err := decodeDef(request, "http request", &req); err != nil {
		return 0, err
	}
	s, err := openServer(h)
	if err != nil {
		return 0, err
	}
	e, err := s.engine()
	if err != nil {
		return 0, err
	}
	header := make(http.Header, len(req.Headers))
	for k, v := range req.Headers {
		header[http.CanonicalHeaderKey(k)] = v
	}
	r := &streamhttp.Request{Method: req.Method, Path: req.Path, RawQuery: req.Query,
		Header: header, Host: req.Host, Body: body, LocalAddr: req.LocalAddr}
	p, resp := e.Prepare(r)
	done, err := s.track()
	if err != nil {
		return 0, err
	}
	ex := &exchange{out: out}
	ex.ctx, ex.cancel = context.WithCancel(context.Background())
	ex.handle = exchanges.add(ex)
	o := &hostOutput{ex: ex, cors: e.CORSHeader(r)}
	if resp != nil {
		ex.finish(writeResponse(o, resp))
		done()
		return ex.handle, nil
	}
	go func() {
		defer done()
		ex.finish(e.Execute(ex.ctx, p, o))
	}()
	return ex.handle, nil
}

func writeResponse(o *hostOutput, r *streamhttp.Response) error {
	if err := o.Start(r.Status, r.Header); err != nil {
		return err
	}
	if len(r.Body) > 0 {
		if err := o.Write(r.Body); err != nil {
			return err
		}
	}
	return o.Flush()
}

func (ex *exchange) finish(err error) {
	ex.once.Do(func() {
		exchanges.remove(ex.handle)
		code := OK
		switch {
		case err == nil:
		case ex.ctx.Err() != nil:
			code = EClosed
		default:
			code = EIO
		}
		ex.cancel()
		ex.out.End(code)
	})
}

// CancelHTTP tells the library the client of exchange h went away: its
// handler is cancelled (2026-07-28) or its answer kept for resumption
// (legacy), and End follows.
func CancelHTTP(h uint64) error {
	ex, err := exchanges.get(h, EUnknownCall, "has ended")
	if err != nil {
		return err
	}
	ex.cancel()
	return nil
}

// hostOutput adapts an exchange to streamhttp.Output. Once the host
// cancelled, writes fail, which stops a stream.
type hostOutput struct {
	ex   *exchange
	cors http.Header // added to the head (Engine.CORSHeader), or nil
}

func (o *hostOutput) Start(status int, header http.Header) error {
	if err := o.ex.ctx.Err(); err != nil {
		return err
	}
	if o.cors != nil {
		// The answer's own headers win, as over net/http (a preflight's Vary).
		merged := make(http.Header, len(header)+len(o.cors))
		for _, h := range [...]http.Header{o.cors, header} {
			for k, v := range h {
				merged[k] = v
			}
		}
		header = merged
	}
	b, err := jsonrpc.Marshal(header)
	if err != nil {
		return err
	}
	o.ex.out.Start(status, b)
	return nil
}

func (o *hostOutput) Write(chunk []byte) error {
	if err := o.ex.ctx.Err(); err != nil {
		return err
	}
	o.ex.out.Write(chunk)
	return nil
}

func (o *hostOutput) Flush() error {
	if err := o.ex.ctx.Err(); err != nil {
		return err
	}
	o.ex.out.Flush()
	return nil
}

func isInvalidOptions(err error) bool { return errors.Is(err, streamhttp.ErrInvalidOptions) }
