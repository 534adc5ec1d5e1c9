// Package spec holds the MCP data types as one protocol-neutral superset of
// every revision from 2024-11-05 to 2026-07-28. JSON keys are the
// protocol's own and never change.
//
// Handlers build these values; core/protocol shapes them for the revision a
// request speaks (resultType, _meta, cache hints) just before encoding. Fields
// a revision does not define are omitted when empty, so a handler that uses
// only old features produces messages every revision accepts.
package spec

// Meta is a _meta object. Keys follow the MCP naming rules; keys whose prefix
// has "modelcontextprotocol" or "mcp" as second label are reserved.
type Meta map[string]any

// Reserved _meta keys.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaProgressToken      = "progressToken"
)

// Revisions, oldest first.
const (
	Rev20241105 = "2024-11-05"
	Rev20250326 = "2025-03-26"
	Rev20250618 = "2025-06-18"
	Rev20251125 = "2025-11-25"
	Rev20260728 = "2026-07-28"
)

// Revisions lists every revision polymcp speaks, oldest first.
var Revisions = []string{Rev20241105, Rev20250326, Rev20250618, Rev20251125, Rev20260728}
