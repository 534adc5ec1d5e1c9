package schema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// EmptyObject is the input schema of a tool that takes no arguments.
// Callers must not modify it.
var EmptyObject = json.RawMessage(`{"type":"object","additionalProperties":false}`)

// Provider is implemented by types that supply their own schema, for what
// inference cannot see (an enum, a pattern, a custom MarshalJSON). The result
// must be a JSON Schema; it is used as is, with its object keys sorted, and a
// field's `jsonschema` description is added to it when it is an object.
// A value or pointer receiver both count.
type Provider interface {
	JSONSchema() json.RawMessage
}

// For returns the JSON Schema of T. See the package documentation for the rules.
func For[T any]() (json.RawMessage, error) { return ForType(reflect.TypeFor[T]()) }

// ForInput returns the JSON Schema of T for a tool's inputSchema, whose root
// must be an object: T must be a struct, a map with string keys, a pointer to
// one, or a Provider whose schema has "type":"object".
func ForInput[T any]() (json.RawMessage, error) {
	t := reflect.TypeFor[T]()
	root, err := build(t)
	if err != nil {
		return nil, err
	}
	var typ any
	switch r := root.(type) {
	case *object:
		typ, _ = r.get("type")
	case map[string]any:
		typ = r["type"]
	}
	if typ != "object" {
		return nil, fmt.Errorf("schema: input type %s: the root of an input schema must be an object (a struct or map[string]T)", t)
	}
	return appendJSON(nil, root)
}

// ForType returns the JSON Schema of t. See the package documentation for the rules.
func ForType(t reflect.Type) (json.RawMessage, error) {
	root, err := build(t)
	if err != nil {
		return nil, err
	}
	return appendJSON(nil, root)
}

// build returns the schema of t as an ordered tree.
func build(t reflect.Type) (any, error) {
	if t == nil {
		return nil, errors.New("schema: nil type")
	}
	for t.Kind() == reflect.Pointer && t.Name() == "" {
		t = t.Elem()
	}
	// Generation restarts each time it meets a type that recurs, now knowing
	// to write that type under $defs; each restart adds one type, so this ends.
	recursive := map[reflect.Type]bool{}
	for {
		g := &generator{root: t, recursive: recursive, defNames: map[reflect.Type]string{}, usedNames: map[string]bool{}}
		root, err := g.inline(t, rootPath(t))
		if errors.Is(err, errRestart) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(g.defs.keys) > 0 {
			root.(*object).set("$defs", &g.defs)
		}
		return root, nil
	}
}

func rootPath(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

var errRestart = errors.New("restart")

type generator struct {
	root      reflect.Type
	recursive map[reflect.Type]bool // written under $defs
	defNames  map[reflect.Type]string
	usedNames map[string]bool
	defs      object
	stack     []reflect.Type
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	providerType    = reflect.TypeFor[Provider]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	textMarshalType = reflect.TypeFor[encoding.TextMarshaler]()
)

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

// schema returns the schema of t met at Go path path: a $ref for a type that
// recurs, the inline schema otherwise.
func (g *generator) schema(t reflect.Type, path string) (any, error) {
	if g.recursive[t] {
		if t == g.root {
			return obj("$ref", "#"), nil
		}
		name, ok := g.defNames[t]
		if !ok {
			name = g.defName(t)
			g.defs.set(name, nil) // reserve the slot: $defs keep discovery order
			outer := g.stack
			g.stack = nil // a definition is its own context: it starts afresh
			body, err := g.inline(t, path)
			g.stack = outer
			if err != nil {
				return nil, err
			}
			g.defs.set(name, body)
		}
		return obj("$ref", "#/$defs/"+name), nil
	}
	if i := slices.Index(g.stack, t); i >= 0 {
		// t recurs: mark the first named type of the cycle and start over.
		for _, c := range g.stack[i:] {
			if c.Name() != "" && !g.recursive[c] {
				g.recursive[c] = true
				return nil, errRestart
			}
		}
		return nil, fmt.Errorf("schema: %s: unnamed recursive type %s", path, t)
	}
	return g.inline(t, path)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func (g *generator) defName(t reflect.Type) string {
	base := unsafeName.ReplaceAllString(t.Name(), "_")
	name := base
	for n := 2; g.usedNames[name]; n++ {
		name = base + "_" + strconv.Itoa(n)
	}
	g.usedNames[name] = true
	g.defNames[t] = name
	return name
}

// inline returns the schema of t written out in full.
func (g *generator) inline(t reflect.Type, path string) (any, error) {
	if t.Kind() == reflect.Interface {
		return obj(), nil
	}
	switch {
	case implements(t, providerType):
		return providedSchema(t, path)
	case t == timeType:
		return obj("type", "string", "format", "date-time"), nil
	case t == rawMessageType:
		return obj(), nil
	case implements(t, marshalerType):
		return obj(), nil
	case implements(t, textMarshalType):
		return obj("type", "string"), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return obj("type", "boolean"), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return obj("type", "integer"), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return obj("type", "integer", "minimum", 0), nil
	case reflect.Float32, reflect.Float64:
		return obj("type", "number"), nil
	case reflect.String:
		return obj("type", "string"), nil
	}

	g.stack = append(g.stack, t)
	defer func() { g.stack = g.stack[:len(g.stack)-1] }()
	switch t.Kind() {
	case reflect.Pointer:
		return g.schema(t.Elem(), path)
	case reflect.Slice:
		e := t.Elem()
		if e.Kind() == reflect.Uint8 && !implements(e, marshalerType) && !implements(e, textMarshalType) {
			return obj("type", "string", "contentEncoding", "base64"), nil
		}
		items, err := g.schema(e, path+"[]")
		if err != nil {
			return nil, err
		}
		return obj("type", "array", "items", items), nil
	case reflect.Array:
		items, err := g.schema(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return obj("type", "array", "items", items, "minItems", t.Len(), "maxItems", t.Len()), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("schema: %s: unsupported type %s: map keys must be strings", path, t)
		}
		values, err := g.schema(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return obj("type", "object", "additionalProperties", values), nil
	case reflect.Struct:
		return g.structSchema(t, path)
	}
	return nil, fmt.Errorf("schema: %s: unsupported type %s", path, t)
}

func (g *generator) structSchema(t reflect.Type, path string) (any, error) {
	props := &object{}
	var required []string
	for _, f := range structFields(t) {
		fpath := path + "." + f.goPath
		var s any
		var err error
		if f.asString && isScalar(f.typ) {
			s = obj("type", "string")
		} else if s, err = g.schema(f.typ, fpath); err != nil {
			return nil, err
		}
		if f.desc != "" {
			switch s := s.(type) {
			case *object:
				s.set("description", f.desc)
			case map[string]any:
				s["description"] = f.desc
			}
		}
		props.set(f.name, s)
		if !f.omit {
			required = append(required, f.name)
		}
	}
	o := obj("type", "object")
	if len(props.keys) > 0 {
		o.set("properties", props)
	}
	if len(required) > 0 {
		o.set("required", required)
	}
	o.set("additionalProperties", false)
	return o, nil
}

// isScalar reports whether the ",string" option applies to t.
func isScalar(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// providedSchema decodes the schema a Provider returns. Its keys are written
// sorted, so the result stays deterministic.
func providedSchema(t reflect.Type, path string) (any, error) {
	v := reflect.New(t).Elem()
	if !t.Implements(providerType) {
		v = v.Addr()
	} else if t.Kind() == reflect.Pointer {
		v = reflect.New(t.Elem()) // never call a method on a nil pointer
	}
	raw := v.Interface().(Provider).JSONSchema()
	s, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %s.JSONSchema returned invalid JSON: %w", path, t, err)
	}
	switch s.(type) {
	case map[string]any, bool:
		return s, nil
	}
	return nil, fmt.Errorf("schema: %s: %s.JSONSchema must return an object or a boolean", path, t)
}
