package spec

import "encoding/json"

// Methods a server uses to ask the client for input: server-to-client
// requests on 2024-11-05 … 2025-11-25 (elicitation since 2025-06-18), and
// the kinds of an InputRequiredResult's inputRequests on 2026-07-28.
const (
	MethodElicit        = "elicitation/create"
	MethodCreateMessage = "sampling/createMessage"
	MethodListRoots     = "roots/list"
)

// Members of the params of a 2026-07-28 retry (tools/call, prompts/get,
// resources/read) after an InputRequiredResult.
const (
	ParamInputResponses = "inputResponses"
	ParamRequestState   = "requestState"
)

// InputRequest is one entry of InputRequiredResult.inputRequests: a
// server-to-client request without its JSON-RPC envelope.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// InputRequiredResult answers tools/call, prompts/get or resources/read on
// 2026-07-28 when the client must supply input first: the client fulfils
// InputRequests and retries the same request with params.inputResponses
// (same keys) and RequestState echoed byte for byte. Keys are written in
// sorted order.
type InputRequiredResult struct {
	ResultBase
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

// ElicitParams are the params of elicitation/create. Mode "" or "form"
// asks for RequestedSchema (a flat object schema of primitive properties);
// mode "url" (2025-11-25+) sends the user to URL.
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	Meta            Meta            `json:"_meta,omitempty"`
}

// Elicitation actions.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitResult is the client's answer to elicitation/create. Content is
// set only when Action is "accept" in form mode.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Meta    Meta           `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content is a
// content block, or (2025-11-25+) an array of them; it is kept raw so
// tool_use and tool_result blocks pass through.
type SamplingMessage struct {
	Role    Role            `json:"role"`
	Content json.RawMessage `json:"content"`
	Meta    Meta            `json:"_meta,omitempty"`
}

// TextMessage returns a sampling message holding one text block.
func TextMessage(role Role, text string) SamplingMessage {
	b, _ := json.Marshal(TextContent(text))
	return SamplingMessage{Role: role, Content: b}
}

// ModelPreferences guide the client's choice of model.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model or family.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// CreateMessageParams are the params of sampling/createMessage. MaxTokens
// is required by every revision. Tools and ToolChoice (2025-11-25+) need
// the client's sampling.tools capability; IncludeContext other than
// "none" needs sampling.context.
type CreateMessageParams struct {
	Messages         []SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	MaxTokens        int64             `json:"maxTokens"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	Metadata         json.RawMessage   `json:"metadata,omitempty"`
	Tools            json.RawMessage   `json:"tools,omitempty"`
	ToolChoice       json.RawMessage   `json:"toolChoice,omitempty"`
	Meta             Meta              `json:"_meta,omitempty"`
}

// CreateMessageResult is the client's answer to sampling/createMessage.
type CreateMessageResult struct {
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       Meta            `json:"_meta,omitempty"`
}

// Text returns the text of the result's text blocks, joined, or "" when it
// holds none.
func (r *CreateMessageResult) Text() string {
	var one Content
	if json.Unmarshal(r.Content, &one) == nil && one.Text != nil {
		return *one.Text
	}
	var many []Content
	if json.Unmarshal(r.Content, &many) != nil {
		return ""
	}
	out := ""
	for _, c := range many {
		if c.Type == ContentText && c.Text != nil {
			out += *c.Text
		}
	}
	return out
}

// Root is one root the client exposes; URI is a file:// URI.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ListRootsResult is the client's answer to roots/list.
type ListRootsResult struct {
	Roots []Root `json:"roots"`
	Meta  Meta   `json:"_meta,omitempty"`
}
