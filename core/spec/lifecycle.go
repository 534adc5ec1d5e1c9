package spec

import "encoding/json"

// ServerCapabilities are what the server offers. A nil member is absent.
type ServerCapabilities struct {
	Experimental map[string]any  `json:"experimental,omitempty"`
	Logging      *struct{}       `json:"logging,omitempty"`
	Completions  *struct{}       `json:"completions,omitempty"`
	Prompts      *ListChangedCap `json:"prompts,omitempty"`
	Resources    *ResourcesCap   `json:"resources,omitempty"`
	Tools        *ListChangedCap `json:"tools,omitempty"`
	Extensions   map[string]any  `json:"extensions,omitempty"`
	Tasks        json.RawMessage `json:"tasks,omitempty"`
}

// ListChangedCap is the tools and prompts capability.
type ListChangedCap struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCap is the resources capability.
type ResourcesCap struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ClientCapabilities are what the client offers, kept raw per member so
// unknown sub-capabilities survive.
type ClientCapabilities struct {
	Experimental map[string]any  `json:"experimental,omitempty"`
	Roots        json.RawMessage `json:"roots,omitempty"`
	Sampling     json.RawMessage `json:"sampling,omitempty"`
	Elicitation  json.RawMessage `json:"elicitation,omitempty"`
	Extensions   map[string]any  `json:"extensions,omitempty"`
	Tasks        json.RawMessage `json:"tasks,omitempty"`
}

// InitializeParams are the params of initialize (legacy revisions).
type InitializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ResultBase
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// DiscoverResult is the result of server/discover (2026-07-28).
type DiscoverResult struct {
	ResultBase
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
}

// SetLevelParams are the params of logging/setLevel.
type SetLevelParams struct {
	Level LoggingLevel `json:"level"`
}

// CancelledParams are the params of notifications/cancelled.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}

// ProgressParams are the params of notifications/progress.
type ProgressParams struct {
	ProgressToken any      `json:"progressToken"`
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total,omitempty"`
	Message       string   `json:"message,omitempty"`
	Meta          Meta     `json:"_meta,omitempty"`
}

// LoggingMessageParams are the params of notifications/message.
type LoggingMessageParams struct {
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	Data   any          `json:"data"`
	Meta   Meta         `json:"_meta,omitempty"`
}

// ResourceUpdatedParams are the params of notifications/resources/updated.
type ResourceUpdatedParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitempty"`
}

// PaginatedParams are the params of the list methods.
type PaginatedParams struct {
	Cursor *string `json:"cursor,omitempty"`
	Meta   Meta    `json:"_meta,omitempty"`
}
