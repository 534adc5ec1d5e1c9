package router

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

func toolName(i int) string { return fmt.Sprintf("tool_%03d", i) }

// changes records OnListChanged calls.
type changes struct {
	mu   sync.Mutex
	seen []List
}

func (c *changes) record(l List) {
	c.mu.Lock()
	c.seen = append(c.seen, l)
	c.mu.Unlock()
}

func (c *changes) take() []List {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.seen
	c.seen = nil
	return s
}

func newRecorded(opts Options) (*Router, *changes) {
	c := &changes{}
	opts.OnListChanged = c.record
	return New(opts), c
}

// okTool returns a handler answering with text.
func okTool(text string) ToolHandler {
	return func(context.Context, *Request, json.RawMessage) (*spec.CallToolResult, error) {
		return &spec.CallToolResult{Content: []spec.Content{spec.TextContent(text)}}, nil
	}
}

func okResource(text string) ResourceHandler {
	return func(_ context.Context, _ *Request, uri string, _ map[string]string) (*spec.ReadResourceResult, error) {
		return &spec.ReadResourceResult{Contents: []spec.ResourceContents{spec.TextResource(uri, "text/plain", text)}}, nil
	}
}

func okPrompt(context.Context, *Request, map[string]string) (*spec.GetPromptResult, error) {
	return &spec.GetPromptResult{Messages: []spec.PromptMessage{{Role: spec.RoleUser, Content: spec.TextContent("hi")}}}, nil
}

func addTools(t testing.TB, r *Router, n int) {
	t.Helper()
	for i := range n {
		require.NoError(t, r.AddTool(spec.Tool{Name: toolName(i)}, okTool(toolName(i))))
	}
}

func textOf(t testing.TB, res *spec.CallToolResult) string {
	t.Helper()
	require.NotNil(t, res)
	require.NotEmpty(t, res.Content)
	require.NotNil(t, res.Content[0].Text)
	return *res.Content[0].Text
}

func requireRPC(t testing.TB, err *jsonrpc.Error, code int64, msg string) {
	t.Helper()
	require.NotNil(t, err)
	require.Equal(t, code, err.Code)
	require.Contains(t, err.Message, msg)
}

func ptr[T any](v T) *T { return &v }
