package wire

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// modulePath identifies the repository root when FindSchemaDir walks up.
const modulePath = "github.com/polymcp/polymcp"

// ErrNoSchemas is returned by FindSchemaDir when the schema folder is not
// where the repository layout puts it.
var ErrNoSchemas = errors.New("wire: ../shared/spec/schema (the official MCP schemas, a sibling of the repository) not found")

// FindSchemaDir returns the folder of the official schemas,
// <module root>/../shared/spec/schema, found by walking up from the working
// directory to the module's go.mod.
func FindSchemaDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isModuleRoot(dir) {
			schemas := filepath.Join(dir, "..", "shared", "spec", "schema")
			if st, err := os.Stat(schemas); err == nil && st.IsDir() {
				return filepath.Clean(schemas), nil
			}
			return "", ErrNoSchemas
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoSchemas
		}
		dir = parent
	}
}

func isModuleRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && bytes.HasPrefix(b, []byte("module "+modulePath+"\n"))
}

// Schemas holds the official schema of each revision, loaded from one folder
// (<revision>.json files) and compiled lazily. It is safe for concurrent use.
type Schemas struct {
	dir string

	mu   sync.Mutex
	revs map[string]*revSchema
}

// LoadSchemas returns the schemas in dir. Files are read when a revision is
// first asked for.
func LoadSchemas(dir string) *Schemas {
	return &Schemas{dir: dir, revs: map[string]*revSchema{}}
}

// revSchema is one revision's schema document and its compiled definitions.
type revSchema struct {
	revision string
	url      string
	defsKey  string // "definitions" (draft-07) or "$defs" (2020-12)
	defs     map[string]any
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	// byMethod maps a method to the definition of its request or notification.
	byMethod map[string]string
	// byCode maps an error code to the revision's definition for it, if any.
	byCode map[string]string
	// extURL is the document of the revision's extension results, if any.
	extURL string
}

// extSchemas are the extensions' result schemas, by revision: their own
// schemas are not among the official ones.
//
//go:embed ext/*.json
var extSchemas embed.FS

// extPrefix names a definition of the extension document in check.
const extPrefix = "ext/"

// addExtensions adds ext/tasks-<revision>.json, when there is one, to the
// revision's compiler.
func (r *revSchema) addExtensions() error {
	f, err := extSchemas.Open("ext/tasks-" + r.revision + ".json")
	if err != nil {
		return nil // no extension schema for this revision
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return fmt.Errorf("wire: tasks extension schema of %s: %w", r.revision, err)
	}
	r.extURL = "mem:///mcp/ext/tasks-" + r.revision + ".json"
	return r.compiler.AddResource(r.extURL, doc)
}

// extensionCall names the extension definition of a notification or
// server-to-client request, when an extension defines it.
func (r *revSchema) extensionCall(method string) (string, bool) {
	if r.extURL != "" && method == "notifications/tasks" {
		return extPrefix + "TaskNotification", true
	}
	return "", false
}

// extensionResult names the extension definition a result of method is
// checked against, when an extension defines it.
func (r *revSchema) extensionResult(method string, result any) (string, bool) {
	if r.extURL == "" {
		return "", false
	}
	switch method {
	case "tasks/get":
		return extPrefix + "GetTaskResult", true
	case "tasks/update", "tasks/cancel":
		return extPrefix + "TaskAck", true
	case "tools/call":
		if res, _ := result.(map[string]any); res["resultType"] == "task" {
			return extPrefix + "CreateTaskResult", true
		}
	}
	return "", false
}

func (s *Schemas) revision(rev string) (*revSchema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.revs[rev]; ok {
		return r, nil
	}
	r, err := loadRevision(filepath.Join(s.dir, rev+".json"), rev)
	if err != nil {
		return nil, err
	}
	s.revs[rev] = r
	return r, nil
}

func loadRevision(path, rev string) (*revSchema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("wire: schema of %s: %w", rev, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("wire: %s: %w", path, err)
	}
	root, _ := doc.(map[string]any)
	r := &revSchema{revision: rev, url: "mem:///mcp/" + rev + ".json", compiled: map[string]*jsonschema.Schema{},
		byMethod: map[string]string{}, byCode: map[string]string{}}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := root[key].(map[string]any); ok {
			r.defsKey, r.defs = key, defs
			break
		}
	}
	if r.defs == nil {
		return nil, fmt.Errorf("wire: %s has neither $defs nor definitions", path)
	}
	r.compiler = jsonschema.NewCompiler()
	if err := r.compiler.AddResource(r.url, doc); err != nil {
		return nil, fmt.Errorf("wire: %s: %w", path, err)
	}
	if err := r.addExtensions(); err != nil {
		return nil, err
	}
	r.index()
	return r, nil
}

// index finds each method's definition (a "method" property with a const)
// and each error code's (an error "code" with a const).
func (r *revSchema) index() {
	for name, d := range r.defs {
		props := members(d, "properties")
		if c, ok := members(props, "method")["const"].(string); ok {
			// 2026-07-28 defines notifications/cancelled twice; pick one
			// whatever the map order.
			if old, dup := r.byMethod[c]; !dup || name < old {
				r.byMethod[c] = name
			}
		}
		if code := errorCodeConst(props); code != "" {
			r.byCode[code] = name
		}
	}
}

// errorCodeConst returns the const code of an error definition, written
// either as an Error object (properties.code.const) or as a whole response
// (properties.error, possibly through allOf).
func errorCodeConst(props map[string]any) string {
	if n, ok := members(props, "code")["const"].(json.Number); ok {
		return n.String()
	}
	errDef := members(props, "error")
	parts := []any{errDef}
	if all, ok := errDef["allOf"].([]any); ok {
		parts = append(parts, all...)
	}
	for _, p := range parts {
		m, _ := p.(map[string]any)
		if n, ok := members(members(m, "properties"), "code")["const"].(json.Number); ok {
			return n.String()
		}
	}
	return ""
}

// members returns v[key] as an object, or nil.
func members(v any, key string) map[string]any {
	m, _ := v.(map[string]any)
	sub, _ := m[key].(map[string]any)
	return sub
}

// has reports whether the revision defines name.
func (r *revSchema) has(name string) bool {
	_, ok := r.defs[name]
	return ok
}

// check validates v against the named definition, or against a JSON
// pointer inside the document when name starts with "/".
func (r *revSchema) check(name string, v any) error {
	sch, err := r.schema(name)
	if err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s %s: %s", r.revision, name, trimURL(err.Error(), r.url))
	}
	return nil
}

func (r *revSchema) schema(name string) (*jsonschema.Schema, error) {
	// The compiler is not safe for concurrent use; schemas it made are.
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := r.compiled[name]; ok {
		return s, nil
	}
	url, ptr := r.url, name
	switch {
	case strings.HasPrefix(name, extPrefix):
		url, ptr = r.extURL, "/$defs/"+strings.TrimPrefix(name, extPrefix)
	case !strings.HasPrefix(name, "/"):
		ptr = "/" + r.defsKey + "/" + name
	}
	s, err := r.compiler.Compile(url + "#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("wire: compile %s of %s: %w", name, r.revision, err)
	}
	r.compiled[name] = s
	return s, nil
}

// schemaMu serialises compilation across revisions; validation runs free.
var schemaMu sync.Mutex

func trimURL(msg, url string) string {
	return strings.ReplaceAll(msg, url, "")
}
