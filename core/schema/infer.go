package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
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
