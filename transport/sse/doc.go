// Package sse holds polymcp's Server-Sent Events pieces: the event encoding
// every HTTP transport shares, the bounded event store behind Last-Event-ID
// resumption, and the 2024-11-05 "HTTP+SSE" transport.
//
// # Encoding
//
// [AppendEvent], [AppendPriming] and [AppendComment] write events that no
// input can split or forge: line breaks in data become separate data lines,
// line breaks in ids and event names are dropped. [Header] is the header set
// of every SSE response.
//
// # Resumption (Streamable HTTP, 2025-03-26 and later)
//
// A [Store] is the event log of one stream: [Store.Append] assigns each
// event an id "<stream>-<seq>", [Store.After] and [Store.Wait] replay what
// follows a Last-Event-ID, and [StreamOf] tells which stream an id belongs
// to. It holds a bounded number of events and bytes, dropping the oldest.
//
// # 2024-11-05 HTTP+SSE
//
// The client opens a GET stream ([Server.Stream]). Its first event is
// "endpoint", whose data is the URL to POST messages to
// (messagePath?sessionId=<id>). Each POST ([Server.Post]) is answered
// 202 Accepted at once; the JSON-RPC answer, and every other message of the
// session, arrive as "message" events on the GET stream. Closing the stream
// ends the session and cancels its calls: this revision has no resumption.
//
// # Client side
//
// [Reader] parses a text/event-stream (bounded; the Streamable HTTP client
// reads its replies with it), and [Dial] is the client of the 2024-11-05
// transport: a transport.ClientConn that reads the GET stream's "message"
// events and POSTs each message to the endpoint the first event named,
// which must be on the stream's origin.
//
// The server side does no HTTP itself and no security checks: transport/streamhttp
// mounts it (by default on /sse and /message) behind the same Origin and Host
// checks, body limits and listener as Streamable HTTP.
//
//	GET /sse ─► Stream: session, "endpoint" event, then "message" events
//	POST /message?sessionId=… ─► Post: Deliver to that session ─► 202
package sse
