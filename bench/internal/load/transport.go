// Package load drives an MCP server with echo tool calls, keeping a fixed
// number of requests in flight, and measures what comes back.
//
// The engine is transport-agnostic: it talks to a ClientTransport, which the
// stdio package implements today and a Streamable HTTP client can implement
// tomorrow without touching the engine.
package load

// ClientTransport is the client end of one MCP connection.
//
// Send and Flush are called from one goroutine (the writer), Recv from
// another (the reader), concurrently with each other. Close may be called
// from any goroutine, once; it makes a blocked Recv return an error.
type ClientTransport interface {
	// Send queues one JSON-RPC message, given without a trailing newline.
	// It must not retain frame after it returns.
	Send(frame []byte) error
	// Flush delivers everything queued. The writer calls it whenever it
	// would otherwise block, so a transport that sends each message at once
	// can make it a no-op.
	Flush() error
	// Recv returns the next message from the server. The slice is valid
	// until the next call to Recv.
	Recv() ([]byte, error)
	// Close ends the connection.
	Close() error
}
