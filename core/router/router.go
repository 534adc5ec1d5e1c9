package router

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unicode/utf8"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router/cursor"
)

// DefaultPageSize is the page size of the list methods when Options.PageSize
// is zero.
const DefaultPageSize = 100

// Options configure a Router. The zero value is usable.
type Options struct {
	// PageSize is how many items a list page holds; <= 0 means DefaultPageSize.
	PageSize int
	// CursorKey authenticates pagination cursors. Empty means a random key,
	// so cursors die with the process; replicas behind one endpoint share a
	// key so that any of them accepts the others' cursors.
	CursorKey []byte
	// OnListChanged, when set, is called after every change to a list (add,
	// replace, remove), initial registrations included; the dispatcher
	// decides whether anyone is listening. It runs on the goroutine that
	// made the change, after the Router's locks are released, so it may call
	// back into the Router.
	OnListChanged func(list List)
}

// List names a list whose change clients can be told about.
type List uint8

// The lists. Resource templates have no list of their own: the protocol's
// notifications/resources/list_changed covers both resources/list and
// resources/templates/list, so a template change reports ListResources.
const (
	ListTools List = iota + 1
	ListResources
	ListPrompts
)

func (l List) String() string {
	switch l {
	case ListTools:
		return "tools"
	case ListResources:
		return "resources"
	case ListPrompts:
		return "prompts"
	}
	return fmt.Sprintf("List(%d)", uint8(l))
}

// Capability bits, set once and never cleared.
const (
	capTools uint32 = 1 << iota
	capResources
	capPrompts
	capCompletions
	capTasks
)

// Method names that cursors are bound to.
const (
	methodListTools     = "tools/list"
	methodListResources = "resources/list"
	methodListTemplates = "resources/templates/list"
	methodListPrompts   = "prompts/list"
)

// Router holds the catalogues. Create it with New.
type Router struct {
	pageSize int
	codec    *cursor.Codec
	onChange func(List)
	caps     atomic.Uint32

	tools     table[tool]
	resources table[resource]
	templates table[template]
	prompts   table[prompt]
}

// New returns an empty Router.
func New(opts Options) *Router {
	size := opts.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	return &Router{pageSize: size, codec: cursor.NewCodec(opts.CursorKey), onChange: opts.OnListChanged}
}

// Capabilities reports which server capabilities to advertise: a catalogue
// counts once anything was registered in it (completions: once a completer
// was set), and keeps counting after its last item is removed, because a
// capability that comes and goes mid-session would break clients that
// checked it at initialize.
func (r *Router) Capabilities() (tools, resources, prompts, completions bool) {
	c := r.caps.Load()
	return c&capTools != 0, c&capResources != 0, c&capPrompts != 0, c&capCompletions != 0
}

// enable records that a catalogue is in use.
func (r *Router) enable(bit uint32) { r.caps.Or(bit) }

// changed reports a change to list.
func (r *Router) changed(list List) {
	if r.onChange != nil {
		r.onChange(list)
	}
}

// page returns the items of the page cursor points at in v, and the cursor
// of the next page ("" on the last). A nil or empty cursor means the first
// page: empty is accepted because Encode never issues it and some clients
// send it to start.
func page[V any](r *Router, method string, v *view[V], cur *string) ([]*V, string, *jsonrpc.Error) {
	off := 0
	if cur != nil && *cur != "" {
		n, err := r.codec.Decode(*cur, method, v.version)
		if err != nil {
			return nil, "", cursorError(err)
		}
		off = n
	}
	if off > len(v.items) {
		// Only a forged offset could get here: the version matched, so the
		// list has not shrunk since the cursor was issued.
		return nil, "", invalidParams("invalid cursor")
	}
	end := off + min(r.pageSize, len(v.items)-off)
	next := ""
	if end < len(v.items) {
		next = r.codec.Encode(method, v.version, end)
	}
	return v.items[off:end], next, nil
}

// defs copies the definitions out of a page, so that the caller owns the
// slice it is given.
func defs[V, D any](items []*V, def func(*V) D) []D {
	out := make([]D, len(items))
	for i, it := range items {
		out[i] = def(it)
	}
	return out
}

func cursorError(err error) *jsonrpc.Error {
	if errors.Is(err, cursor.ErrExpired) {
		return invalidParams("cursor expired; list again")
	}
	return invalidParams("invalid cursor")
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeInvalidParams, format, args...)
}

// handlerError turns a prompt or completion handler's error into the wire
// error: a *jsonrpc.Error passes through, anything else is -32603 with the
// error's message.
func handlerError(err error) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error(), Kind: jsonrpc.KindExecution}
}

// maxEchoed bounds client-supplied names repeated in error messages.
const maxEchoed = 128

// echo returns s for an error message, cut to maxEchoed bytes on a rune
// boundary; names longer than that are never valid anyway.
func echo(s string) string {
	if len(s) <= maxEchoed {
		return s
	}
	cut := maxEchoed
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
