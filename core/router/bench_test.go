package router

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

var echoSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)

// echoHandler decodes its arguments the way a typed adapter would.
func echoHandler(_ context.Context, _ *Request, args json.RawMessage) (*spec.CallToolResult, error) {
	var in struct {
		Text string `json:"text"`
	}
	if err := jsonrpc.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	return &spec.CallToolResult{Content: []spec.Content{spec.TextContent(in.Text)}}, nil
}

func benchRouter(b *testing.B, h ToolHandler) *Router {
	r := New(Options{})
	// A catalogue of realistic size, so the lookup is not a one-entry map.
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		if err := r.AddTool(spec.Tool{Name: name, InputSchema: echoSchema}, h); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.AddTool(spec.Tool{Name: "echo", InputSchema: echoSchema}, h); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkCallToolEcho is the whole tools/call path for an echo tool:
// lookup, argument validation, handler (which decodes its arguments) and
// result shaping.
func BenchmarkCallToolEcho(b *testing.B) {
	r := benchRouter(b, echoHandler)
	ctx := context.Background()
	req := &Request{Method: "tools/call", Revision: spec.Rev20250618}
	p := &spec.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello, world"}`)}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := r.CallTool(ctx, req, p)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}

// BenchmarkCallToolOverhead is the Router's share alone: the handler does
// nothing.
func BenchmarkCallToolOverhead(b *testing.B) {
	res := &spec.CallToolResult{Content: []spec.Content{}}
	r := benchRouter(b, func(context.Context, *Request, json.RawMessage) (*spec.CallToolResult, error) { return res, nil })
	ctx := context.Background()
	req := &Request{Method: "tools/call", Revision: spec.Rev20250618}
	p := &spec.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello, world"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.CallTool(ctx, req, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListTools is one page of 100 tools.
func BenchmarkListTools(b *testing.B) {
	r := New(Options{})
	for i := range 250 {
		if err := r.AddTool(spec.Tool{Name: toolName(i), InputSchema: echoSchema}, echoHandler); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ListTools(nil); err != nil {
			b.Fatal(err)
		}
	}
}
