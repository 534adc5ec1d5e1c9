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
	// DefaultInlineBudget is how long a handler may run on the goroutine
	// that reads input before reading moves on to another goroutine.
	DefaultInlineBudget = time.Millisecond
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
	// InlineBudget is how long a call may run on the goroutine that reads
	// input (see the package documentation, "Calls") before reading is
	// handed to another goroutine, which happens after one to two budgets
	// (the check ticks once a budget); zero means DefaultInlineBudget. A
	// negative value runs every call on the executor's workers instead,
	// each answer written as soon as it is ready.
	InlineBudget time.Duration
	// Logger receives the transport's diagnostics; nil means slog.Default().
	// It must not write to stdout.
	Logger *slog.Logger
	// Batch, if set, lets the caller gather what it sends in one go into
	// one write (see Batch).
	Batch *Batch
	// Pump, if set, has the caller's thread do the reading instead of a
	// goroutine of Serve's (see Pump); the input must be a descriptor.
	Pump *Pump
	// StdoutToStderr, for ServeFD with outFD 1 (on Unix): while it serves,
	// descriptor 1 points where descriptor 2 does and the protocol goes to
	// a duplicate of the real stdout, so that what the program prints to
	// stdout lands on stderr instead of between the protocol lines.
	// Descriptor 1 is put back once the last server using it returns.
	// ServeProcess always does this.
	StdoutToStderr bool
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
	if c.InlineBudget == 0 {
		c.InlineBudget = DefaultInlineBudget
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
