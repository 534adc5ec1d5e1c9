package router

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router/uritemplate"
	"github.com/polymcp/polymcp/core/spec"
)

// NotFoundError reports a resources/read of a URI that no resource or
// template serves. The dialect layer turns it into -32002 (2025-11-25 and
// earlier) or -32602 with data.uri (2026-07-28). Resource handlers return it
// too, for a URI that matches a template but names nothing.
type NotFoundError struct {
	URI string
}

func (e *NotFoundError) Error() string { return "resource not found: " + e.URI }

// resource is a registered concrete resource.
type resource struct {
	def     spec.Resource
	handler ResourceHandler
}

// template is a registered resource template; completer is set by
// SetCompleter.
type template struct {
	def       spec.ResourceTemplate
	tmpl      *uritemplate.Template
	vars      []string // tmpl.Variables(), kept because that call copies
	handler   ResourceHandler
	completer CompleteHandler
}

// AddResource registers res, or replaces the resource with the same URI in
// its place. The URI must be absolute (have a scheme) and hold no control
// characters or spaces; the name is required.
func (r *Router) AddResource(res spec.Resource, h ResourceHandler) error {
	if h == nil {
		return fmt.Errorf("router: resource %q: nil handler", res.URI)
	}
	if err := checkURI(res.URI); err != nil {
		return fmt.Errorf("router: resource %q: %w", res.URI, err)
	}
	if res.Name == "" {
		return fmt.Errorf("router: resource %q: name is required", res.URI)
	}
	r.resources.put(res.URI, &resource{def: res, handler: h}, nil)
	r.enable(capResources)
	r.changed(ListResources)
	return nil
}

// AddResourceTemplate registers an RFC 6570 resource template, or replaces
// the one with the same uriTemplate string in its place, keeping its
// completer. The template must parse (core/router/uritemplate enforces its
// size and variable limits); the name is required. A template with an
// exploded variable ({/path*}) is listed but never matches in ReadResource.
func (r *Router) AddResourceTemplate(t spec.ResourceTemplate, h ResourceHandler) error {
	if h == nil {
		return fmt.Errorf("router: resource template %q: nil handler", t.URITemplate)
	}
	tmpl, err := uritemplate.Parse(t.URITemplate)
	if err != nil {
		return fmt.Errorf("router: resource template %q: %w", t.URITemplate, err)
	}
	if t.Name == "" {
		return fmt.Errorf("router: resource template %q: name is required", t.URITemplate)
	}
	entry := &template{def: t, tmpl: tmpl, vars: tmpl.Variables(), handler: h}
	r.templates.put(t.URITemplate, entry, func(prev, next *template) { next.completer = prev.completer })
	r.enable(capResources)
	r.changed(ListResources)
	return nil
}

// checkURI is the check every resource URI gets, registered or requested:
// RFC 3986 syntax as net/url reads it, with a scheme, and nothing a log
// line or a naive handler could be fooled by.
func checkURI(uri string) error {
	if uri == "" {
		return errors.New("URI is empty")
	}
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c <= ' ' || c == 0x7f {
			return errors.New("URI holds a control character or space")
		}
	}
	u, err := url.Parse(uri)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URI itself, which the caller already names
		}
		return fmt.Errorf("URI does not parse: %w", err)
	}
	if u.Scheme == "" {
		return errors.New("URI has no scheme")
	}
	return nil
}

// RemoveResources removes the resources with the given URIs and reports
// how many existed.
func (r *Router) RemoveResources(uris ...string) int {
	n := r.resources.remove(uris)
	if n > 0 {
		r.changed(ListResources)
	}
	return n
}

// RemoveResourceTemplates removes the templates with the given uriTemplate
// strings, with their completers, and reports how many existed.
func (r *Router) RemoveResourceTemplates(tmpls ...string) int {
	n := r.templates.remove(tmpls)
	if n > 0 {
		r.changed(ListResources)
	}
	return n
}

// ListResources answers resources/list.
func (r *Router) ListResources(cursor *string) (*spec.ListResourcesResult, *jsonrpc.Error) {
	items, next, err := page(r, methodListResources, r.resources.load(), cursor)
	if err != nil {
		return nil, err
	}
	return &spec.ListResourcesResult{Resources: defs(items, func(res *resource) spec.Resource { return res.def }), NextCursor: next}, nil
}

// ListResourceTemplates answers resources/templates/list.
func (r *Router) ListResourceTemplates(cursor *string) (*spec.ListResourceTemplatesResult, *jsonrpc.Error) {
	items, next, err := page(r, methodListTemplates, r.templates.load(), cursor)
	if err != nil {
		return nil, err
	}
	return &spec.ListResourceTemplatesResult{
		ResourceTemplates: defs(items, func(t *template) spec.ResourceTemplate { return t.def }),
		NextCursor:        next,
	}, nil
}

// ReadResource answers resources/read. An exact resource URI wins; then
// the templates are tried in registration order and the first match serves
// the read. A URI that fails checkURI is -32602; one nothing serves is a
// *NotFoundError. The handler's error is returned as is, for the dispatcher
// to map (a *jsonrpc.Error passes through, others become -32603). Empty
// contents are allowed for a resource that exists but is empty.
func (r *Router) ReadResource(ctx context.Context, req *Request, uri string) (*spec.ReadResourceResult, error) {
	if err := checkURI(uri); err != nil {
		return nil, invalidParams("invalid resource URI: %s", err)
	}
	if res, ok := r.resources.lookup(uri); ok {
		req.deferAs(resourceThen, nil)
		return readResult(res.handler(ctx, req, uri, nil))
	}
	for _, t := range r.templates.load().items {
		if vars, ok := t.tmpl.Match(uri); ok {
			req.deferAs(resourceThen, nil)
			return readResult(t.handler(ctx, req, uri, vars))
		}
	}
	return nil, &NotFoundError{URI: uri}
}

func readResult(res *spec.ReadResourceResult, err error) (*spec.ReadResourceResult, error) {
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &spec.ReadResourceResult{}
	}
	if res.Contents == nil {
		res.Contents = []spec.ResourceContents{}
	}
	return res, nil
}
