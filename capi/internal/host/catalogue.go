package host

import (
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// itemKind says which catalogue a tagged registration lives in.
type itemKind uint8

const (
	itemTool itemKind = iota + 1
	itemResource
	itemTemplate
	itemPrompt
	itemCompleter
)

func (k itemKind) String() string {
	return [...]string{"", "tool", "resource", "resource template", "prompt", "completer"}[k]
}

// item names one registration: its catalogue and its key there (tool or
// prompt name, URI, URI template; for a completer, the reference).
type item struct {
	kind itemKind
	key  string
	ref  spec.CompleteRef // completers only
}

// tagTable maps the host's tags to registrations, one each, so that
// polymcp_server_remove(tag) knows what to remove.
type tagTable struct {
	mu    sync.Mutex
	byTag map[uint64]item
	byKey map[item]uint64
}

func (t *tagTable) init() {
	t.byTag = map[uint64]item{}
	t.byKey = map[item]uint64{}
}

// claim checks that tag is free or already names it.
func (t *tagTable) claim(tag uint64, it item) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if prev, ok := t.byTag[tag]; ok && prev != it {
		return errorf(EInvalid, "tag %d already names %s %q; remove it first", tag, prev.kind, prev.key)
	}
	return nil
}

// bind records tag → it once the registration succeeded; a tag that named
// the same item before (it was replaced) is dropped.
func (t *tagTable) bind(tag uint64, it item) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.byKey[it]; ok && old != tag {
		delete(t.byTag, old)
	}
	t.byTag[tag] = it
	t.byKey[it] = tag
}

func (t *tagTable) take(tag uint64) (item, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	it, ok := t.byTag[tag]
	if ok {
		delete(t.byTag, tag)
		if t.byKey[it] == tag {
			delete(t.byKey, it)
		}
	}
	return it, ok
}

// register runs add (the router call, made without the table's lock held:
// it sends list_changed, which may reach host callbacks) between claiming
// and binding the tag.
func (s *Server) register(tag uint64, it item, add func() error) error {
	if err := s.tags.claim(tag, it); err != nil {
		return err
	}
	if err := add(); err != nil {
		return errorf(EInvalid, "%v", err)
	}
	s.tags.bind(tag, it)
	return nil
}

// decodeDef decodes a JSON definition; it must be one object.
func decodeDef(raw []byte, what string, v any) error {
	if jsonrpc.Valid(raw, jsonrpc.Limits{}) != nil || firstByte(raw) != '{' {
		return errorf(EInvalid, "%s definition must be one JSON object", what)
	}
	if err := jsonrpc.UnmarshalRare(raw, v); err != nil {
		return errorf(EInvalid, "%s", jsonrpc.Describe(err, what+" definition"))
	}
	return nil
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// AddTool registers a tool definition (as in tools/list) under tag.
func AddTool(h uint64, def []byte, tag uint64) error {
	return addTool(h, def, router.TaskOptions{}, tag)
}

func addTool(h uint64, def []byte, task router.TaskOptions, tag uint64) error {
	s, err := openServer(h)
	if err != nil {
		return err
	}
	var t spec.Tool
	if err := decodeDef(def, "tool", &t); err != nil {
		return err
	}
	return s.register(tag, item{kind: itemTool, key: t.Name}, func() error {
		return s.srv.AddTaskTool(t, task, s.toolHandler(t.Name, tag))
	})
}

// AddResource registers a concrete resource (as in resources/list).
func AddResource(h uint64, def []byte, tag uint64) error {
	s, err := openServer(h)
	if err != nil {
		return err
	}
	var r spec.Resource
	if err := decodeDef(def, "resource", &r); err != nil {
		return err
	}
	return s.register(tag, item{kind: itemResource, key: r.URI}, func() error {
		return s.srv.AddResource(r, s.resourceHandler(tag))
	})
}

// AddResourceTemplate registers a resource template (as in
// resources/templates/list).
func AddResourceTemplate(h uint64, def []byte, tag uint64) error {
	s, err := openServer(h)
	if err != nil {
		return err
	}
	var t spec.ResourceTemplate
	if err := decodeDef(def, "resource template", &t); err != nil {
		return err
	}
	return s.register(tag, item{kind: itemTemplate, key: t.URITemplate}, func() error {
		return s.srv.AddResourceTemplate(t, s.resourceHandler(tag))
	})
}

// AddPrompt registers a prompt (as in prompts/list).
func AddPrompt(h uint64, def []byte, tag uint64) error {
	s, err := openServer(h)
	if err != nil {
		return err
	}
	var p spec.Prompt
	if err := decodeDef(def, "prompt", &p); err != nil {
		return err
	}
	return s.register(tag, item{kind: itemPrompt, key: p.Name}, func() error {
		return s.srv.AddPrompt(p, s.promptHandler(p.Name, tag))
	})
}

// SetCompleter registers argument completion for a prompt or resource
// template named by ref, a completion/complete "ref" object.
func SetCompleter(h uint64, ref []byte, tag uint64) error {
	s, err := openServer(h)
	if err != nil {
		return err
	}
	var r spec.CompleteRef
	if err := decodeDef(ref, "completion reference", &r); err != nil {
		return err
	}
	key := r.Type + " " + r.Name + r.URI
	return s.register(tag, item{kind: itemCompleter, key: key, ref: r}, func() error {
		return s.srv.SetCompleter(r, s.completeHandler(tag))
	})
}

// Remove removes the registration made under tag; the matching
// list_changed notification follows.
func Remove(h uint64, tag uint64) error {
	s, err := openServer(h)
	if err != nil {
		return err
	}
	it, ok := s.tags.take(tag)
	if !ok {
		return errorf(EInvalid, "no tool, resource, template, prompt or completer has tag %d", tag)
	}
	switch it.kind {
	case itemTool:
		s.srv.RemoveTools(it.key)
	case itemResource:
		s.srv.RemoveResources(it.key)
	case itemTemplate:
		s.srv.RemoveResourceTemplates(it.key)
	case itemPrompt:
		s.srv.RemovePrompts(it.key)
	case itemCompleter:
		// The prompt or template may be gone already, taking its completer.
		_ = s.srv.SetCompleter(it.ref, nil)
	}
	return nil
}

// Notify sends a server notification. Only
// notifications/resources/updated is the host's to send: list_changed
// notifications follow every add and remove by themselves.
func Notify(h uint64, method string, params []byte) error {
	s, err := openServer(h)
	if err != nil {
		return err
	}
	switch method {
	case "notifications/resources/updated":
		var p spec.ResourceUpdatedParams
		if err := decodeDef(params, "notifications/resources/updated params", &p); err != nil {
			return err
		}
		if p.URI == "" {
			return errorf(EInvalid, "notifications/resources/updated: params.uri is required")
		}
		s.srv.ResourceUpdated(p.URI)
		return nil
	case "notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed":
		return errorf(EInvalid, "%s is sent by every add and remove; it cannot be sent alone", method)
	}
	return errorf(EInvalid, "notification %q cannot be sent by the host", method)
}

// taskDef is the task_json of polymcp_server_add_task_tool.
type taskDef struct {
	Support string `json:"support"`
	Start   string `json:"start"`
}

func (d taskDef) options() (router.TaskOptions, error) {
	var o router.TaskOptions
	switch d.Support {
	case spec.TaskSupportForbidden:
	case spec.TaskSupportOptional:
		o.Support = router.TaskOptional
	case spec.TaskSupportRequired:
		o.Support = router.TaskRequired
	default:
		return o, errorf(EInvalid, `task definition: "support" must be "optional", "required" or "forbidden"`)
	}
	switch d.Start {
	case "", "call":
	case "handler":
		o.Start = router.TaskByHandler
	default:
		return o, errorf(EInvalid, `task definition: "start" must be "call" or "handler"`)
	}
	return o, nil
}

// AddTaskTool registers a tool whose calls may become tasks (2026-07-28).
func AddTaskTool(h uint64, def, task []byte, tag uint64) error {
	var d taskDef
	if err := decodeStrict(task, "task", &d); err != nil {
		return err
	}
	opts, err := d.options()
	if err != nil {
		return err
	}
	return addTool(h, def, opts, tag)
}
