package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxSchemaBytes is the largest schema Compile accepts.
const MaxSchemaBytes = 256 << 10

// baseURL names the document being compiled. It is no real place: relative
// references resolve against it and are then refused like any other.
const baseURL = "mem:///schema.json"

// Validator checks instances against one compiled schema. It is safe for
// concurrent use.
type Validator struct {
	lib  *jsonschema.Schema
	fast *fastNode // nil when the schema is outside the fast subset
}

// Compile compiles a JSON Schema. The dialect is 2020-12 unless "$schema"
// names another one the library embeds. References may only point inside the
// document ("#/$defs/x", "#anchor", a nested "$id"); any other is refused with
// the error "remote $ref not allowed: <url>", and nothing is ever fetched.
func Compile(schema json.RawMessage) (*Validator, error) {
	return compile(schema, &refusingLoader{})
}

func compile(raw []byte, loader *refusingLoader) (*Validator, error) {
	if len(raw) > MaxSchemaBytes {
		return nil, fmt.Errorf("schema: %d bytes is larger than the limit of %d", len(raw), MaxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema: invalid JSON: %w", err)
	}
	d, err := dialectOf(doc)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(loader) // replaces the library's default file loader
	if err := c.AddResource(baseURL, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	lib, err := c.Compile(baseURL)
	if err != nil {
		if url := loader.first(); url != "" {
			return nil, &RemoteRefError{URL: url}
		}
		return nil, fmt.Errorf("schema: %s", strings.ReplaceAll(err.Error(), baseURL, ""))
	}
	if schemaCost(lib) > MaxSchemaCost {
		return nil, fmt.Errorf("schema: too costly to evaluate: more than %d subschemas once references are followed", MaxSchemaCost)
	}
	return &Validator{lib: lib, fast: compileFast(doc, d)}, nil
}

// RemoteRefError reports a reference to a document other than the schema itself.
type RemoteRefError struct{ URL string }

func (e *RemoteRefError) Error() string { return "remote $ref not allowed: " + e.URL }

// refusingLoader is the compiler's only loader: it loads nothing and records
// what was asked for. The library serves the metaschemas of its dialects from
// embedded copies without asking a loader.
type refusingLoader struct {
	mu       sync.Mutex
	attempts []string
}

func (l *refusingLoader) Load(url string) (any, error) {
	l.mu.Lock()
	l.attempts = append(l.attempts, url)
	l.mu.Unlock()
	return nil, &RemoteRefError{URL: url}
}

func (l *refusingLoader) first() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.attempts) == 0 {
		return ""
	}
	return l.attempts[0]
}

// dialect is the draft a schema is written in, as far as the fast path cares.
type dialect int

const (
	draft2020 dialect = iota
	draft7
	draftOther // 2019-09, draft-06, draft-04: the library only
)

// dialectOf reads "$schema". It refuses a dialect the library does not embed,
// which would otherwise mean loading a metaschema.
func dialectOf(doc any) (dialect, error) {
	m, ok := doc.(map[string]any)
	if !ok {
		return draft2020, nil
	}
	v, ok := m["$schema"]
	if !ok {
		return draft2020, nil
	}
	s, _ := v.(string)
	u := strings.TrimSuffix(s, "#")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "http://")
	}
	switch u {
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return draft2020, nil
	case "json-schema.org/draft-07/schema":
		return draft7, nil
	case "json-schema.org/draft/2019-09/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-04/schema":
		return draftOther, nil
	}
	return 0, fmt.Errorf("schema: unsupported $schema dialect %q (supported: 2020-12, 2019-09, draft-07, draft-06, draft-04)", s)
}

// Validate checks instance, a value decoded from JSON: map[string]any, []any,
// string, bool, nil, and float64 or json.Number (Go integer types work too).
// Integers keep their meaning whichever number form is used. A json.Number
// longer than 1024 bytes or with an exponent beyond ±1024 is rejected as out
// of range, wherever it is, since checking it exactly would be unbounded work.
// The error, when not nil, is a *ValidationError.
func (v *Validator) Validate(instance any) error {
	if v.fast != nil {
		return v.fast.validate(instance)
	}
	return v.validateLib(instance)
}

// ValidateJSON decodes raw, keeping numbers exact, and validates the result.
func (v *Validator) ValidateJSON(raw []byte) error {
	instance, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		msg := "arguments: not valid JSON (syntax)"
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg = fmt.Sprintf("arguments: not valid JSON at byte %d (syntax)", se.Offset)
		}
		return &ValidationError{Causes: []Cause{{Keyword: "syntax", Message: msg}}}
	}
	return v.Validate(instance)
}

// validateLib checks instance with the library alone.
func (v *Validator) validateLib(instance any) error {
	var is issues
	if scanNumbers(instance, nil, &is); len(is) > 0 {
		return is.err()
	}
	err := v.lib.Validate(instance)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Causes: []Cause{{Keyword: "schema", Message: "arguments: could not be validated"}}}
	}
	collect(ve, &is)
	return is.err()
}
