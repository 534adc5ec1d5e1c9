package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// CallOption adjusts one request.
type CallOption func(*callOptions)

type callOptions struct {
	progress func(spec.ProgressParams)
	meta     spec.Meta
	timeout  time.Duration
}

// encodeMeta encodes each of the caller's _meta values, compacted and
// checked, once: the request is then encoded with jsonrpc.MarshalOwn,
// which writes raw values as they are (one holding a newline would break
// stdio's framing).
func (o *callOptions) encodeMeta() error {
	for k, v := range o.meta {
		raw, err := jsonrpc.Marshal(v)
		if err != nil {
			return fmt.Errorf("client: _meta %q: %w", k, err)
		}
		o.meta[k] = json.RawMessage(raw)
	}
	return nil
}

// WithTimeout bounds each request of the call by d instead of
// Options.Timeout.
func WithTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.timeout = d }
}

// WithProgress asks the server for progress notifications of the request
// (a progressToken) and hands each to f, in order, on the goroutine that
// reads the connection.
func WithProgress(f func(spec.ProgressParams)) CallOption {
	return func(o *callOptions) { o.progress = f }
}

// WithMeta adds members to the request's params._meta.
func WithMeta(meta spec.Meta) CallOption {
	return func(o *callOptions) {
		if o.meta == nil {
			o.meta = spec.Meta{}
		}
		for k, v := range meta {
			o.meta[k] = v
		}
	}
}

// send runs a request with its options, decodes the result into out
// (unless out is nil) and returns it raw. Methods that may need input go
// through roundTrip.
func (c *Client) send(ctx context.Context, method string, params map[string]any, out any, opts []CallOption) ([]byte, error) {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.encodeMeta(); err != nil {
		return nil, err
	}
	d := &deadline{timeout: c.o.Timeout}
	if o.timeout > 0 {
		d.timeout = o.timeout
	}
	ctx = withDeadline(ctx, d)
	meta := o.meta
	if o.progress != nil {
		progress := o.progress
		o.progress = func(p spec.ProgressParams) {
			if c.o.ResetTimeoutOnProgress {
				d.touch()
			}
			progress(p)
		}
		token := "progress-" + strconv.FormatInt(c.nextID.Add(1), 10)
		meta = spec.Meta{}
		for k, v := range o.meta {
			meta[k] = v
		}
		meta[spec.MetaProgressToken] = token
		c.mu.Lock()
		c.progress[token] = o.progress
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.progress, token)
			c.mu.Unlock()
		}()
	}
	var raw []byte
	var err error
	switch method {
	case "tools/call", "prompts/get", "resources/read":
		raw, err = c.roundTrip(ctx, method, params, meta)
	default:
		raw, err = c.request(ctx, method, params, meta)
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		// The caller reads raw itself; the reader has checked it is JSON.
		if len(raw) == 0 || raw[0] != '{' {
			return nil, fmt.Errorf("client: bad %s result: not a JSON object", method)
		}
		return raw, nil
	}
	if err := jsonrpc.UnmarshalOwned(raw, out); err != nil {
		return nil, fmt.Errorf("client: bad %s result: %w", method, err)
	}
	return raw, nil
}

// CallTool calls tool name with args (any value that encodes as a JSON
// object, or nil). A tool's own failure is a result with IsError set,
// not an error. With Options.Tasks, a call the server turns into a task
// (2026-07-28) is followed to its end and returns the task's result. When ListTools has seen the tool declare an outputSchema,
// a successful result must carry structuredContent that matches it, or
// the call fails with an *OutputError (Options.SkipOutputValidation).
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*spec.CallToolResult, error) {
	raw, err := c.callTool(ctx, name, args, opts)
	if err != nil {
		return nil, err
	}
	var r spec.CallToolResult
	if err := jsonrpc.UnmarshalOwned(raw, &r); err != nil {
		return nil, fmt.Errorf("client: bad tools/call result: %w", err)
	}
	if !r.IsError {
		if err := c.checkOutput(name, raw); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// CallToolRaw is CallTool returning the result as the server sent it, a
// CallToolResult object, for a caller that passes it on rather than read
// it (the C ABI): a large result is then neither decoded nor encoded again.
// It is checked as CallTool checks it.
func (c *Client) CallToolRaw(ctx context.Context, name string, args any, opts ...CallOption) (json.RawMessage, error) {
	raw, err := c.callTool(ctx, name, args, opts)
	if err != nil {
		return nil, err
	}
	if !isErrorResult(raw) {
		if err := c.checkOutput(name, raw); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// callTool runs tools/call (following a task, retrying a header
// mismatch) and returns the result raw, its output not yet checked: CallTool
// reads isError from the result it decodes, CallToolRaw from the raw one.
func (c *Client) callTool(ctx context.Context, name string, args any, opts []CallOption) ([]byte, error) {
	params := map[string]any{"name": name}
	if args != nil {
		raw, err := encodeArguments(args)
		if err != nil {
			return nil, fmt.Errorf("client: arguments of %s: %w", name, err)
		}
		if len(raw) == 0 || raw[0] != '{' {
			return nil, fmt.Errorf("client: arguments of %s must be a JSON object", name)
		}
		params["arguments"] = json.RawMessage(raw)
	}
	raw, err := c.send(ctx, "tools/call", params, nil, opts)
	if err == nil && isTask(raw) {
		raw, err = c.awaitTask(ctx, raw)
	}
	if headerMismatch(err) {
		// The server's tool may have changed its x-mcp-header annotations
		// since the transport saw them: list again and retry, once, as
		// the spec says a client SHOULD.
		if _, lerr := c.ListTools(ctx); lerr == nil {
			raw, err = c.send(ctx, "tools/call", params, nil, opts)
		}
	}
	return raw, err
}

// isErrorResult reports whether a CallToolResult says isError: true.
func isErrorResult(raw []byte) bool {
	v, ok := jsonrpc.Member(raw, "isError")
	return ok && string(v) == "true"
}

// encodeArguments encodes a tool's arguments. Arguments that are JSON
// already (json.RawMessage) go as they are once checked, unless a line
// break in them would break stdio's framing: compacting them again cost a
// 64 KiB call a fifth of its CPU.
//
// A map goes through the encoder of params (appendMembers), into a buffer
// sized for its strings: the same bytes as jsonrpc.Marshal, and a tenth
// of a 64 KiB call's CPU less.
func encodeArguments(args any) ([]byte, error) {
	switch a := args.(type) {
	case json.RawMessage:
		// Two vector scans: bytes.IndexAny reads a byte at a time.
		if bytes.IndexByte(a, '\n') < 0 && bytes.IndexByte(a, '\r') < 0 {
			if err := jsonrpc.Valid(a, jsonrpc.Limits{}); err != nil {
				return nil, err
			}
			return a, nil
		}
	case map[string]any:
		return appendMembers(make([]byte, 0, 64+rawSize(a)), a, false)
	}
	return jsonrpc.Marshal(args)
}

// headerMismatch reports whether err is the server's -32020: a Streamable
// HTTP header (Mcp-Param-*, say) that does not match the body.
func headerMismatch(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == jsonrpc.CodeHeaderMismatch
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*spec.ReadResourceResult, error) {
	var r spec.ReadResourceResult
	if _, err := c.send(ctx, "resources/read", map[string]any{"uri": uri}, &r, opts); err != nil {
		return nil, err
	}
	return &r, nil
}

// GetPrompt gets prompt name filled in with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (*spec.GetPromptResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var r spec.GetPromptResult
	if _, err := c.send(ctx, "prompts/get", params, &r, opts); err != nil {
		return nil, err
	}
	return &r, nil
}

// Complete asks for completions of argument arg of the prompt or resource
// template ref; resolved holds arguments already chosen (2025-06-18+).
func (c *Client) Complete(ctx context.Context, ref spec.CompleteRef, arg spec.CompleteArgument, resolved map[string]string) (*spec.Completion, error) {
	params := map[string]any{"ref": ref, "argument": arg}
	if resolved != nil {
		params["context"] = spec.CompleteContext{Arguments: resolved}
	}
	var r spec.CompleteResult
	if _, err := c.send(ctx, "completion/complete", params, &r, nil); err != nil {
		return nil, err
	}
	return &r.Completion, nil
}

// Ping checks that the server answers: ping on the legacy revisions,
// server/discover on 2026-07-28, which has no ping.
func (c *Client) Ping(ctx context.Context) error {
	method := "ping"
	if c.modern {
		method = "server/discover"
	}
	_, err := c.request(ctx, method, nil, nil)
	return err
}

// SetLogLevel asks for the server's log messages at level and above (to
// Options.OnLog): logging/setLevel on the legacy revisions; on 2026-07-28
// the level goes in the _meta of every later request.
func (c *Client) SetLogLevel(ctx context.Context, level spec.LoggingLevel) error {
	if _, ok := level.Severity(); !ok {
		return fmt.Errorf("client: unknown log level %q", level)
	}
	if c.modern {
		c.mu.Lock()
		c.logLevel = level
		c.mu.Unlock()
		return nil
	}
	_, err := c.request(ctx, "logging/setLevel", map[string]any{"level": level}, nil)
	return err
}

// errNoSubscribe: 2026-07-28 replaced resources/subscribe with
// subscriptions/listen.
var errNoSubscribe = errors.New("client: 2026-07-28 has no resources/subscribe (it has subscriptions/listen)")

// Subscribe asks for notifications/resources/updated of uri (legacy
// revisions; to Options.OnResourceUpdated).
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if c.modern {
		return errNoSubscribe
	}
	_, err := c.request(ctx, "resources/subscribe", map[string]any{"uri": uri}, nil)
	return err
}

// Unsubscribe ends a Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if c.modern {
		return errNoSubscribe
	}
	_, err := c.request(ctx, "resources/unsubscribe", map[string]any{"uri": uri}, nil)
	return err
}

// Request sends any request (an extension's method, say) with params (a
// value that encodes as a JSON object, or nil) and returns its raw result.
// The revision's _meta is added on 2026-07-28, opts apply as to the typed
// methods, and tools/call, prompts/get and resources/read go through the
// input rounds.
func (c *Client) Request(ctx context.Context, method string, params any, opts ...CallOption) (json.RawMessage, error) {
	var members map[string]any
	if params != nil {
		raw, err := jsonrpc.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("client: %s params: %w", method, err)
		}
		// Kept raw, so that numbers keep every digit.
		var fields map[string]json.RawMessage
		if err := jsonrpc.UnmarshalOwned(raw, &fields); err != nil {
			return nil, fmt.Errorf("client: %s params must be a JSON object", method)
		}
		members = make(map[string]any, len(fields))
		for k, v := range fields {
			members[k] = v
		}
	}
	var result json.RawMessage
	if _, err := c.send(ctx, method, members, &result, opts); err != nil {
		return nil, err
	}
	return result, nil
}

// RootsChanged tells the server that the roots Options.Roots lists have
// changed (notifications/roots/list_changed; the legacy revisions only).
func (c *Client) RootsChanged(ctx context.Context) error {
	switch {
	case c.modern:
		return errors.New("client: 2026-07-28 has no notifications/roots/list_changed: the server asks for roots with each request")
	case c.o.Roots == nil:
		return errors.New("client: no Roots handler, so no roots capability to change")
	}
	return c.notify(ctx, "notifications/roots/list_changed", nil)
}
