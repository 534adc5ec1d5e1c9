package stdio

import (
	"log/slog"
	"time"
)

// Defaults of Options.
const (
	// DefaultMaxLineBytes bounds one incoming message.
	DefaultMaxLineBytes = 2_000_000
	// DefaultWriteTimeout is how long a write may make no progress before
	// the peer is taken to have stopped reading.
	DefaultWriteTimeout = 5 * time.Second
)

// queueBytes bounds the output waiting for the writer. Senders block beyond
// it, which pushes back on handlers and, through them, on the reader.
const queueBytes = 1 << 20

// Options configure Serve. The zero value, like a nil *Options, selects the
// defaults.
type Options struct {
	// MaxLineBytes is the longest accepted input line, without its line
	// ending; zero or negative means DefaultMaxLineBytes.
	MaxLineBytes int
	// WriteTimeout is how long one write may block; zero or negative means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Logger receives the transport's diagnostics; nil means slog.Default().
	// It must not write to stdout.
	Logger *slog.Logger
}

// withDefaults returns a copy of o with every unset field filled in.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxLineBytes <= 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
