package streamhttp

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport"
)

// DefaultAddr is where Listen binds when addr is empty: loopback, a port
// the system picks. An addr with an empty host (":8080") binds loopback
// too; serving other machines takes an explicit host such as "0.0.0.0".
const DefaultAddr = "127.0.0.1:0"

// Listener is polymcp's own HTTP server for an Engine, with the limits of
// Options: header size (431), header and body read timeouts, per-write
// timeouts, idle keep-alive timeout and a connection cap (503).
type Listener struct {
	e    *Engine
	hs   *http.Server
	ln   net.Listener
	url  string
	done chan struct{}
	err  error

	stopOnce sync.Once
	stopErr  error
}

// Listen binds addr and serves srv on it until ctx ends (then it drains
// for up to Options.ShutdownTimeout) or Shutdown or Close is called.
func Listen(ctx context.Context, addr string, srv transport.Server, opts *Options) (*Listener, error) {
	e, err := New(srv, opts)
	if err != nil {
		return nil, err
	}
	return e.Listen(ctx, addr)
}

// Listen serves e on addr; see the package-level Listen.
func (e *Engine) Listen(ctx context.Context, addr string) (*Listener, error) {
	addr, err := bindAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &Listener{e: e, ln: newLimitListener(ln, e.o.MaxConnections, e.o.RetryAfter), done: make(chan struct{})}
	l.url = "http://" + urlHost(ln.Addr()) + e.o.Path
	l.hs = &http.Server{
		Handler:           e.Handler(),
		MaxHeaderBytes:    e.o.MaxHeaderBytes,
		ReadHeaderTimeout: e.o.ReadHeaderTimeout,
		ReadTimeout:       e.o.ReadTimeout,
		IdleTimeout:       e.o.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(e.o.Logger.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(l.done)
		if err := l.hs.Serve(l.ln); !errors.Is(err, http.ErrServerClosed) {
			l.err = err
		}
	}()
	context.AfterFunc(ctx, func() { _ = l.Shutdown(context.Background()) })
	return l, nil
}

func bindAddr(addr string) (string, error) {
	if addr == "" {
		return DefaultAddr, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// urlHost names a bound address in a URL a local client can use.
func urlHost(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	ip := ta.IP
	switch {
	case ip.IsUnspecified() && ip.To4() != nil:
		ip = net.IPv4(127, 0, 0, 1)
	case ip.IsUnspecified():
		ip = net.IPv6loopback
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(ta.Port))
}

// URL is the endpoint's URL with the real port, e.g. http://127.0.0.1:41234/mcp.
func (l *Listener) URL() string { return l.url }

// Addr is the bound address.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Engine returns the Engine the Listener serves.
func (l *Listener) Engine() *Engine { return l.e }

// Shutdown stops accepting, ends long streams gracefully (Engine.Drain) and
// waits for the requests in flight, until ctx ends or ShutdownTimeout
// passes; then it closes what is left. It returns once serving stopped.
func (l *Listener) Shutdown(ctx context.Context) error {
	l.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, l.e.o.ShutdownTimeout)
		defer cancel()
		l.e.Drain()
		if err := l.hs.Shutdown(ctx); err != nil {
			l.stopErr = err
			_ = l.hs.Close()
		}
		l.e.Close()
	})
	<-l.done
	return l.stopErr
}

// Close stops at once: connections are closed and every call cancelled.
func (l *Listener) Close() error {
	l.stopOnce.Do(func() {
		l.e.Close()
		l.stopErr = l.hs.Close()
	})
	<-l.done
	return l.stopErr
}

// Wait blocks until the Listener stopped and returns why it failed, or nil
// after Shutdown or Close.
func (l *Listener) Wait() error {
	<-l.done
	return l.err
}

// maxRefusing bounds the goroutines answering 503 to connections over
// the cap; beyond it they are closed without an answer.
const maxRefusing = 16

// limitListener caps open connections at max.
type limitListener struct {
	net.Listener
	slots      chan struct{}
	refusing   chan struct{}
	retryAfter time.Duration
}

func newLimitListener(ln net.Listener, max int, retryAfter time.Duration) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max),
		refusing: make(chan struct{}, maxRefusing), retryAfter: retryAfter}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			l.refuse(c)
		}
	}
}

// refuse answers 503 to a connection over the cap without reading its
// request, then closes it after the client had a moment to read.
func (l *limitListener) refuse(c net.Conn) {
	select {
	case l.refusing <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		body := jsonrpc.AppendError(nil, jsonrpc.NullID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: "too many connections; retry later"})
		resp := "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n" +
			"Retry-After: " + strconv.Itoa(int(max(l.retryAfter.Seconds(), 1))) + "\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)
		_ = c.SetDeadline(time.Now().Add(time.Second))
		if _, err := c.Write([]byte(resp)); err != nil {
			return
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		// Drain what the client sent so that closing does not reset the
		// connection before the answer is read.
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	}()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite lets net/http half-close the connection when it can.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
