package streamhttp

import (
	"bytes"
	"encoding/json"
	"maps"
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

// maxParamDepth bounds how deep below the root of a schema annotations are
// looked for, counting every subschema on the way.
const maxParamDepth = 16

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
	params, _ := collectParams(t.InputSchema) // an invalid annotation is not enforced
	tp = &toolParams{schema: bytes.Clone(t.InputSchema), params: params}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedTools {
		c.m = make(map[string]*toolParams)
	}
	c.m[name] = tp
	c.mu.Unlock()
	return tp.params
}

// collectParams finds the x-mcp-header annotations of a tool's inputSchema
// (SEP-2243). It returns the valid ones: on a property of type string,
// integer or boolean, reached from the root through "properties" only,
// naming a token that no earlier annotation names in any case. bad
// describes the first invalid one, "" when there is none: a server does not
// enforce it, and a conforming HTTP client drops the whole tool.
func collectParams(schema []byte) (params []paramHeader, bad string) {
	w := paramWalk{seen: map[string]bool{}}
	w.schema(schema, nil, true, 0)
	return w.params, w.bad
}

// paramWalk is collectParams' state while it walks a schema.
type paramWalk struct {
	seen   map[string]bool // the header names taken, lower-cased
	params []paramHeader
	bad    string
}

// schemaMaps are the keywords whose value maps names to subschemas.
var schemaMaps = map[string]bool{"$defs": true, "definitions": true, "patternProperties": true,
	"dependentSchemas": true}

// instanceKeywords hold instance values, not subschemas: an "x-mcp-header"
// member in them is data, not an annotation.
var instanceKeywords = map[string]bool{"const": true, "default": true, "enum": true, "examples": true,
	"x-mcp-header": true}

// schema walks the subschema node at path (the property names from the
// root); direct tells whether it was reached through "properties" only.
// Every other keyword's subschemas are walked too, since an annotation
// found there makes the tool invalid.
func (w *paramWalk) schema(node []byte, path []string, direct bool, depth int) {
	if depth > maxParamDepth || len(node) == 0 || node[0] != '{' {
		return
	}
	var members map[string]json.RawMessage
	if jsonrpc.Unmarshal(node, &members) != nil {
		return
	}
	if h, ok := members["x-mcp-header"]; ok {
		w.annotation(h, node, path, direct)
	}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		v := members[k]
		switch {
		case k == "properties":
			eachMember(v, func(name string, sub []byte) {
				w.schema(sub, append(slices.Clip(path), name), direct, depth+1)
			})
		case schemaMaps[k]:
			eachMember(v, func(_ string, sub []byte) { w.schema(sub, path, false, depth+1) })
		case instanceKeywords[k]:
		case len(v) > 0 && v[0] == '[':
			var items []json.RawMessage
			_ = jsonrpc.Unmarshal(v, &items)
			for _, sub := range items {
				w.schema(sub, path, false, depth+1)
			}
		default:
			w.schema(v, path, false, depth+1)
		}
	}
}

// eachMember calls f for the members of the object raw, in name order.
func eachMember(raw []byte, f func(name string, sub []byte)) {
	var m map[string]json.RawMessage
	if jsonrpc.Unmarshal(raw, &m) != nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		f(name, m[name])
	}
}

// annotation judges the x-mcp-header value h of the property schema prop.
func (w *paramWalk) annotation(h, prop []byte, path []string, direct bool) {
	var name string
	ok := isString(h)
	if ok {
		name, ok = stringOf(h)
	}
	switch {
	case !direct || len(path) == 0:
		w.invalid(path, "it is not on a property reached through properties alone")
	case !ok || !isToken(name):
		w.invalid(path, "its value is not an HTTP header name (a token)")
	case !headerType(prop):
		w.invalid(path, "the property's type is not string, integer or boolean")
	case w.seen[strings.ToLower(name)]:
		w.invalid(path, "another property names header "+name)
	default:
		w.seen[strings.ToLower(name)] = true
		w.params = append(w.params, paramHeader{name: name, path: path})
	}
}

// invalid records the first invalid annotation.
func (w *paramWalk) invalid(path []string, why string) {
	if w.bad != "" {
		return
	}
	where := "the schema root"
	if len(path) > 0 {
		where = "property " + strings.Join(path, ".")
	}
	w.bad = "x-mcp-header of " + where + ": " + why
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
