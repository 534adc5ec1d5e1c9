package router

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/schema"
	"github.com/polymcp/polymcp/core/spec"
)

// MaxToolName is the longest tool name AddTool accepts.
const MaxToolName = 128

// tool is a registered tool with its compiled schemas.
type tool struct {
	def     spec.Tool
	handler ToolHandler
	in      *schema.Validator
	out     *schema.Validator // nil without an outputSchema
	task    TaskOptions
}

// AddTool registers t, or replaces the tool of the same name in its place.
//
// The name must be 1–128 characters of A–Z a–z 0–9 _ - . (the 2025-11-25
// guidance, applied to every revision so that one catalogue suits all).
// InputSchema must be a JSON Schema object whose root "type" is "object";
// absent or null means a tool without parameters,
// {"type":"object","additionalProperties":false}. OutputSchema is optional;
// when given its root "type" must be "object" too: 2025-06-18 and
// 2025-11-25 require that, and the Router does not keep one catalogue per
// revision. Both schemas are compiled here, so a bad schema fails now rather
// than on the first call.
func (r *Router) AddTool(t spec.Tool, h ToolHandler) error {
	return r.AddTaskTool(t, h, TaskOptions{})
}

// AddTaskTool is AddTool for a tool whose calls may become tasks on
// 2026-07-28 (see TaskSupport).
func (r *Router) AddTaskTool(t spec.Tool, h ToolHandler, task TaskOptions) error {
	if err := task.check(); err != nil {
		return fmt.Errorf("router: tool %q: %w", t.Name, err)
	}
	if h == nil {
		return fmt.Errorf("router: tool %q: nil handler", t.Name)
	}
	if err := checkToolName(t.Name); err != nil {
		return err
	}
	entry, err := newTool(t, h)
	if err != nil {
		return fmt.Errorf("router: tool %q: %w", t.Name, err)
	}
	entry.task = task
	r.tools.put(t.Name, entry, nil)
	r.enable(capTools)
	if task.Support != TaskForbidden {
		r.enable(capTasks)
	}
	r.changed(ListTools)
	return nil
}

func checkToolName(name string) error {
	if name == "" || len(name) > MaxToolName {
		return fmt.Errorf("router: tool name %q must be 1 to %d characters long", echo(name), MaxToolName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("router: tool name %q may only hold A-Z a-z 0-9 _ - .", echo(name))
		}
	}
	return nil
}

func newTool(t spec.Tool, h ToolHandler) (*tool, error) {
	entry := &tool{handler: h}
	if isAbsent(t.InputSchema) {
		t.InputSchema = schema.EmptyObject
	}
	var err error
	if entry.in, t.InputSchema, err = compileObjectSchema(t.InputSchema); err != nil {
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	if isAbsent(t.OutputSchema) {
		t.OutputSchema = nil
	} else if entry.out, t.OutputSchema, err = compileObjectSchema(t.OutputSchema); err != nil {
		return nil, fmt.Errorf("outputSchema: %w", err)
	}
	entry.def = t
	return entry, nil
}

// compileObjectSchema compiles a schema whose root must be {"type":"object"}
// and returns it with a private copy of its bytes, so that a caller reusing
// its buffer cannot change what was compiled.
func compileObjectSchema(raw json.RawMessage) (*schema.Validator, json.RawMessage, error) {
	var root map[string]any
	if err := jsonrpc.Unmarshal(raw, &root); err != nil || root == nil {
		return nil, nil, errors.New(`must be a JSON object with "type": "object"`)
	}
	if typ, _ := root["type"].(string); typ != "object" {
		return nil, nil, errors.New(`root "type" must be "object"`)
	}
	raw = bytes.Clone(raw)
	v, err := schema.Compile(raw)
	if err != nil {
		return nil, nil, err
	}
	return v, raw, nil
}

// isAbsent reports whether a raw member is missing or JSON null.
func isAbsent(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) == 0 || string(b) == "null"
}

// RemoveTools removes the named tools and reports how many existed.
func (r *Router) RemoveTools(names ...string) int {
	n := r.tools.remove(names)
	if n > 0 {
		r.changed(ListTools)
	}
	return n
}

// Tool returns the definition of the named tool, as tools/list shows it.
func (r *Router) Tool(name string) (spec.Tool, bool) {
	t, ok := r.tools.lookup(name)
	if !ok {
		return spec.Tool{}, false
	}
	return t.def, true
}

// ListTools answers tools/list.
func (r *Router) ListTools(cursor *string) (*spec.ListToolsResult, *jsonrpc.Error) {
	items, next, err := page(r, methodListTools, r.tools.load(), cursor)
	if err != nil {
		return nil, err
	}
	return &spec.ListToolsResult{Tools: defs(items, func(t *tool) spec.Tool { return t.def }), NextCursor: next}, nil
}

// CallTool answers tools/call.
//
// An unknown tool and arguments that are not a JSON object are JSON-RPC
// errors (-32602). Arguments that break the inputSchema give an isError
// result naming the rule, never the value. The handler's own errors are
// isError results too, except a *jsonrpc.Error, which is returned as the
// protocol error it is. When the tool has an outputSchema, a successful
// result must carry structuredContent matching it; otherwise the result is
// replaced by an isError result saying so, which points at the server's bug
// rather than letting a client reject the answer.
//
// For validation the arguments are decoded with numbers as float64, which
// is exact up to 2^53; only a number beyond float64's range makes the
// Router fall back to the schema's exact (slower) decoder. The handler
// always gets the bytes the client sent.
func (r *Router) CallTool(ctx context.Context, req *Request, p *spec.CallToolParams) (*spec.CallToolResult, *jsonrpc.Error) {
	t, ok := r.tools.lookup(p.Name)
	if !ok {
		return nil, invalidParams("unknown tool: %s", echo(p.Name))
	}
	args, rejected, rpcErr := t.arguments(p.Arguments)
	if rpcErr != nil || rejected != nil {
		return rejected, rpcErr
	}
	req.deferAs(toolThen, t)
	if t.task.Support != TaskForbidden {
		if err := t.taskGate(req); err != nil {
			return nil, err
		}
	}
	res, err := t.handler(ctx, req, args)
	return t.outcome(req, res, err)
}

// outcome is the answer to a call whose handler gave res and err.
func (t *tool) outcome(req *Request, res *spec.CallToolResult, err error) (*spec.CallToolResult, *jsonrpc.Error) {
	if err == ErrDeferred {
		// Every C ABI host call returns it: not through toolError's
		// errors.As, whose interface check was 2% of such a call's CPU.
		return nil, ErrDeferred
	}
	if err != nil {
		return toolError(err)
	}
	return t.result(req, res), nil
}

// argMaps recycles the maps arguments are decoded into for validation: the
// map is most of what decoding allocates, and it is dead once validated.
var argMaps = sync.Pool{New: func() any { m := make(map[string]any); return &m }}

// maxPooledArgs keeps one huge call from pinning a huge map in the pool.
const maxPooledArgs = 64

func putArgMap(mp *map[string]any) {
	if len(*mp) <= maxPooledArgs {
		clear(*mp)
		argMaps.Put(mp)
	}
}

// noArgs is what absent arguments are validated as. Validators only read it.
var noArgs = map[string]any{}

// arguments checks raw against the input schema. It returns the arguments
// for the handler, or the isError result or protocol error that answers the
// call instead.
func (t *tool) arguments(raw json.RawMessage) (json.RawMessage, *spec.CallToolResult, *jsonrpc.Error) {
	body := raw
	for len(body) > 0 && isSpace(body[0]) {
		body = body[1:]
	}
	if len(body) == 0 || body[0] == 'n' && isAbsent(body) {
		// A fresh "{}" each time: the handler owns its arguments.
		return json.RawMessage{'{', '}'}, rejection(t.in.Validate(noArgs)), nil
	}
	if body[0] != '{' {
		return nil, nil, invalidParams("arguments must be a JSON object")
	}
	// The message decoder checked the syntax; most arguments are valid, and
	// the walk says so without decoding them.
	if t.in.Admits(body) {
		return raw, nil, nil
	}
	mp := argMaps.Get().(*map[string]any)
	var err error
	if jsonrpc.UnmarshalDecoded(body, mp) == nil {
		err = t.in.Validate(*mp)
		putArgMap(mp)
	} else {
		putArgMap(mp)
		// The fast decoder refuses numbers beyond float64 and bad syntax;
		// the schema's own decoder keeps numbers exact and names the fault.
		err = t.in.ValidateJSON(body)
		var ve *schema.ValidationError
		if errors.As(err, &ve) && len(ve.Causes) > 0 && ve.Causes[0].Keyword == "syntax" {
			return nil, nil, invalidParams("%s", ve.Causes[0].Message)
		}
	}
	return raw, rejection(err), nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// rejection is the isError result for a failed input validation.
func rejection(err error) *spec.CallToolResult {
	if err == nil {
		return nil
	}
	return spec.ErrorResult(err.Error())
}

// toolError turns a handler's error into its answer.
func toolError(err error) (*spec.CallToolResult, *jsonrpc.Error) {
	var tr ToolResulter
	if errors.As(err, &tr) {
		if res := tr.ToolResult(); res != nil {
			c := *res // the error may hand out a shared value
			c.IsError = true
			if len(c.Content) == 0 {
				c.Content = []spec.Content{spec.TextContent(err.Error())}
			}
			return &c, nil
		}
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return nil, rpcErr
	}
	return spec.ErrorResult(err.Error()), nil
}

// result completes a handler's successful result: a nil result is an empty
// one, and structured content is checked and mirrored as text.
func (t *tool) result(req *Request, res *spec.CallToolResult) *spec.CallToolResult {
	if res == nil {
		res = &spec.CallToolResult{}
	}
	if res.Content == nil {
		res.Content = []spec.Content{}
	}
	if res.IsError || (t.out == nil && res.StructuredContent == nil) {
		return res
	}
	return t.structured(req, res)
}

// structured checks res.StructuredContent against the output schema and,
// when the handler gave no content blocks, adds the JSON as a text block:
// the specification asks for it, and clients before 2025-06-18 see nothing
// else.
func (t *tool) structured(req *Request, res *spec.CallToolResult) *spec.CallToolResult {
	if res.StructuredContent == nil {
		return spec.ErrorResult("output does not match outputSchema: structuredContent is missing")
	}
	b, err := structuredJSON(res.StructuredContent)
	if err != nil {
		return spec.ErrorResult("structuredContent cannot be encoded as JSON: " + err.Error())
	}
	if t.out != nil {
		if !t.out.Admits(b) {
			if err := t.out.ValidateJSON(b); err != nil {
				return spec.ErrorResult("output does not match outputSchema: " + err.Error())
			}
		}
	} else if objectOnly(req) && b[0] != '{' {
		return spec.ErrorResult("structuredContent must be a JSON object before revision " + spec.Rev20260728)
	}
	if len(res.Content) == 0 {
		res.Content = append(res.Content, spec.TextContent(string(b)))
	}
	return res
}

// structuredJSON encodes structured content, which may be any Go value.
// The bytes are what the validator sees, so it judges exactly what the
// client will receive.
func structuredJSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		b := bytes.TrimSpace(raw)
		if jsonrpc.Valid(b, jsonrpc.Limits{}) != nil {
			return nil, errors.New("json.RawMessage is not valid JSON")
		}
		return b, nil
	}
	return jsonrpc.Marshal(v)
}

// objectOnly reports whether the request's revision requires structured
// content to be an object (2025-06-18 and 2025-11-25; 2026-07-28 allows any
// JSON value). An unknown revision is held to the stricter rule.
func objectOnly(req *Request) bool {
	return req == nil || req.Revision < spec.Rev20260728
}
