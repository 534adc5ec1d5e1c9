package streamhttp

import (
	"encoding/json"
	"net/http"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

// The client's side of SEP-2243's custom headers, on 2026-07-28 requests:
// the conn learns each tool's x-mcp-header annotations from the tools/list
// answers it carries (vetTools) and mirrors the annotated arguments of each
// tools/call it posts into Mcp-Param-<Name> headers (setParamHeaders), which
// the server compares with the body.

// setParamHeaders adds to h the Mcp-Param-<Name> header of each argument of
// a tools/call that the tool's listed schema annotates, unless the argument
// is absent or null. A tool never listed gets none. c.mu is held.
func (c *ClientConn) setParamHeaders(h http.Header, params []byte) {
	name, ok := stringMember(params, "name")
	if !ok {
		return
	}
	for _, p := range c.annotations[name] {
		raw, ok := argumentAt(params, p.path)
		if !ok {
			continue
		}
		if v, ok := paramText(raw); ok {
			h.Set(hdrParamPrefix+p.name, headerText(v))
		}
	}
}

// vetTools learns the annotations of the tools a tools/list answer names
// and returns the answer without the tools whose annotations are invalid:
// an HTTP client must not offer them (SEP-2243). An answer that drops none
// is returned as it came.
func (c *ClientConn) vetTools(m jsonrpc.Message, msg []byte) []byte {
	raw, ok := jsonrpc.Member(m.Result, "tools")
	var tools []json.RawMessage
	if !ok || jsonrpc.Unmarshal(raw, &tools) != nil {
		return msg
	}
	kept := make([]json.RawMessage, 0, len(tools))
	learned := make(map[string][]paramHeader, len(tools))
	for _, t := range tools {
		name, _ := stringMember(t, "name")
		schema, _ := jsonrpc.Member(t, "inputSchema")
		params, bad := collectParams(schema)
		if bad != "" {
			c.log.Warn("streamhttp: dropped a tool with an invalid x-mcp-header from tools/list", "tool", name, "why", bad)
			params = nil
		} else {
			kept = append(kept, t)
		}
		learned[name] = params
	}
	c.learn(learned)
	if len(kept) == len(tools) {
		return msg
	}
	out, err := withTools(m, kept)
	if err != nil {
		c.log.Warn("streamhttp: cannot re-encode tools/list", "err", err)
		return msg
	}
	return out
}

// learn records the annotations of the tools just listed; a tool listed
// with none (or dropped) forgets those of an earlier listing.
func (c *ClientConn) learn(params map[string][]paramHeader) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, ps := range params {
		if len(ps) == 0 {
			delete(c.annotations, name)
		} else {
			c.annotations[name] = ps
		}
	}
}

// withTools returns the response m with its result's tools replaced.
func withTools(m jsonrpc.Message, tools []json.RawMessage) ([]byte, error) {
	var result map[string]json.RawMessage
	if err := jsonrpc.Unmarshal(m.Result, &result); err != nil {
		return nil, err
	}
	raw, err := jsonrpc.Marshal(tools)
	if err != nil {
		return nil, err
	}
	result["tools"] = raw
	body, err := jsonrpc.Marshal(result)
	if err != nil {
		return nil, err
	}
	return jsonrpc.AppendResponse(nil, m.ID, body), nil
}
