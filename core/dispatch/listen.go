package dispatch

import (
	"context"
	"errors"
	"slices"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// SubscriptionFilter is the notifications member of subscriptions/listen.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs asks for notifications/tasks about these tasks (the tasks
	// extension); the request must declare the extension.
	TaskIDs []string `json:"taskIds,omitempty"`
}

type listenParams struct {
	Notifications SubscriptionFilter `json:"notifications"`
}

// listener is one open subscriptions/listen stream (2026-07-28).
type listener struct {
	c      *call
	filter SubscriptionFilter
	// subID is the listen request's id as JSON, carried in every message.
	subID jsonrpc.RawJSON
}

// errStreamOpen tells request() that the method answered nothing yet: the
// call stays open until cancelled or until the server ends it.
var errStreamOpen = errors.New("polymcp: stream stays open")

// listen acknowledges the subscription with the subset of the filter the
// server can honour, then keeps the request open as a notification stream.
func listen(ctx context.Context, c *call) (spec.Result, error) {
	var p listenParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	rt := c.s.rt
	f := p.Notifications
	f.ToolsListChanged = f.ToolsListChanged && rt.offers(protocol.CapTools)
	f.PromptsListChanged = f.PromptsListChanged && rt.offers(protocol.CapPrompts)
	f.ResourcesListChanged = f.ResourcesListChanged && rt.offers(protocol.CapResources)
	if !rt.offers(protocol.CapResourcesSubscribe) {
		f.ResourceSubscriptions = nil
	}
	if len(f.TaskIDs) > 0 {
		if rt.offersExtension(spec.ExtensionTasks) && !declares(c.req.ClientCapabilities, spec.ExtensionTasks) {
			return nil, router.MissingExtension("task notifications", spec.ExtensionTasks)
		}
		f.TaskIDs = rt.tasks.known(f.TaskIDs, rt.now())
	}
	l := &listener{c: c, filter: f, subID: jsonrpc.AppendID(nil, c.id)}
	ack, err := jsonrpc.Marshal(map[string]any{"notifications": f, "_meta": l.meta()})
	if err != nil {
		return nil, err
	}
	if err := c.notify("notifications/subscriptions/acknowledged", ack); err != nil {
		return nil, err
	}
	rt.addListener(l)
	c.onEnd = func() { rt.removeListener(l) }
	// A closed stream (the transport cancels ctx) ends the subscription.
	context.AfterFunc(ctx, func() { c.abandon(context.Cause(ctx)) })
	return nil, errStreamOpen
}

func (l *listener) meta() spec.Meta { return spec.Meta{spec.MetaSubscriptionID: l.subID} }

// wants reports whether the listener asked for method (about uri).
func (l *listener) wants(method, uri string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return l.filter.ToolsListChanged
	case "notifications/prompts/list_changed":
		return l.filter.PromptsListChanged
	case "notifications/resources/list_changed":
		return l.filter.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.Contains(l.filter.ResourceSubscriptions, uri)
	case "notifications/tasks":
		return slices.Contains(l.filter.TaskIDs, uri)
	}
	return false
}

func (l *listener) deliver(method string, params map[string]any) {
	params["_meta"] = l.meta()
	body, err := jsonrpc.Marshal(params)
	if err == nil {
		_ = l.c.notify(method, body)
	}
}

func (rt *Runtime) addListener(l *listener) {
	rt.mu.Lock()
	rt.listeners[l] = struct{}{}
	rt.mu.Unlock()
}

func (rt *Runtime) removeListener(l *listener) {
	rt.mu.Lock()
	delete(rt.listeners, l)
	rt.mu.Unlock()
}

// broadcast sends a change notification to the listeners that asked for it.
func (rt *Runtime) broadcast(method, uri string) {
	for _, l := range rt.listening(method, uri) {
		params := map[string]any{}
		if uri != "" {
			params["uri"] = uri
		}
		l.deliver(method, params)
	}
}

// listening returns the listeners that asked for method (about uri, or a
// task id).
func (rt *Runtime) listening(method, uri string) []*listener {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var ls []*listener
	for l := range rt.listeners {
		if l.wants(method, uri) {
			ls = append(ls, l)
		}
	}
	return ls
}

// taskChanged sends notifications/tasks, the task as tasks/get shows it,
// to the listeners that asked about the task. Changes that race are told
// in order, each at most once: a snapshot no newer than the last one told
// is not sent.
func (rt *Runtime) taskChanged(t *task) {
	t.notifyMu.Lock()
	defer t.notifyMu.Unlock()
	ls := rt.listening("notifications/tasks", t.id)
	if len(ls) == 0 {
		return
	}
	d, changes := t.snapshot()
	if changes <= t.notified {
		return
	}
	t.notified = changes
	for _, l := range ls {
		d.Meta = l.meta()
		if body, err := jsonrpc.Marshal(d); err == nil {
			_ = l.c.notify("notifications/tasks", body)
		}
	}
}

// EndListeners ends every open subscription gracefully with its result, as
// a server shutting down should.
func (rt *Runtime) EndListeners() { rt.endListeners(nil) }

// EndListeners ends this session's open subscriptions gracefully with their
// result, as a transport shutting down should while other transports of the
// same server go on.
func (s *Session) EndListeners() { s.rt.endListeners(s) }

// endListeners finishes the listeners of session s, or of every session
// when s is nil.
func (rt *Runtime) endListeners(s *Session) {
	rt.mu.Lock()
	ls := make([]*listener, 0, len(rt.listeners))
	for l := range rt.listeners {
		if s == nil || l.c.s == s {
			ls = append(ls, l)
		}
	}
	rt.mu.Unlock()
	for _, l := range ls {
		l.c.finish(&spec.EmptyResult{ResultBase: spec.ResultBase{Meta: l.meta()}}, nil)
	}
}
