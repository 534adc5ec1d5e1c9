package sse

import (
	"log/slog"
	"time"
)

// Defaults of Options.
const (
	// DefaultMaxSessions bounds open streams (one session each); beyond it
	// Stream answers 503 with Retry-After (ErrTooManySessions).
	DefaultMaxSessions = 1024
	// DefaultKeepAlive is the interval of keep-alive comments on a stream,
	// so that proxies and clients do not time an idle stream out.
	DefaultKeepAlive = 15 * time.Second
	// DefaultMaxQueueBytes bounds the messages waiting for a slow client;
	// a message that would go beyond it closes the stream and its session
	// (ErrSlowClient). One message larger than the bound still goes out
	// when nothing else is waiting.
	DefaultMaxQueueBytes = 4 << 20
	// DefaultWriteTimeout bounds one write to the client (status and
	// headers, or a batch of events, and its flush); a client that does not
	// read for that long loses its stream and session (ErrWriteTimeout).
	DefaultWriteTimeout = 10 * time.Second
)

// retryAfter is the Retry-After of a 503, in seconds.
const retryAfter = "1"

// Options configure a Server; nil or zero fields mean the defaults.
type Options struct {
	// MaxSessions is the most open streams; see DefaultMaxSessions.
	MaxSessions int
	// KeepAlive is the keep-alive interval; negative disables keep-alives.
	KeepAlive time.Duration
	// MaxQueueBytes bounds a stream's backlog; see DefaultMaxQueueBytes.
	MaxQueueBytes int
	// WriteTimeout bounds each write; negative disables it (not advised).
	WriteTimeout time.Duration
	// Logger receives why streams ended early, at debug level.
	Logger *slog.Logger
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.MaxQueueBytes <= 0 {
		c.MaxQueueBytes = DefaultMaxQueueBytes
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
