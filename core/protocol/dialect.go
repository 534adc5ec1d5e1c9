// Package protocol knows the MCP revisions: one Dialect per revision, each
// with its method catalogue (data, checked when the Registry is built), its
// admission style (initialize-era session or per-request _meta), and how it
// shapes results and errors for the wire.
//
// The legacy revisions (2024-11-05 … 2025-11-25) share one implementation
// parameterised by revision; the modern revision (2026-07-28) has its own.
// Dialects never import each other.
package protocol

import (
	"net/http"
	"sync/atomic"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// Era separates the initialize-handshake revisions from the stateless ones.
type Era uint8

const (
	Legacy Era = iota + 1 // 2024-11-05 … 2025-11-25: initialize, sessions
	Modern                // 2026-07-28: per-request _meta, no sessions
)

// Shaping is what a dialect needs to finish a result.
type Shaping struct {
	Method     string
	ServerInfo *spec.Implementation
	Cache      CachePolicy
}

// CachePolicy gives the ttlMs and cacheScope written on cacheable results.
type CachePolicy struct {
	TTLMs int64
	Scope string
}

// Dialect is one revision's wire behaviour.
type Dialect interface {
	// Revision is the protocolVersion string, e.g. "2025-06-18".
	Revision() string
	Era() Era
	Catalogue() *Catalogue
	// Batches reports whether JSON-RPC batches are allowed (2025-03-26 only).
	Batches() bool
	// Shape fills the revision's result members (resultType, _meta, cache
	// hints) in place, just before r is encoded. r.Base().Meta is replaced by
	// a copy when members are added, so a handler's map is never mutated.
	Shape(r spec.Result, s Shaping)
	// ResourceNotFound is this revision's error for an unknown resource uri.
	ResourceNotFound(uri string) *jsonrpc.Error
	// HTTPStatus is the status an HTTP response carrying e should have.
	HTTPStatus(e *jsonrpc.Error) int
}

// legacy is the shared initialize-era dialect.
type legacy struct {
	rev string
	cat *Catalogue
	// downgrades: the revision predates a content block type or a member
	// that results may hold (see downgrade.go); from 2025-06-18 on there
	// is nothing to rewrite.
	downgrades bool
}

func (d *legacy) Revision() string      { return d.rev }
func (d *legacy) Era() Era              { return Legacy }
func (d *legacy) Catalogue() *Catalogue { return d.cat }
func (d *legacy) Batches() bool         { return d.rev == spec.Rev20250326 }

// Shape leaves legacy results as the handler built them: the modern members
// are empty and therefore omitted.
func (d *legacy) Shape(r spec.Result, s Shaping) {
	b := r.Base()
	b.ResultType, b.TTLMs, b.CacheScope = "", nil, ""
	if d.downgrades {
		downgradeContent(d.rev, r)
		downgradeMetadata(d.rev, r)
	}
}

func (d *legacy) ResourceNotFound(uri string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeResourceNotFound, Message: "resource not found: " + uri,
		Data: map[string]any{"uri": uri}, Kind: jsonrpc.KindProtocol}
}

// HTTPStatus answers JSON-RPC errors with 200 where the spec leaves the
// status open: legacy clients treat any non-2xx as a transport failure.
func (d *legacy) HTTPStatus(e *jsonrpc.Error) int {
	if e.Code == jsonrpc.CodeParseError {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// modern is the 2026-07-28 dialect.
type modern struct {
	rev string
	cat *Catalogue
	// info is the _meta of a result that had none: the server's info
	// alone, the same map for every such result (see Shape).
	info atomic.Pointer[infoMeta]
}

type infoMeta struct {
	server *spec.Implementation
	meta   spec.Meta
}

// infoOnly returns the _meta holding only info. The map is shared and never
// written: Shape copies a result's _meta before adding to it, and nothing
// else writes a shaped result's _meta. One map per result was a tenth of
// Shape's cost and two allocations per call.
func (d *modern) infoOnly(info *spec.Implementation) spec.Meta {
	if m := d.info.Load(); m != nil && m.server == info {
		return m.meta
	}
	m := &infoMeta{server: info, meta: spec.Meta{spec.MetaServerInfo: info}}
	d.info.Store(m)
	return m.meta
}

func (d *modern) Revision() string      { return d.rev }
func (d *modern) Era() Era              { return Modern }
func (d *modern) Catalogue() *Catalogue { return d.cat }
func (d *modern) Batches() bool         { return false }

func (d *modern) Shape(r spec.Result, s Shaping) {
	b := r.Base()
	if b.ResultType == "" {
		b.ResultType = spec.ResultComplete
	}
	if len(b.Meta) == 0 && s.ServerInfo != nil {
		b.Meta = d.infoOnly(s.ServerInfo)
	} else {
		meta := make(spec.Meta, len(b.Meta)+1)
		for k, v := range b.Meta {
			meta[k] = v
		}
		if s.ServerInfo != nil {
			meta[spec.MetaServerInfo] = s.ServerInfo
		}
		b.Meta = meta
	}
	if m, ok := d.cat.Lookup(s.Method); ok && m.Cacheable && b.ResultType == spec.ResultComplete {
		ttl := max(s.Cache.TTLMs, 0)
		b.TTLMs = &ttl
		b.CacheScope = s.Cache.Scope
		if b.CacheScope == "" {
			b.CacheScope = spec.CachePrivate
		}
	} else {
		b.TTLMs, b.CacheScope = nil, ""
	}
}

func (d *modern) ResourceNotFound(uri string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resource not found: " + uri,
		Data: map[string]any{"uri": uri}, Kind: jsonrpc.KindProtocol}
}

// HTTPStatus follows the 2026-07-28 status map; codes it leaves open get 400
// for caller mistakes and 500 for server failures.
func (d *modern) HTTPStatus(e *jsonrpc.Error) int {
	switch e.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInternalError:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// BatchRefusal is the message of the -32600 that refuses a JSON-RPC batch
// received at revision rev ("" when no revision is known yet, before
// initialize): every transport refuses batches with the same words.
func BatchRefusal(rev string) string {
	if rev == "" {
		return "JSON-RPC batches are only accepted after initialize at revision 2025-03-26"
	}
	return "JSON-RPC batches are only accepted at revision 2025-03-26, not " + rev
}
