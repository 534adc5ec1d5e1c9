// Package stdio is MCP's stdio transport: one JSON-RPC message per line on
// the server's standard input and output.
//
// [Serve] runs a session over any reader and writer; [ServeProcess] runs it
// over the process's own stdin and stdout in a way that is safe inside a host
// that loads polymcp as a shared library (see its documentation for why it
// never writes through os.Stdout). [Spawn] is the other side: it starts a
// server as a subprocess and talks to it line by line.
//
// # Input
//
// Lines are split by a [LineReader]: '\n' ends a line, a trailing '\r' is
// dropped, blank lines are skipped and a UTF-8 byte order mark before the
// first line is ignored. A line longer than MaxLineBytes is answered with an
// Invalid Request error carrying a null id and thrown away without being
// buffered; the next line is read as usual.
//
// # Calls
//
// The goroutine that reads a request runs its handler itself, holding the
// answer until the input has no more buffered lines (or 64 have been
// handled), so a burst of pipelined calls is answered with one write and
// no goroutine switch per call. A handler that runs longer than
// InlineBudget hands the reading to another goroutine within a second
// budget, and one that calls Detach on its request because it is about to
// wait (the C ABI's hosts do, as do questions to the client) at once: a
// slow call delays the lines behind it by at most two budgets, and any
// number of calls run at once, within the executor's bounds, as before. A negative budget hands every call to the
// executor's workers instead.
//
// [ServeFD] reads its input outside Go's poller and waits for it in
// poll(2), which keeps the runtime's sysmon from waking every 20 µs under
// bursty load (with a single P it parks in the poller instead). With
// Options.Pump no goroutine reads at all: the host's own event loop polls
// the input and calls [Pump.Read], which handles a burst of lines on the
// host's thread (see [Pump]).
//
// # Output
//
// Every message is written as one line made pure ASCII (non-ASCII text
// becomes \u escapes), one write at a time, each carrying whatever messages
// are queued. The reading goroutine writes its held answers itself when
// no write is under way and the output has deadlines (stdout as a pipe);
// a writer goroutine writes the rest. Stdout carries nothing else; the
// transport's own diagnostics go to its slog logger. A write that makes no
// progress for WriteTimeout ends the transport: a peer that stopped reading
// must not pin the session's memory and calls forever.
//
// # Shutdown
//
// End of input or cancellation of the context closes the session (which
// cancels the calls in flight), writes out what is queued and returns nil.
package stdio
