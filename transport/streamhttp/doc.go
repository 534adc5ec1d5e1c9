// Package streamhttp serves MCP over HTTP: Streamable HTTP for every
// revision (the stateless 2026-07-28 shape and the session shape of
// 2025-03-26 … 2025-11-25) and, mounted beside it, the 2024-11-05 HTTP+SSE
// transport of package sse. Every request goes through the one dispatcher.
//
// It has three layers, each usable alone:
//
//	Engine    Prepare(*Request) → *Prepared | *Response   no sockets: plain structs in,
//	          Execute(ctx, *Prepared, Output)             status, headers and a JSON body
//	                                                      or SSE events out (the C ABI's entry)
//	Handler   net/http.Handler over an Engine; ServeBody for a body already read
//	Listener  its own server: 127.0.0.1 by default, limits, graceful drain
//
// A request passes, in order: the Host and Origin checks (421, 403), the
// path and method (404, 405), media types (415, 406), the body size (413),
// JSON decoding (400, -32700), the choice of revision (the
// MCP-Protocol-Version header, else params._meta, else 2025-03-26), and
// then either the 2026-07-28 header checks (400, -32020) or the legacy
// session lookup (400, 404). Execute hands the body to a dispatch session:
// a fresh one per POST at 2026-07-28, the session's own on the legacy
// revisions. The answer is sent as JSON when it comes first, otherwise as an
// SSE stream of the request's notifications ending with the answer; on the
// legacy revisions such a stream is kept in an sse.Store so that a client
// that lost it resumes with Last-Event-ID.
//
// Serving an mcp.Server:
//
//	l, err := srv.ListenHTTP(ctx, "127.0.0.1:0", nil)
//	fmt.Println(l.URL()) // http://127.0.0.1:41234/mcp
//
// Every limit is a field of Options with a default; docs/transports.md
// lists each with the error it produces.
package streamhttp
