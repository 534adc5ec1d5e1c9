package dispatch

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// requestMeta is the part of params._meta the core itself reads.
type requestMeta struct {
	ProtocolVersion    *string              `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage      `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         *spec.Implementation `json:"io.modelcontextprotocol/clientInfo"`
	LogLevel           *spec.LoggingLevel   `json:"io.modelcontextprotocol/logLevel"`
	ProgressToken      json.RawMessage      `json:"progressToken"`
}

var metaNames = []string{spec.MetaProtocolVersion, spec.MetaClientCapabilities, spec.MetaClientInfo,
	spec.MetaLogLevel, spec.MetaProgressToken}

// readPlain reads raw, a _meta object, into m in one pass without a
// decoder, when that is sure to read what the decoder would: each member
// read comes once, the version and the log level are plain strings, the
// capabilities and the progress token are not null, and the clientInfo, if
// any, is one readInfo can read into info. It reports false otherwise,
// when the decoder must (and names the faults). The decoder cost a tenth
// of a small modern call, and most clients send their clientInfo with
// every 2026-07-28 request.
func (m *requestMeta) readPlain(raw []byte, infos *memo[spec.Implementation]) bool {
	var v [5][]byte
	if !jsonrpc.MembersOnce(raw, metaNames, v[:]) {
		return false
	}
	if v[0] != nil {
		m.ProtocolVersion = knownRevision(v[0])
		if m.ProtocolVersion == nil {
			s, ok := jsonrpc.PlainString(v[0])
			if !ok {
				return false
			}
			m.ProtocolVersion = &s
		}
	}
	if v[1] != nil && v[1][0] == 'n' || v[4] != nil && v[4][0] == 'n' {
		return false
	}
	if v[2] != nil {
		info, err := infos.get(v[2], readInfo)
		if err != nil {
			return false
		}
		m.ClientInfo = info
	}
	if v[3] != nil {
		s, ok := jsonrpc.PlainString(v[3])
		if !ok {
			return false
		}
		level := spec.LoggingLevel(s)
		m.LogLevel = &level
	}
	m.ClientCapabilities, m.ProgressToken = v[1], v[4]
	return true
}

// knownRevision returns raw, a JSON string, as a pointer into revisions
// when it is one of spec.Revisions, else nil: most requests name one, and
// need no copy of it.
func knownRevision(raw []byte) *string {
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	body := raw[1 : len(raw)-1]
	for i := range revisions {
		if string(body) == revisions[i] {
			return &revisions[i]
		}
	}
	return nil
}

// revisions is knownRevision's copy of spec.Revisions, which it points
// into: admissions share these strings and never write through the pointer.
var revisions = slices.Clone(spec.Revisions)

var infoNames = []string{"name", "title", "version", "description", "websiteUrl", "icons"}

// errNotPlain: a clientInfo that readInfo leaves to the decoder.
var errNotPlain = errors.New("not a plain clientInfo")

// readInfo reads raw, a clientInfo, into info when it is an object whose
// members of Implementation come once each as plain strings (icons, a list
// of objects, is left to the decoder).
func readInfo(raw []byte, info *spec.Implementation) error {
	var v [6][]byte
	if raw[0] != '{' || !jsonrpc.MembersOnce(raw, infoNames, v[:]) || v[5] != nil {
		return errNotPlain
	}
	fields := [5]*string{&info.Name, &info.Title, &info.Version, &info.Description, &info.WebsiteURL}
	for i, f := range fields {
		if v[i] == nil {
			continue
		}
		s, ok := jsonrpc.PlainString(v[i])
		if !ok {
			return errNotPlain
		}
		*f = s
	}
	return nil
}

// admission is the verdict on one request: the dialect it speaks and what
// its _meta said.
type admission struct {
	dialect protocol.Dialect
	meta    requestMeta
	// logLevel is the minimum severity of notifications/message; -1 = none.
	logLevel int
	// params are the members of params the core reads itself.
	params paramMembers
	// inputRequired: the method may ask the client for input (its
	// catalogue entry, read once by checkMethod).
	inputRequired bool
}

// paramMembers are the members of a request's params that admission, the
// tools/call path and the input rounds read (jsonrpc.ParamNames): located
// by the decoder as it validated params, or else in one pass over them (a
// lookup each scanned a large argument up to five times). Each is kept as
// its span in params: five slices made the call, which holds them, a size
// class larger.
type paramMembers = jsonrpc.ParamSpans

// The members paramMembers holds, by index.
const (
	paramMeta           = jsonrpc.ParamMeta
	paramName           = jsonrpc.ParamName
	paramArguments      = jsonrpc.ParamArguments
	paramRequestState   = jsonrpc.ParamRequestState
	paramInputResponses = jsonrpc.ParamInputResponses
	numParams           = jsonrpc.NumParams
)

// scanParams returns where msg's params members lie: as Decode located
// them, or as one pass of jsonrpc.Members finds them.
func scanParams(msg *jsonrpc.Message) paramMembers {
	if spans, ok := msg.LocatedParams(); ok {
		return spans
	}
	var v [numParams][]byte
	var p paramMembers
	params := msg.Params
	jsonrpc.Members(params, jsonrpc.ParamNames[:], v[:])
	for i, b := range v {
		if b != nil {
			// b lies within params: its capacity says where.
			start := cap(params) - cap(b)
			p[i].Start, p[i].End = uint32(start), uint32(start+len(b))
		}
	}
	return p
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeInvalidParams, format, args...)
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeMethodNotFound, "method not found: %s", method)
}

// admit decides the request's dialect into a, its call's (zero) admission,
// and checks it may be served. a's dialect is set even on error when it is
// known, so the error can be shaped for the revision.
func (s *Session) admit(msg *jsonrpc.Message, a *admission, req *router.Request) *jsonrpc.Error {
	if uint64(len(msg.Params)) >= math.MaxUint32 {
		return invalidParams("params over 4 GiB") // past what a span holds
	}
	a.params = scanParams(msg)
	if raw := a.params.Value(msg.Params, paramMeta); len(raw) > 0 {
		if raw[0] != '{' {
			return invalidParams("params._meta must be an object")
		}
		if !a.meta.readPlain(raw, &s.rt.clients.info) {
			a.meta = requestMeta{}
			if err := jsonrpc.UnmarshalDecoded(raw, &a.meta); err != nil {
				return invalidParams("%s", jsonrpc.Describe(err, "params._meta"))
			}
		}
		req.RawMeta = raw
	}
	if a.meta.ProtocolVersion != nil || (s.fixed != nil && s.fixed.Era() == protocol.Modern) {
		return s.admitModern(msg.Method, a, req)
	}
	return s.admitLegacy(msg.Method, a, req)
}

// admitModern applies the 2026-07-28 per-request rules.
func (s *Session) admitModern(method string, a *admission, req *router.Request) *jsonrpc.Error {
	if a.meta.ProtocolVersion == nil {
		return invalidParams("params._meta[%q] is required", spec.MetaProtocolVersion)
	}
	requested := *a.meta.ProtocolVersion
	d, ok := s.rt.registry.Lookup(requested)
	if !ok || d.Era() != protocol.Modern {
		return jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeUnsupportedProtocolVersion,
			"unsupported protocol version %q", requested).
			WithData(map[string]any{"supported": s.rt.registry.Modern(), "requested": requested})
	}
	a.dialect = d
	if len(a.meta.ClientCapabilities) == 0 || a.meta.ClientCapabilities[0] != '{' {
		return invalidParams("params._meta[%q] is required and must be an object", spec.MetaClientCapabilities)
	}
	// The empty object, what most requests carry, is the zero value: no
	// decoder needed.
	req.ClientCapabilities = &s.rt.clients.none
	if raw := a.meta.ClientCapabilities; string(raw) != "{}" {
		caps, err := s.rt.clients.caps.get(raw, readCaps)
		if err != nil {
			return invalidParams("%s", jsonrpc.Describe(err, "params._meta["+strconv.Quote(spec.MetaClientCapabilities)+"]"))
		}
		req.ClientCapabilities = caps
	}
	req.ClientInfo = a.meta.ClientInfo
	a.logLevel = -1
	if a.meta.LogLevel != nil {
		sev, ok := a.meta.LogLevel.Severity()
		if !ok {
			return invalidParams("params._meta[%q]: unknown level", spec.MetaLogLevel)
		}
		a.logLevel = sev
	}
	return s.checkMethod(d, method, a, req)
}

func readCaps(raw []byte, caps *spec.ClientCapabilities) error {
	return jsonrpc.UnmarshalDecoded(raw, caps)
}

// admitLegacy applies the initialize-era rules: the session's negotiated
// revision governs every request after initialize.
func (s *Session) admitLegacy(method string, a *admission, req *router.Request) *jsonrpc.Error {
	st := s.state.Load()
	switch {
	case method == "initialize":
		a.dialect = s.fixedOrNewestLegacy()
		if a.dialect == nil {
			return methodNotFound(method)
		}
		if st != nil {
			return jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeInvalidRequest, "session already initialized")
		}
		return nil
	case st == nil && method == "ping":
		// ping is allowed before initialize.
		a.dialect, a.logLevel = s.fixedOrNewestLegacy(), -1
		if a.dialect == nil {
			return methodNotFound(method)
		}
		return nil
	case st == nil:
		return invalidParams("session not initialized: send initialize first, or put %q in params._meta", spec.MetaProtocolVersion)
	}
	a.dialect, a.logLevel = st.dialect, st.logLevel
	req.ClientCapabilities, req.ClientInfo = &st.clientCaps, &st.clientInfo
	return s.checkMethod(st.dialect, method, a, req)
}

func (s *Session) fixedOrNewestLegacy() protocol.Dialect {
	if s.fixed != nil && s.fixed.Era() == protocol.Legacy {
		return s.fixed
	}
	d, _ := s.rt.registry.Negotiate("")
	return d
}

// checkMethod refuses methods the revision does not define as client
// requests and those gated on a capability or extension the server does
// not offer (-32601), then those of an extension the request's client
// capabilities do not declare (-32021).
func (s *Session) checkMethod(d protocol.Dialect, method string, a *admission, req *router.Request) *jsonrpc.Error {
	m, ok := d.Catalogue().Lookup(method)
	if !ok || m.Kind != protocol.Request || m.Dir&protocol.ClientToServer == 0 || !s.rt.offers(m.ServerCap) ||
		!s.rt.offersExtension(m.Extension) {
		return methodNotFound(method)
	}
	if m.Extension != "" && !declares(req.ClientCapabilities, m.Extension) {
		return router.MissingExtension(method, m.Extension)
	}
	a.inputRequired = m.InputRequired
	return nil
}

// declares reports whether the request's client capabilities caps
// declare extension ext (an object under extensions).
func declares(caps *spec.ClientCapabilities, ext string) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[ext].(map[string]any)
	return ok
}
