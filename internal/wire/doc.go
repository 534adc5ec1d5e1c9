// Package wire replays literal MCP wire transcripts against a server and
// checks every message the server emits against the official JSON Schema of
// the transcript's revision.
//
// A transcript is a txtar archive. Its comment names the revision and cites
// the spec section the vector checks; its one file, "session", holds the
// conversation as literal JSON lines:
//
//	spec: basic/lifecycle#initialization
//	-- session --
//	# comments and blank lines are ignored
//	> {"jsonrpc":"2.0","id":1,"method":"ping"}
//	< {"jsonrpc":"2.0","id":1,"result":{}}
//
// A "> " line is written to the server byte for byte. A run of "< " lines is
// one group of expected messages: the runner reads until each has arrived,
// and fails on any message that matches none of them. Responses in a group
// may arrive in any order (concurrent requests finish when they finish);
// notifications must arrive in the order written. Expected and received
// messages are compared as JSON values (key order is free, nothing else is):
// the only tolerance is a value written as one of the placeholders "<any>",
// "<string>" or "<number>", or a capture: "<?name>" matches any string and
// names it, "<=name>" then matches only that string, and stands for it in
// the lines sent after (a task id, say). A message that is an array (a batch answer)
// matches item by item in any order, as JSON-RPC allows.
//
// A "! schema: <reason>" line before a "< " line records that the message
// is known to break the revision's schema; the run then demands that
// failure, so the mark must go once the server is fixed.
//
// Play runs a transcript over a Conn, the two-method view of a client
// connection that the in-process, stdio and HTTP transports all provide, so
// the same files prove the same answers on every transport. A Validator,
// built from the schemas in ../shared/spec/schema (see FindSchemaDir), checks
// each received message against the definition of its kind: a result
// against the result type of the request that produced it, an error against
// JSONRPCError (and the revision's definition for that error code), a
// notification against its method's definition.
//
// The harness decodes with encoding/json, not the project's own codec, so a
// bug in the codec cannot hide itself; the decoder also refuses duplicate
// object keys, which encoding/json alone would accept.
package wire
