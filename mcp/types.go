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
	// revision, the request's _meta, the client, Progress/Log, and
	// Input/Elicit/Sample/Roots to ask the client for input.
	Request = router.Request

	// Input from the client (see router.Inputter): on 2025-11-25 and
	// earlier a server-to-client request during the call, on 2026-07-28 an
	// input_required result and the client's retry.
	InputRequest           = router.InputRequest
	ElicitParams           = spec.ElicitParams
	ElicitResult           = spec.ElicitResult
	CreateMessageParams    = spec.CreateMessageParams
	CreateMessageResult    = spec.CreateMessageResult
	SamplingMessage        = spec.SamplingMessage
	ModelPreferences       = spec.ModelPreferences
	ModelHint              = spec.ModelHint
	Root                   = spec.Root
	ListRootsResult        = spec.ListRootsResult
	MissingCapabilityError = router.MissingCapabilityError
	ClientError            = router.ClientError

	// Later answers a request whose handler deferred its answer
	// (Request.Defer): Answer for untyped handlers, AnswerTool for typed
	// tools, OnEnd to hear of the request ending first.
	Later = router.Later

	// Tasks (the 2026-07-28 tasks extension): see AddTaskTool.
	TaskOptions = router.TaskOptions
	TaskSupport = router.TaskSupport
	TaskStart   = router.TaskStart
)

// Task settings of a tool.
const (
	TaskForbidden = router.TaskForbidden
	TaskOptional  = router.TaskOptional
	TaskRequired  = router.TaskRequired
	TaskAtStart   = router.TaskAtStart
	TaskByHandler = router.TaskByHandler
)

// ErrNoTask is what Request.StartTask returns for a call that cannot
// become a task.
var ErrNoTask = router.ErrNoTask

// ErrDeferred is what a handler returns after a successful Request.Defer:
// its answer comes later, through the Later. Where Defer reports false
// (a transport that waits for the handler anyway) the handler answers by
// returning.
var ErrDeferred = router.ErrDeferred

// Input helpers.
var (
	Elicitation = router.Elicitation
	Sampling    = router.Sampling
	ListRoots   = router.ListRoots
	TextMessage = spec.TextMessage
	// ErrInputRequired is what Input returns on 2026-07-28 until the client
	// has answered; return it from the handler.
	ErrInputRequired = router.ErrInputRequired
	IsInputRequired  = router.IsInputRequired
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
