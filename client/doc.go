// Package client is polymcp's MCP client: it speaks every revision from
// 2024-11-05 to 2026-07-28 to a server over any transport.ClientConn (a
// spawned process's stdio, Streamable HTTP, an in-process server).
//
// Connect negotiates the revision. By default it probes with
// server/discover (2026-07-28, stateless: every request then carries its
// version and capabilities in params._meta) and falls back to the legacy
// initialize handshake when the server does not answer as a modern one;
// Options.Revision pins one revision instead.
//
// Requests are matched to answers by id and may run concurrently. A
// request whose context ends is abandoned: the server is told
// (notifications/cancelled, or on Streamable HTTP 2026-07-28 the closing
// of its stream) and an answer arriving later is dropped. The server's
// questions to the user (sampling, elicitation, roots) go to the handlers
// of Options in both eras: as server-to-client requests on the legacy
// revisions, and as input_required results on 2026-07-28, which the client
// answers by retrying the request with inputResponses.
package client
