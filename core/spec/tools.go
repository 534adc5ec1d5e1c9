package spec

import "encoding/json"

// Tool describes a callable tool.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         Meta             `json:"_meta,omitempty"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour (2025-03-26+).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      Meta            `json:"_meta,omitempty"`
}

// CallToolResult is the result of tools/call. Content is always written,
// as [] when empty.
type CallToolResult struct {
	ResultBase
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// ErrorResult is a tool result reporting failure to the model (isError).
func ErrorResult(msg string) *CallToolResult {
	r := TextResult(msg)
	r.IsError = true
	return r
}

// TextResult returns a result holding one text block. The result, its
// content and the text's pointer share one allocation: most tools answer
// just that, and three allocations a call showed in profiles.
func TextResult(text string) *CallToolResult {
	r := &struct {
		res   CallToolResult
		block [1]Content
		text  string
	}{text: text}
	r.block[0] = Content{Type: ContentText, Text: &r.text}
	r.res.Content = r.block[:]
	return &r.res
}

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	ResultBase
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
}
