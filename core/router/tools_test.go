package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/schema"
	"github.com/polymcp/polymcp/core/spec"
)

func TestAddToolRejects(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	tests := []struct {
		name string
		tool spec.Tool
		nilH bool
		want string
	}{
		{"empty name", spec.Tool{Name: ""}, false, "1 to 128"},
		{"long name", spec.Tool{Name: strings.Repeat("a", 129)}, false, "1 to 128"},
		{"space in name", spec.Tool{Name: "a b"}, false, "may only hold"},
		{"slash in name", spec.Tool{Name: "a/b"}, false, "may only hold"},
		{"non-ASCII name", spec.Tool{Name: "é"}, false, "may only hold"},
		{"nil handler", spec.Tool{Name: "t"}, true, "nil handler"},
		{"array schema", spec.Tool{Name: "t", InputSchema: json.RawMessage(`[]`)}, false, "inputSchema"},
		{"boolean schema", spec.Tool{Name: "t", InputSchema: json.RawMessage(`true`)}, false, "inputSchema"},
		{"no root type", spec.Tool{Name: "t", InputSchema: json.RawMessage(`{}`)}, false, `root "type" must be "object"`},
		{"string root", spec.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}, false, `root "type"`},
		{"type list root", spec.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":["object","null"]}`)}, false, `root "type"`},
		{"invalid JSON", spec.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":`)}, false, "inputSchema"},
		{"does not compile", spec.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"nope"}}}`)}, false, "inputSchema"},
		{"remote ref", spec.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","$ref":"https://example.com/s.json"}`)}, false, "remote $ref"},
		{"output not object", spec.Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"array"}`)}, false, "outputSchema"},
		{"output does not compile", spec.Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"object","required":"x"}`)}, false, "outputSchema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ch := newRecorded(Options{})
			h := okTool("x")
			if tt.nilH {
				h = nil
			}
			err := r.AddTool(tt.tool, h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			_, ok := r.Tool(tt.tool.Name)
			assert.False(t, ok)
			assert.Empty(t, ch.take())
			tools, _, _, _ := r.Capabilities()
			assert.False(t, tools, "a failed registration enables nothing")
		})
	}
}

func TestAddToolAccepts(t *testing.T) {
	tests := []struct {
		name       string
		tool       spec.Tool
		wantInput  string
		wantOutput string
	}{
		{"every name character", spec.Tool{Name: "Az09_-.x"}, string(schema.EmptyObject), ""},
		{"128 characters", spec.Tool{Name: strings.Repeat("n", 128)}, string(schema.EmptyObject), ""},
		{"null schema", spec.Tool{Name: "t", InputSchema: json.RawMessage(`null`)}, string(schema.EmptyObject), ""},
		{"given schema", spec.Tool{Name: "t", InputSchema: echoSchema}, string(echoSchema), ""},
		{"null output", spec.Tool{Name: "t", OutputSchema: json.RawMessage(` null `)}, string(schema.EmptyObject), ""},
		{"output", spec.Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":"object"}`)}, string(schema.EmptyObject), `{"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			require.NoError(t, r.AddTool(tt.tool, okTool("x")))
			got, ok := r.Tool(tt.tool.Name)
			require.True(t, ok)
			assert.JSONEq(t, tt.wantInput, string(got.InputSchema))
			if tt.wantOutput == "" {
				assert.Nil(t, got.OutputSchema)
			} else {
				assert.JSONEq(t, tt.wantOutput, string(got.OutputSchema))
			}
		})
	}
}

func TestAddToolCopiesSchema(t *testing.T) {
	r := New(Options{})
	buf := []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	require.NoError(t, r.AddTool(spec.Tool{Name: "t", InputSchema: buf}, okTool("x")))
	copy(buf, `{"type":"array"`) // the caller reuses its buffer
	got, _ := r.Tool("t")
	assert.Contains(t, string(got.InputSchema), `"type":"object"`)
}

// argsSeen records what the handler was given.
func argsSeen(dst *json.RawMessage) ToolHandler {
	return func(_ context.Context, _ *Request, args json.RawMessage) (*spec.CallToolResult, error) {
		*dst = args
		return nil, nil
	}
}

func TestCallToolArguments(t *testing.T) {
	strict := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":2},"n":{"type":"number"}},"required":["text"],"additionalProperties":false}`)
	tests := []struct {
		name     string
		schema   json.RawMessage
		args     string
		wantArgs string // what the handler sees; "" means it is not called
		wantErr  string // JSON-RPC error message part
		wantIsEr string // isError text part
	}{
		{"absent", nil, "", "{}", "", ""},
		{"null", nil, "null", "{}", "", ""},
		{"empty object", nil, "{}", "{}", "", ""},
		{"passed verbatim", strict, ` {"text": "ab"}`, ` {"text": "ab"}`, "", ""},
		{"array", nil, "[1]", "", "arguments must be a JSON object", ""},
		{"string", nil, `"x"`, "", "arguments must be a JSON object", ""},
		{"number", nil, `1`, "", "arguments must be a JSON object", ""},
		{"bad syntax", nil, `{"a":`, "", "not valid JSON", ""},
		{"undeclared argument", nil, `{"a":1}`, "", "", `unexpected argument "a"`},
		{"absent but required", strict, "", "", "", `missing required argument "text"`},
		{"wrong type", strict, `{"text":7}`, "", "", `argument "/text": must be string (type)`},
		{"too short", strict, `{"text":"s"}`, "", "", "minLength"},
		{"beyond float64", strict, `{"text":"ab","n":1e400}`, `{"text":"ab","n":1e400}`, "", ""},
		{"beyond float64, bad", strict, `{"text":1,"n":1e400}`, "", "", "must be string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			var seen json.RawMessage
			require.NoError(t, r.AddTool(spec.Tool{Name: "t", InputSchema: tt.schema}, argsSeen(&seen)))
			var raw json.RawMessage
			if tt.args != "" {
				raw = json.RawMessage(tt.args)
			}
			res, err := r.CallTool(context.Background(), &Request{}, &spec.CallToolParams{Name: "t", Arguments: raw})
			switch {
			case tt.wantErr != "":
				requireRPC(t, err, jsonrpc.CodeInvalidParams, tt.wantErr)
				assert.Nil(t, res)
			case tt.wantIsEr != "":
				require.Nil(t, err)
				assert.True(t, res.IsError)
				assert.Contains(t, textOf(t, res), tt.wantIsEr)
				assert.Nil(t, seen, "the handler must not run")
			default:
				require.Nil(t, err)
				assert.False(t, res.IsError)
				assert.Equal(t, tt.wantArgs, string(seen))
			}
		})
	}
}

func TestCallToolNeverEchoesValues(t *testing.T) {
	r := New(Options{})
	sch := json.RawMessage(`{"type":"object","properties":{"pin":{"type":"integer","maximum":99},"mode":{"enum":["a","b"]}}}`)
	require.NoError(t, r.AddTool(spec.Tool{Name: "t", InputSchema: sch}, okTool("x")))
	res, err := r.CallTool(context.Background(), nil, &spec.CallToolParams{Name: "t",
		Arguments: json.RawMessage(`{"pin":123456,"mode":"hunter2"}`)})
	require.Nil(t, err)
	require.True(t, res.IsError)
	msg := textOf(t, res)
	assert.Contains(t, msg, "maximum")
	assert.Contains(t, msg, "enum")
	assert.NotContains(t, msg, "123456")
	assert.NotContains(t, msg, "hunter2")
}

func TestCallToolUnknown(t *testing.T) {
	r := New(Options{})
	addTools(t, r, 1)
	res, err := r.CallTool(context.Background(), nil, &spec.CallToolParams{Name: "nope"})
	assert.Nil(t, res)
	requireRPC(t, err, jsonrpc.CodeInvalidParams, "unknown tool: nope")
	assert.Equal(t, jsonrpc.KindProtocol, err.Kind)

	_, err = r.CallTool(context.Background(), nil, &spec.CallToolParams{Name: strings.Repeat("x", 5000)})
	require.NotNil(t, err)
	assert.Less(t, len(err.Message), 200, "a huge name is not echoed whole")
}

// resultErr is an error carrying its own tool result.
type resultErr struct{ res *spec.CallToolResult }

func (e resultErr) Error() string                    { return "result error" }
func (e resultErr) ToolResult() *spec.CallToolResult { return e.res }

func TestCallToolHandlerOutcomes(t *testing.T) {
	shared := &spec.CallToolResult{Content: []spec.Content{spec.TextContent("custom")}}
	rpcErr := jsonrpc.Errorf(jsonrpc.KindExecution, -32099, "nope")
	tests := []struct {
		name    string
		res     *spec.CallToolResult
		err     error
		wantRPC *jsonrpc.Error
		isError bool
		text    string // first content text; "" means content must be empty
	}{
		{"nil, nil", nil, nil, nil, false, ""},
		{"nil content", &spec.CallToolResult{}, nil, nil, false, ""},
		{"plain error", nil, errors.New("disk full"), nil, true, "disk full"},
		{"wrapped plain error", nil, fmt.Errorf("save: %w", errors.New("disk full")), nil, true, "save: disk full"},
		{"tool result error", nil, resultErr{shared}, nil, true, "custom"},
		{"wrapped tool result error", nil, fmt.Errorf("x: %w", resultErr{shared}), nil, true, "custom"},
		{"tool result error without content", nil, resultErr{&spec.CallToolResult{}}, nil, true, "result error"},
		{"tool result error with nil result", nil, resultErr{nil}, nil, true, "result error"},
		{"jsonrpc error", nil, rpcErr, rpcErr, false, ""},
		{"wrapped jsonrpc error", nil, fmt.Errorf("w: %w", rpcErr), rpcErr, false, ""},
		{"handler's own isError", spec.ErrorResult("mine"), nil, nil, true, "mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			require.NoError(t, r.AddTool(spec.Tool{Name: "t"}, func(context.Context, *Request, json.RawMessage) (*spec.CallToolResult, error) {
				return tt.res, tt.err
			}))
			res, err := r.CallTool(context.Background(), nil, &spec.CallToolParams{Name: "t"})
			if tt.wantRPC != nil {
				assert.Same(t, tt.wantRPC, err)
				assert.Nil(t, res)
				return
			}
			require.Nil(t, err)
			require.NotNil(t, res)
			assert.Equal(t, tt.isError, res.IsError)
			require.NotNil(t, res.Content, "content is [] rather than null")
			if tt.text == "" {
				assert.Empty(t, res.Content)
			} else {
				assert.Equal(t, tt.text, textOf(t, res))
			}
		})
	}
	assert.False(t, shared.IsError, "a ToolResulter's value is copied, not modified")
}

func TestCallToolOutputSchema(t *testing.T) {
	out := json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)
	type sum struct {
		Sum int `json:"sum"`
	}
	tests := []struct {
		name     string
		output   json.RawMessage
		revision string
		res      *spec.CallToolResult
		isError  bool
		text     string
	}{
		{"struct", out, spec.Rev20250618, &spec.CallToolResult{StructuredContent: sum{3}}, false, `{"sum":3}`},
		{"map", out, spec.Rev20250618, &spec.CallToolResult{StructuredContent: map[string]any{"sum": 3}}, false, `{"sum":3}`},
		{"raw", out, spec.Rev20250618, &spec.CallToolResult{StructuredContent: json.RawMessage(` {"sum":3} `)}, false, `{"sum":3}`},
		{"content kept", out, spec.Rev20250618, &spec.CallToolResult{Content: []spec.Content{spec.TextContent("three")}, StructuredContent: sum{3}}, false, "three"},
		{"missing", out, spec.Rev20250618, &spec.CallToolResult{Content: []spec.Content{spec.TextContent("3")}}, true, "output does not match outputSchema: structuredContent is missing"},
		{"nil result", out, spec.Rev20250618, nil, true, "structuredContent is missing"},
		{"mismatch", out, spec.Rev20250618, &spec.CallToolResult{StructuredContent: map[string]any{"sum": "3"}}, true, `output does not match outputSchema: argument "/sum": must be integer (type)`},
		{"bad raw", out, spec.Rev20250618, &spec.CallToolResult{StructuredContent: json.RawMessage(`{"sum":`)}, true, "cannot be encoded"},
		{"unencodable", out, spec.Rev20250618, &spec.CallToolResult{StructuredContent: func() {}}, true, "cannot be encoded"},
		{"error result unchecked", out, spec.Rev20250618, spec.ErrorResult("failed"), true, "failed"},
		{"no schema, object", nil, spec.Rev20250618, &spec.CallToolResult{StructuredContent: sum{1}}, false, `{"sum":1}`},
		{"no schema, array before 2026", nil, spec.Rev20251125, &spec.CallToolResult{StructuredContent: []int{1}}, true, "must be a JSON object"},
		{"no schema, array unknown revision", nil, "", &spec.CallToolResult{StructuredContent: []int{1}}, true, "must be a JSON object"},
		{"no schema, array at 2026", nil, spec.Rev20260728, &spec.CallToolResult{StructuredContent: []int{1}}, false, `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			require.NoError(t, r.AddTool(spec.Tool{Name: "t", OutputSchema: tt.output}, func(context.Context, *Request, json.RawMessage) (*spec.CallToolResult, error) {
				return tt.res, nil
			}))
			res, err := r.CallTool(context.Background(), &Request{Revision: tt.revision}, &spec.CallToolParams{Name: "t"})
			require.Nil(t, err)
			assert.Equal(t, tt.isError, res.IsError)
			assert.Contains(t, textOf(t, res), tt.text)
		})
	}
}

func TestToolReplaceAndRemove(t *testing.T) {
	r, ch := newRecorded(Options{})
	addTools(t, r, 3)
	assert.Equal(t, []List{ListTools, ListTools, ListTools}, ch.take())

	require.NoError(t, r.AddTool(spec.Tool{Name: toolName(0), Description: "v2"}, okTool("v2")))
	assert.Equal(t, []List{ListTools}, ch.take(), "a replacement is a change")
	res, err := r.CallTool(context.Background(), nil, &spec.CallToolParams{Name: toolName(0)})
	require.Nil(t, err)
	assert.Equal(t, "v2", textOf(t, res), "the new handler serves")
	list, _ := r.ListTools(nil)
	require.Len(t, list.Tools, 3)
	assert.Equal(t, "v2", list.Tools[0].Description, "a replacement keeps its place")

	assert.Equal(t, 0, r.RemoveTools("nope"))
	assert.Empty(t, ch.take(), "removing nothing is no change")
	assert.Equal(t, 2, r.RemoveTools(toolName(0), toolName(2), "nope", toolName(0)))
	assert.Equal(t, []List{ListTools}, ch.take())
	_, err = r.CallTool(context.Background(), nil, &spec.CallToolParams{Name: toolName(0)})
	requireRPC(t, err, jsonrpc.CodeInvalidParams, "unknown tool")
	_, ok := r.Tool(toolName(2))
	assert.False(t, ok)

	assert.Equal(t, 1, r.RemoveTools(toolName(1)))
	tools, resources, prompts, completions := r.Capabilities()
	assert.True(t, tools, "the capability stays after the last tool goes")
	assert.False(t, resources || prompts || completions)
	list, _ = r.ListTools(nil)
	assert.NotNil(t, list.Tools)
	assert.Empty(t, list.Tools)
}

func TestListResultIsACopy(t *testing.T) {
	r := New(Options{})
	addTools(t, r, 2)
	a, _ := r.ListTools(nil)
	a.Tools[0].Name = "changed"
	b, _ := r.ListTools(nil)
	assert.Equal(t, toolName(0), b.Tools[0].Name)
}
