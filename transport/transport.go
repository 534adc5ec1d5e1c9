// Package transport holds the contract between polymcp's transports (stdio,
// Streamable HTTP, HTTP+SSE, in-memory, the C ABI's host-owned entry points)
// and the one dispatcher they all drive.
//
// A transport frames bytes into messages and hands each frame to a Session;
// the session answers through a Sink. Every transport uses the same Session
// implementation (core/dispatch), so there is one method table and one
// initialize for all of them.
package transport

import "context"

// Sink receives encoded JSON-RPC messages, one complete message per call,
// without a trailing newline. The sender never changes msg's bytes after
// Send, so a sink may keep it without a copy (one message may go to several
// sinks: none may change it either). Send must be safe for concurrent use.
// An error means the message could not be delivered; the session then stops
// using the sink for anything but further attempts that will fail the same
// way.
type Sink interface {
	Send(msg []byte) error
}

// Copier is implemented by a Sink that is done with msg when Send returns,
// having copied what it needs (stdio's output queue, the in-memory
// transport, a C host's send callback). For such a sink the sender may
// reuse msg's buffer afterwards: the dispatcher encodes answers to it into
// one buffer it recycles, rather than a new one per answer.
type Copier interface {
	Sink
	// CopiesMessages marks the sink; it does nothing.
	CopiesMessages()
}

// AnswerCopier is implemented by a Sink that is done with a request's
// answer when Send returns, having copied it, but keeps the other messages
// it is sent as they are (a Streamable HTTP reply, whose notifications are
// made afresh for it anyway). The dispatcher encodes answers to it into a
// recycled buffer, as for a Copier.
type AnswerCopier interface {
	Sink
	// CopiesAnswers marks the sink; it does nothing.
	CopiesAnswers()
}

// Abandoner is implemented by a Sink that must learn when the request it
// was given for will get no answer at all (the client cancelled it, the
// session closed): a Streamable HTTP reply then ends its response instead
// of holding it open for an answer that never comes. The dispatcher calls
// Abandon at most once per request, and sends nothing more for it after.
type Abandoner interface {
	Abandon()
}

// Inliner is implemented by a Sink whose transport waits for the answer on
// the goroutine that called Deliver (an HTTP request's goroutine, which has
// nothing else to do). The dispatcher may then run the request's handler on
// that goroutine, inside Deliver, rather than hand it to a worker and its
// answer back. It brackets the handler with Inline(true) before it starts
// and Inline(false) once it has returned, before its answer is sent; a
// message sent in between comes from the running handler (progress) or from
// a deadline or cancellation while it runs, and the sink must have it
// written by another goroutine, since the one that would write it is busy.
// Deliver then returns only after the handler has.
type Inliner interface {
	Inline(running bool)
}

// HostThread is implemented by an Inliner whose goroutine is a host's
// event-loop thread (stdio read through a Pump): it must never wait for
// work that may need that thread. A request that the executor has to
// queue then runs on a worker when its turn comes instead of inline, and
// nothing takes over the thread's reading, so Detach does nothing.
type HostThread interface {
	Inliner
	OnHostThread()
}

// Detacher is implemented by an Inliner whose delivering goroutine has
// other work to get back to (stdio's reader, which has the next lines to
// read). Detach, called while a handler runs inline, hands that work to
// another goroutine at once: the handler goes on where it is, and the
// messages behind it are no longer held up. A handler about to wait (for a
// C ABI host, for the client's answer to a question) calls it; stdio also
// detaches by itself a handler that runs too long. Detach at any other
// moment does nothing harmful.
type Detacher interface {
	Detach()
}

// Deferrable is implemented by a Sink that takes a request's answer after
// Deliver has returned, from any goroutine or thread (a C ABI host's,
// completing the call), without calling out of the library: stdio's
// output queue. A handler whose answer comes from elsewhere may then
// return before it (router.Request.Defer) instead of keeping a goroutine
// blocked until it comes.
type Deferrable interface {
	Sink
	// TakesLateAnswers marks the sink; it does nothing.
	TakesLateAnswers()
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(msg []byte) error

// Send calls f(msg).
func (f SinkFunc) Send(msg []byte) error { return f(msg) }

// Info describes the connection a session serves.
type Info struct {
	// Name is the transport's name for logs: "stdio", "http", "memory", "capi".
	Name string
	// Batches reports whether the framing can carry a JSON array of messages
	// (JSON-RPC batches; only the 2025-03-26 revision accepts them).
	Batches bool
	// Revision, when set, is the revision the transport fixed for every
	// message of this session (HTTP's MCP-Protocol-Version header).
	Revision string
}

// Session is one connection's view of the dispatcher.
type Session interface {
	// Deliver handles one frame (one JSON text, already split by the
	// transport). The session owns frame from then on: the transport must
	// not reuse its bytes. It returns quickly: handlers run on the executor, and their
	// replies and request-scoped notifications go to reply, possibly later
	// and from other goroutines (unless reply is an Inliner, see there).
	// Deliver is safe for concurrent use, with Close too: a frame
	// delivered once Close has begun is dropped, and a call it starts is
	// either cancelled by Close or never runs (stdio's reader races its own
	// shutdown this way).
	Deliver(ctx context.Context, frame []byte, reply Sink)
	// Close cancels every call in flight. When it returns, the session makes
	// no further Send on any sink it was given. Close is idempotent.
	Close()
}

// Server creates sessions. out receives messages not tied to one request
// (list_changed, legacy log messages, server-to-client requests).
type Server interface {
	NewSession(info Info, out Sink) Session
}
