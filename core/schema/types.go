package schema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

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
