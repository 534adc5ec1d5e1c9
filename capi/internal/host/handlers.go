package host

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// The router handlers of host registrations. Each builds on_call's params
// JSON and waits for the host's outcome. The params are:
//
//	tool:       {"name", "arguments", "revision", "_meta"?}
//	resource:   {"uri", "variables"?, "revision", "_meta"?}
//	prompt:     {"name", "arguments", "revision", "_meta"?}
//	completion: {"ref", "argument", "context"?, "revision", "_meta"?}

// paramsPool recycles the params buffers: on_call borrows them only for
// the duration of the callback.
var paramsPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxPooledParams keeps one huge call from pinning a huge buffer. It is
// well above the common large payload (64 KiB and its envelope): a fresh
// 64 KiB buffer costs more to fault in and clear than to fill.
const maxPooledParams = 1 << 20

func newParams() *[]byte { return paramsPool.Get().(*[]byte) }

func putParams(p *[]byte) {
	if cap(*p) <= maxPooledParams {
		*p = (*p)[:0]
		paramsPool.Put(p)
	}
}

// appendCommon closes a params object with the revision and _meta.
func appendCommon(b []byte, req *router.Request) []byte {
	b = append(b, `,"revision":`...)
	b = jsonrpc.AppendString(b, req.Revision)
	if len(req.RawMeta) > 0 {
		b = append(b, `,"_meta":`...)
		b = append(b, req.RawMeta...)
	}
	return append(b, '}')
}

func (s *Server) toolHandler(name string, tag uint64) router.ToolHandler {
	return func(ctx context.Context, req *router.Request, args json.RawMessage) (*spec.CallToolResult, error) {
		p := newParams()
		b := append(*p, `{"name":`...)
		b = jsonrpc.AppendString(b, name)
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
		*p = appendCommon(b, req)
		res, err := s.invoke(ctx, req, KindTool, tag, "", p)
		if err != nil {
			return nil, err
		}
		return res.(*spec.CallToolResult), nil
	}
}

func (s *Server) resourceHandler(tag uint64) router.ResourceHandler {
	return func(ctx context.Context, req *router.Request, uri string, vars map[string]string) (*spec.ReadResourceResult, error) {
		p := newParams()
		b := append(*p, `{"uri":`...)
		b = jsonrpc.AppendString(b, uri)
		if vars != nil {
			b = append(b, `,"variables":`...)
			b = appendStringMap(b, vars)
		}
		*p = appendCommon(b, req)
		res, err := s.invoke(ctx, req, KindResource, tag, uri, p)
		if err != nil {
			return nil, err
		}
		return res.(*spec.ReadResourceResult), nil
	}
}

func (s *Server) promptHandler(name string, tag uint64) router.PromptHandler {
	return func(ctx context.Context, req *router.Request, args map[string]string) (*spec.GetPromptResult, error) {
		p := newParams()
		b := append(*p, `{"name":`...)
		b = jsonrpc.AppendString(b, name)
		b = append(b, `,"arguments":`...)
		*p = appendCommon(appendStringMap(b, args), req)
		res, err := s.invoke(ctx, req, KindPrompt, tag, "", p)
		if err != nil {
			return nil, err
		}
		return res.(*spec.GetPromptResult), nil
	}
}

func (s *Server) completeHandler(tag uint64) router.CompleteHandler {
	return func(ctx context.Context, req *router.Request, cp *spec.CompleteParams) (*spec.Completion, error) {
		q := *cp
		q.Meta = nil // sent once, by appendCommon
		body, err := jsonrpc.Marshal(q)
		if err != nil {
			return nil, err
		}
		p := newParams()
		*p = appendCommon(append(*p, body[:len(body)-1]...), req)
		res, err := s.invoke(ctx, req, KindCompletion, tag, "", p)
		if err != nil {
			return nil, err
		}
		return res.(*spec.Completion), nil
	}
}

// appendStringMap writes m as a JSON object; nil is {}.
func appendStringMap(b []byte, m map[string]string) []byte {
	b = append(b, '{')
	first := true
	for k, v := range m {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonrpc.AppendString(b, k)
		b = append(b, ':')
		b = jsonrpc.AppendString(b, v)
	}
	return append(b, '}')
}
