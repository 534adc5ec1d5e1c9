package streamhttp

import (
	"net/http"
	"net/url"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/spec"
)

// prepare finishes Prepare once admit has passed.
func (e *Engine) prepare(r *Request, ep endpoint) (*Prepared, *Response) {
	if r.Method == http.MethodPost && int64(len(r.Body)) > e.o.MaxBodyBytes {
		return nil, e.tooLarge()
	}
	switch ep {
	case epSSE:
		return &Prepared{op: opSSEStream}, nil
	case epMessage:
		q, _ := url.ParseQuery(r.RawQuery)
		return &Prepared{op: opSSEPost, body: r.Body, sseSession: q.Get("sessionId")}, nil
	}
	if r.Method != http.MethodPost {
		return e.prepareStream(r)
	}
	return e.preparePost(r)
}

// version is the MCP-Protocol-Version header of a request.
type version struct {
	value   string
	present bool
	ok      bool // false: repeated or a sentinel that does not decode
}

func versionOf(h http.Header) version {
	v, present, ok := headerValue(h, hdrProtocolVersion)
	return version{v, present, ok}
}

// era decides which shape of Streamable HTTP a POST speaks. A served
// revision in the header decides; any other header value is judged by the
// 2026-07-28 rules, which answer it. Without the header, a body carrying
// params._meta's protocolVersion is a 2026-07-28 request missing its
// header; anything else is legacy, assumed 2025-03-26 as the spec allows.
func (e *Engine) era(v version, params []byte) protocol.Era {
	if v.present {
		if d, ok := e.reg.Lookup(v.value); ok && v.ok {
			return d.Era()
		}
		return protocol.Modern
	}
	if _, ok := metaProtocolVersion(params); ok {
		return protocol.Modern
	}
	return protocol.Legacy
}

func (e *Engine) preparePost(r *Request) (*Prepared, *Response) {
	v := versionOf(r.Header)
	if isArray(r.Body) {
		if e.era(v, nil) == protocol.Modern {
			return nil, errorResponse(http.StatusBadRequest, jsonrpc.NullID,
				invalidRequest("%s", protocol.BatchRefusal(spec.Rev20260728)))
		}
		return e.prepareLegacyBatch(r, v)
	}
	msg, derr := jsonrpc.Decode(r.Body, prepareLimits)
	if derr != nil && derr.Code == jsonrpc.CodeParseError {
		return nil, errorResponse(http.StatusBadRequest, jsonrpc.NullID, derr)
	}
	var p *Prepared
	var resp *Response
	if e.era(v, msg.Params) == protocol.Modern {
		p, resp = e.prepareModern(r, v, msg, derr)
	} else {
		p, resp = e.prepareLegacy(r, v, msg, derr)
	}
	if p != nil && derr == nil {
		p.msg, p.decoded = msg, true
	}
	return p, resp
}

// prepareLimits are the limits Prepare decodes bodies under: the defaults,
// like a session of a server that keeps them.
var prepareLimits = jsonrpc.Limits{}

// isArray reports whether a body is a JSON array (a batch).
func isArray(body []byte) bool {
	for _, b := range body {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b == '['
	}
	return false
}
