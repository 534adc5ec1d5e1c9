package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/schema"
	"github.com/polymcp/polymcp/core/spec"
)

// ToolHandler is an untyped tool handler: raw JSON arguments, already
// validated against the tool's inputSchema.
type ToolHandler = router.ToolHandler

// ToolFunc is a typed tool handler. In is decoded from the arguments; Out
// becomes the result:
//   - *CallToolResult is sent as is;
//   - string becomes one text content item;
//   - anything else becomes structuredContent, with its JSON text as the
//     content, and its inferred schema as the tool's outputSchema.
//
// A returned error becomes a result with isError set and the error's text,
// so the model can see it; return a *jsonrpc.Error for a protocol error.
type ToolFunc[In, Out any] func(ctx context.Context, req *Request, in In) (Out, error)

// AddTool registers a typed tool, inferring inputSchema from In (and
// outputSchema from Out) unless t sets them. It panics on an invalid tool
// (bad name, schema, or types), like http.HandleFunc on a bad pattern.
//
// The strings of the In a handler gets share the request's memory rather
// than being copied out of it (a large argument then costs no copy): one
// kept after the call keeps the request alive with it. Keep a small piece
// of a large request with strings.Clone.
func AddTool[In, Out any](s *Server, t *Tool, h ToolFunc[In, Out]) {
	AddTaskTool(s, t, TaskOptions{}, h)
}

// AddTaskTool is AddTool for a tool whose calls may become tasks on
// 2026-07-28 (the tasks extension): with task.Support TaskOptional or
// TaskRequired, a call whose request declares the extension is answered at
// once with a task handle and the handler's outcome is polled with
// tasks/get (see TaskOptions and Request.StartTask).
func AddTaskTool[In, Out any](s *Server, t *Tool, task TaskOptions, h ToolFunc[In, Out]) {
	tool, err := typedTool[In, Out](t)
	if err == nil {
		err = s.AddTaskTool(tool, task, typedHandler(h))
	}
	if err != nil {
		panic(fmt.Sprintf("mcp: AddTool %q: %v", t.Name, err))
	}
}

// AddTool registers an untyped tool; t.InputSchema must be an object schema
// (nil means no arguments). Replacing a tool keeps its place in the list.
func (s *Server) AddTool(t Tool, h ToolHandler) error { return s.router.AddTool(t, h) }

// AddTaskTool registers an untyped tool whose calls may become tasks.
func (s *Server) AddTaskTool(t Tool, task TaskOptions, h ToolHandler) error {
	return s.router.AddTaskTool(t, h, task)
}

// RemoveTools removes tools by name and reports how many existed.
func (s *Server) RemoveTools(names ...string) int { return s.router.RemoveTools(names...) }

func typedTool[In, Out any](t *Tool) (Tool, error) {
	tool := *t
	var err error
	if tool.InputSchema == nil {
		if tool.InputSchema, err = schema.ForInput[In](); err != nil {
			return tool, err
		}
	}
	if tool.OutputSchema == nil && wantsOutputSchema[Out]() {
		if tool.OutputSchema, err = schema.For[Out](); err != nil {
			return tool, err
		}
	}
	return tool, nil
}

// wantsOutputSchema reports whether Out is structured output with an
// object schema (the only root the legacy revisions allow).
func wantsOutputSchema[Out any]() bool {
	t := reflect.TypeFor[Out]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[CallToolResult]() {
		return false
	}
	return t.Kind() == reflect.Struct || (t.Kind() == reflect.Map && t.Key().Kind() == reflect.String)
}

func typedHandler[In, Out any](h ToolFunc[In, Out]) ToolHandler {
	return func(ctx context.Context, req *Request, args json.RawMessage) (*CallToolResult, error) {
		var in In
		if len(args) > 0 {
			if err := jsonrpc.UnmarshalDecoded(args, &in); err != nil {
				return spec.ErrorResult("invalid arguments: " + jsonrpc.Describe(err, "arguments")), nil
			}
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		return toolResult(out)
	}
}

// AnswerTool gives a tool call whose handler deferred its answer
// (Request.Defer, then returning ErrDeferred) its outcome, the way a
// ToolFunc returning out and err would: out converts as ToolFunc's Out
// does. Call it once, from any goroutine.
func AnswerTool[Out any](l Later, out Out, err error) {
	if err != nil {
		l.Answer(nil, err)
		return
	}
	res, cerr := toolResult(out)
	if cerr != nil {
		l.Answer(nil, cerr)
		return
	}
	l.Answer(res, nil)
}

// toolResult converts a typed handler's output to a CallToolResult. It is
// generic, and asks for each type apart, so that out is not boxed: a type
// switch binding one variable made the box escape (an allocation a call).
func toolResult[Out any](out Out) (*CallToolResult, error) {
	if v, ok := any(out).(string); ok {
		return spec.TextResult(v), nil
	}
	if v, ok := any(out).(*CallToolResult); ok {
		return v, nil
	}
	if v, ok := any(out).(CallToolResult); ok {
		return &v, nil
	}
	if any(out) == nil {
		return &CallToolResult{Content: []Content{}}, nil
	}
	text, err := jsonrpc.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("cannot encode tool output: %w", err)
	}
	return &CallToolResult{Content: []Content{TextContent(string(text))}, StructuredContent: json.RawMessage(text)}, nil
}
