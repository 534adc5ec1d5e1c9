package mcp

import (
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// The MCP data types, shared with the core (see core/spec for the fields).
type (
	Implementation     = spec.Implementation
	Icon               = spec.Icon
	Annotations        = spec.Annotations
	Meta               = spec.Meta
	Content            = spec.Content
	ResourceContents   = spec.ResourceContents
	Tool               = spec.Tool
	ToolAnnotations    = spec.ToolAnnotations
	CallToolResult     = spec.CallToolResult
	Resource           = spec.Resource
	ResourceTemplate   = spec.ResourceTemplate
	ReadResourceResult = spec.ReadResourceResult
	Prompt             = spec.Prompt
	PromptArgument     = spec.PromptArgument
	PromptMessage      = spec.PromptMessage
	GetPromptResult    = spec.GetPromptResult
	CompleteParams     = spec.CompleteParams
	CompleteRef        = spec.CompleteRef
	Completion         = spec.Completion
	LoggingLevel       = spec.LoggingLevel
	Role               = spec.Role

	// Request is what every handler gets besides its arguments: the
	// revision, the request's _meta, the client, and Progress/Log.
	Request = router.Request
)

// Content constructors.
var (
	TextContent      = spec.TextContent
	ImageContent     = spec.ImageContent
	AudioContent     = spec.AudioContent
	EmbeddedResource = spec.EmbeddedResource
	ResourceLink     = spec.ResourceLink
	TextResource     = spec.TextResource
	BlobResource     = spec.BlobResource
	ErrorResult      = spec.ErrorResult
)
