// Package load drives an MCP server with echo tool calls, keeping a fixed
// number of requests in flight, and measures what comes back.
//
// The engine is transport-agnostic: it talks to a ClientTransport, which the
// stdio and httpc packages implement.
package load

import "time"

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

// Handshaker is a ClientTransport that opens the MCP session itself, because
// the handshake is not only messages (HTTP carries session and version in
// headers, and 2026-07-28 has no initialize at all). The driver calls it in
// place of the package's Handshake, before Run.
type Handshaker interface {
	Handshake(timeout time.Duration) (ServerInfo, error)
}

// CallMetaer is a ClientTransport whose tools/call requests need a
// params._meta; Run's caller copies it into Config.CallMeta.
type CallMetaer interface {
	CallMeta() string
}
