package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// InputRequest is one thing a handler asks the client for: an elicitation
// (spec.MethodElicit), a sampling (spec.MethodCreateMessage) or the roots
// (spec.MethodListRoots). Params is encoded with jsonrpc.Marshal; a
// json.RawMessage passes through as is.
type InputRequest struct {
	Method string
	Params any
}

// Elicitation, Sampling and ListRoots build the three kinds of InputRequest.
func Elicitation(p *spec.ElicitParams) InputRequest {
	return InputRequest{Method: spec.MethodElicit, Params: p}
}

// Sampling asks the client's model for a message.
func Sampling(p *spec.CreateMessageParams) InputRequest {
	return InputRequest{Method: spec.MethodCreateMessage, Params: p}
}

// ListRoots asks the client for its roots.
func ListRoots() InputRequest {
	return InputRequest{Method: spec.MethodListRoots, Params: json.RawMessage(`{}`)}
}

// Inputter is implemented by the dispatcher: it obtains the client's
// answers to input requests in the way the request's revision allows.
//
//   - 2025-11-25 and earlier: each request is sent to the client as a
//     server-to-client JSON-RPC request while the handler waits, and the
//     client's response is returned.
//   - 2026-07-28: the answers come from the request's inputResponses (and
//     the answers of earlier rounds kept in its requestState). Requests not
//     answered yet are collected and Input returns ErrInputRequired; the
//     handler returns that error and the core answers input_required with
//     every request collected so far. The client retries, and the handler
//     runs again from the start, this time getting the answers.
//
// InputState returns the state a handler kept with SetInputState in an
// earlier round (2026-07-28, carried integrity-protected in requestState),
// or earlier in the same run (legacy revisions, where there is one round).
type Inputter interface {
	Input(ctx context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error)
	InputState() []byte
	SetInputState(state []byte)
}

// ErrInputRequired is returned by Request.Input and its helpers on
// 2026-07-28 when the client has yet to answer; a handler returns it (as
// is or wrapped) so that the core answers input_required. It is a
// *jsonrpc.Error so that code which does not know it still fails the
// request with -32603 rather than inventing a result.
var ErrInputRequired = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
	Message: "polymcp: the request needs input from the client, and this request cannot carry it",
	Kind:    jsonrpc.KindExecution}

// ErrNoInput is returned when a request cannot ask the client for input:
// a Request built by hand, or a method other than tools/call, prompts/get
// and resources/read.
var ErrNoInput = errors.New("polymcp: this request cannot ask the client for input")

// MissingCapabilityError reports an input request of a kind the client did
// not declare (sampling, elicitation or its mode, roots). On 2026-07-28 it
// is the protocol error -32021 with data.requiredCapabilities (errors.As
// to *jsonrpc.Error yields it, so a handler that returns it answers so);
// on the legacy revisions it is an ordinary error, which a tool handler
// returns as an isError result.
type MissingCapabilityError struct {
	Method string
	// Required is the ClientCapabilities object naming what is missing,
	// e.g. {"sampling":{}} or {"elicitation":{"url":{}}}.
	Required json.RawMessage
	// Modern is set on 2026-07-28, where the error is -32021.
	Modern bool
}

func (e *MissingCapabilityError) Error() string {
	return fmt.Sprintf("the client did not declare the capability %s needs: %s", e.Method, e.Required)
}

// As makes a 2026-07-28 MissingCapabilityError a -32021 *jsonrpc.Error.
func (e *MissingCapabilityError) As(target any) bool {
	t, ok := target.(**jsonrpc.Error)
	if !ok || !e.Modern {
		return false
	}
	*t = e.RPCError()
	return true
}

// RPCError is the -32021 MissingRequiredClientCapability error.
func (e *MissingCapabilityError) RPCError() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeMissingClientCapability,
		"the client did not declare the capability %s needs", e.Method).
		WithData(map[string]any{"requiredCapabilities": e.Required})
}

// ClientError is the JSON-RPC error a client answered a server-to-client
// request with (legacy revisions).
type ClientError struct {
	Method  string
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("the client answered %s with error %d: %s", e.Method, e.Code, e.Message)
}

// Input asks the client for every request of reqs (keyed by names the
// handler chooses: they are the keys of inputRequests on 2026-07-28) and
// returns the client's results under the same keys, as raw JSON objects.
// See Inputter for how each revision gets them. A handler must return
// ErrInputRequired when Input returns it.
func (r *Request) Input(ctx context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	if r == nil || r.Inputs == nil {
		return nil, ErrNoInput
	}
	if len(reqs) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	for k, q := range reqs {
		if k == "" {
			return nil, errors.New("polymcp: an input request key must not be empty")
		}
		switch q.Method {
		case spec.MethodElicit, spec.MethodCreateMessage, spec.MethodListRoots:
		default:
			return nil, fmt.Errorf("polymcp: input request %q: unknown method %q", k, q.Method)
		}
	}
	return r.Inputs.Input(ctx, reqs)
}

// InputState returns the state kept by SetInputState (see Inputter), or
// nil.
func (r *Request) InputState() []byte {
	if r == nil || r.Inputs == nil {
		return nil
	}
	return r.Inputs.InputState()
}

// SetInputState keeps state for the next round of a 2026-07-28 request
// (the core carries it in requestState, integrity-protected, never
// encrypted: do not keep secrets in it). It does nothing on a Request
// without an Inputter.
func (r *Request) SetInputState(state []byte) {
	if r != nil && r.Inputs != nil {
		r.Inputs.SetInputState(state)
	}
}

// Elicit asks the user, through the client, for the input p describes.
func (r *Request) Elicit(ctx context.Context, key string, p *spec.ElicitParams) (*spec.ElicitResult, error) {
	var res spec.ElicitResult
	if err := r.one(ctx, key, Elicitation(p), &res); err != nil {
		return nil, err
	}
	switch res.Action {
	case spec.ElicitAccept, spec.ElicitDecline, spec.ElicitCancel:
		return &res, nil
	}
	return nil, invalidParams("%s: the answer to %s has no valid action (accept, decline or cancel)", echo(key), spec.MethodElicit)
}

// Sample asks the client's model for a message.
func (r *Request) Sample(ctx context.Context, key string, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
	var res spec.CreateMessageResult
	if err := r.one(ctx, key, Sampling(p), &res); err != nil {
		return nil, err
	}
	if len(res.Content) == 0 {
		return nil, invalidParams("%s: the answer to %s has no content", echo(key), spec.MethodCreateMessage)
	}
	return &res, nil
}

// Roots asks the client for its roots.
func (r *Request) Roots(ctx context.Context, key string) (*spec.ListRootsResult, error) {
	var res spec.ListRootsResult
	if err := r.one(ctx, key, ListRoots(), &res); err != nil {
		return nil, err
	}
	if res.Roots == nil {
		return nil, invalidParams("%s: the answer to %s has no roots array", echo(key), spec.MethodListRoots)
	}
	return &res, nil
}

// one asks for a single input and decodes the answer into v.
func (r *Request) one(ctx context.Context, key string, q InputRequest, v any) error {
	got, err := r.Input(ctx, map[string]InputRequest{key: q})
	if err != nil {
		return err
	}
	if err := jsonrpc.UnmarshalDecoded(got[key], v); err != nil {
		return invalidParams("the answer to %s is malformed: %s", q.Method, jsonrpc.Describe(err, "inputResponses."+key))
	}
	return nil
}

// SortedKeys returns the keys of an input request map in order, the order
// in which the core sends them.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// IsInputRequired reports whether err asks the core to answer
// input_required.
func IsInputRequired(err error) bool {
	return errors.Is(err, ErrInputRequired)
}

// Declared reports whether the client declared the capability an input
// request of method needs (elicitation, sampling, roots), at the top level
// only: Input applies the finer rules (elicitation modes, sampling tools).
func (r *Request) Declared(method string) bool {
	if r == nil || r.ClientCapabilities == nil {
		return false
	}
	var raw json.RawMessage
	switch method {
	case spec.MethodElicit:
		raw = r.ClientCapabilities.Elicitation
	case spec.MethodCreateMessage:
		raw = r.ClientCapabilities.Sampling
	case spec.MethodListRoots:
		raw = r.ClientCapabilities.Roots
	}
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '{'
	}
	return false
}
