package streamhttp

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Defaults of Options. Every limit answers with the status (and JSON-RPC
// error) listed in docs/transports.md.
const (
	DefaultPath        = "/mcp"
	DefaultSSEPath     = "/sse"
	DefaultMessagePath = "/message"

	// DefaultMaxBodyBytes bounds a POST body (413), as stdio bounds a line.
	DefaultMaxBodyBytes = 2_000_000
	// DefaultMaxHeaderBytes bounds the request line and headers (431); Listener only.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultReadHeaderTimeout cuts off a client that sends headers too slowly; Listener only.
	DefaultReadHeaderTimeout = 5 * time.Second
	// DefaultReadTimeout bounds reading one request body.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle that long; Listener only.
	DefaultIdleTimeout = 120 * time.Second
	// DefaultWriteTimeout bounds one write to a client; a stuck client loses its stream.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultMaxConnections bounds open connections (503 beyond); Listener only.
	DefaultMaxConnections = 1024
	// DefaultMaxSessions bounds legacy sessions (and, separately, 2024-11-05 streams); 503 beyond.
	DefaultMaxSessions = 1024
	// DefaultSessionIdleTimeout expires a legacy session nobody used that long (404 afterwards).
	DefaultSessionIdleTimeout = 10 * time.Minute
	// DefaultKeepAlive is the interval of ": keepalive" comments on SSE streams.
	DefaultKeepAlive = 15 * time.Second
	// DefaultStreamAfter is how long a request may go unanswered before its
	// reply becomes an SSE stream (keep-alives; on 2025-11-25 a priming event
	// that makes the answer resumable after a disconnect).
	DefaultStreamAfter = time.Second
	// DefaultSSERetry is the reconnection delay announced in 2025-11-25 priming events.
	DefaultSSERetry = time.Second
	// DefaultMaxStreamEvents and DefaultMaxStreamBytes bound the events kept per
	// SSE stream, for replay after Last-Event-ID and for a client reading slowly.
	DefaultMaxStreamEvents = 256
	DefaultMaxStreamBytes  = 1 << 20
	// DefaultMaxStoredStreams bounds the resumable streams kept per legacy session.
	DefaultMaxStoredStreams = 64
	// DefaultRetryAfter is the Retry-After of 503 answers.
	DefaultRetryAfter = time.Second
	// DefaultShutdownTimeout is how long a Listener drains when its context ends.
	DefaultShutdownTimeout = 5 * time.Second
)

// Options configure the Engine, the Handler and the Listener. A nil
// *Options, and every zero field, select the defaults above. Durations that
// may be switched off say so; negative means off for them.
type Options struct {
	// Path is the Streamable HTTP endpoint (default "/mcp").
	Path string
	// SSEPath and MessagePath are the 2024-11-05 HTTP+SSE endpoints (default
	// "/sse" and "/message"); DisableSSE turns that transport off.
	SSEPath, MessagePath string
	DisableSSE           bool

	// AllowedOriginHosts lists the non-loopback origins accepted besides
	// http(s)://localhost, 127.0.0.1 and [::1] on any port: "example.com"
	// (any port), "example.com:8443" (that port only), optionally with a
	// scheme to pin it ("https://example.com").
	AllowedOriginHosts []string
	// AllowedHosts lists the Host header values accepted besides localhost,
	// 127.0.0.1 and [::1] on any port, in the same form (no scheme). The Host
	// check applies to connections arriving on a loopback address (or when
	// the local address is unknown), and to every connection once
	// AllowedHosts is set. DisableHostCheck turns it off entirely.
	AllowedHosts     []string
	DisableHostCheck bool
	// DisableCORS turns off the CORS answers to browser pages of allowed
	// origins (see Engine.CORSHeader): OPTIONS then gets 405.
	DisableCORS bool

	MaxBodyBytes      int64
	MaxHeaderBytes    int
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
	WriteTimeout      time.Duration
	MaxConnections    int

	MaxSessions        int
	SessionIdleTimeout time.Duration

	// KeepAlive is the keep-alive interval on SSE streams (negative: none).
	KeepAlive time.Duration
	// StreamAfter switches an unanswered request's reply from JSON to SSE
	// (negative: only request-scoped notifications do). A reply is SSE
	// anyway as soon as a notification (progress, log) precedes the answer.
	StreamAfter time.Duration
	// SSERetry is the retry field of priming events (negative: omitted).
	SSERetry         time.Duration
	MaxStreamEvents  int
	MaxStreamBytes   int
	MaxStoredStreams int
	RetryAfter       time.Duration
	// ShutdownTimeout bounds the drain when a Listener's context ends.
	ShutdownTimeout time.Duration

	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// withDefaults returns a copy of o with every unset field filled in, after
// checking the fields that cannot be defaulted.
func (o *Options) withDefaults() (Options, error) {
	var c Options
	if o != nil {
		c = *o
	}
	str(&c.Path, DefaultPath)
	str(&c.SSEPath, DefaultSSEPath)
	str(&c.MessagePath, DefaultMessagePath)
	num(&c.MaxBodyBytes, DefaultMaxBodyBytes)
	num(&c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	num(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	num(&c.ReadTimeout, DefaultReadTimeout)
	num(&c.IdleTimeout, DefaultIdleTimeout)
	num(&c.WriteTimeout, DefaultWriteTimeout)
	num(&c.MaxConnections, DefaultMaxConnections)
	num(&c.MaxSessions, DefaultMaxSessions)
	num(&c.SessionIdleTimeout, DefaultSessionIdleTimeout)
	num(&c.MaxStreamEvents, DefaultMaxStreamEvents)
	num(&c.MaxStreamBytes, DefaultMaxStreamBytes)
	num(&c.MaxStoredStreams, DefaultMaxStoredStreams)
	num(&c.RetryAfter, DefaultRetryAfter)
	num(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.KeepAlive == 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.StreamAfter == 0 {
		c.StreamAfter = DefaultStreamAfter
	}
	if c.SSERetry == 0 {
		c.SSERetry = DefaultSSERetry
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, c.check()
}

func (c *Options) check() error {
	paths := []string{c.Path}
	if !c.DisableSSE {
		paths = append(paths, c.SSEPath, c.MessagePath)
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#") {
			return fmt.Errorf("%w: path %q must start with / and hold no query", ErrInvalidOptions, p)
		}
		if seen[p] {
			return fmt.Errorf("%w: path %q is used twice", ErrInvalidOptions, p)
		}
		seen[p] = true
	}
	if _, err := parseRules(c.AllowedOriginHosts, true); err != nil {
		return err
	}
	if _, err := parseRules(c.AllowedHosts, false); err != nil {
		return err
	}
	return nil
}

// ErrInvalidOptions wraps every error New returns for bad Options.
var ErrInvalidOptions = errors.New("streamhttp: invalid options")

func str(p *string, def string) {
	if *p == "" {
		*p = def
	}
}

func num[T int | int64 | time.Duration](p *T, def T) {
	if *p <= 0 {
		*p = def
	}
}
