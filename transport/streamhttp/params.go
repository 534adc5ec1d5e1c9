package streamhttp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// paramHeader is one tool argument mirrored into an Mcp-Param-<Name> header
// because its inputSchema property carries "x-mcp-header": "<Name>".
type paramHeader struct {
	name string   // the header suffix, as the schema spells it
	path []string // property names from arguments down to the value
}

// maxParamDepth bounds how deep below arguments annotations are looked for.
const maxParamDepth = 8

// maxCachedTools bounds the cache of parsed annotations.
const maxCachedTools = 4096

// paramCache remembers each tool's annotations, keyed by name and checked
// against the schema bytes, so a schema is parsed once per version.
type paramCache struct {
	lookup func(name string) (spec.Tool, bool)

	mu sync.Mutex
	m  map[string]*toolParams
}

type toolParams struct {
	schema []byte
	params []paramHeader
}

// forTool returns the header annotations of the named tool; none when the
// tool is unknown (the dispatcher answers that) or has none.
func (c *paramCache) forTool(name string) []paramHeader {
	if c.lookup == nil {
		return nil
	}
	t, ok := c.lookup(name)
	if !ok || len(t.InputSchema) == 0 {
		return nil
	}
	c.mu.Lock()
	tp := c.m[name]
	c.mu.Unlock()
	if tp != nil && bytes.Equal(tp.schema, t.InputSchema) {
		return tp.params
	}
	tp = &toolParams{schema: bytes.Clone(t.InputSchema), params: collectParams(t.InputSchema)}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedTools {
		c.m = make(map[string]*toolParams)
	}
	c.m[name] = tp
	c.mu.Unlock()
	return tp.params
}

// collectParams finds the valid x-mcp-header annotations of a schema: on
// properties of type string, integer or boolean, reachable from the root
// through "properties" only, with token names unique regardless of case.
// Invalid annotations are ignored here; a conforming client drops such tools.
func collectParams(schema []byte) []paramHeader {
	var out []paramHeader
	seen := map[string]bool{}
	walkProperties(schema, nil, 0, seen, &out)
	return out
}

func walkProperties(node []byte, path []string, depth int, seen map[string]bool, out *[]paramHeader) {
	raw, ok := jsonrpc.Member(node, "properties")
	if !ok || depth >= maxParamDepth {
		return
	}
	var props map[string]json.RawMessage
	if jsonrpc.Unmarshal(raw, &props) != nil {
		return
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		prop := props[n]
		at := append(slices.Clip(path), n)
		if h, ok := stringMember(prop, "x-mcp-header"); ok && isToken(h) && headerType(prop) && !seen[strings.ToLower(h)] {
			seen[strings.ToLower(h)] = true
			*out = append(*out, paramHeader{name: h, path: at})
		}
		walkProperties(prop, at, depth+1, seen, out)
	}
}

func headerType(prop []byte) bool {
	t, _ := stringMember(prop, "type")
	return t == "string" || t == "integer" || t == "boolean"
}

// checkParams compares each annotated argument of a tools/call with its
// header: a value in the body needs the header, equal to it; a header for an
// argument the body lacks is a mismatch too.
func checkParams(h map[string][]string, params []byte, ps []paramHeader) *jsonrpc.Error {
	for _, p := range ps {
		name := hdrParamPrefix + p.name
		v, present, ok := headerValue(h, name)
		raw, has := argumentAt(params, p.path)
		switch {
		case !ok:
			return headerMismatch(name, "header %s is malformed", name)
		case has && !present:
			return headerMismatch(name, "header %s is required: argument %q is set", name, strings.Join(p.path, "."))
		case !has && present:
			return headerMismatch(name, "header %s is set but argument %q is absent", name, strings.Join(p.path, "."))
		case has && !paramMatches(raw, v):
			return headerMismatch(name, "header %s does not match argument %q", name, strings.Join(p.path, "."))
		}
	}
	return nil
}
