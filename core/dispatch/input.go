package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// MaxInputRequests bounds the input requests of one round (2026-07-28) or
// one Input call (legacy).
const MaxInputRequests = 32

// inputs is the input state of one call of tools/call, prompts/get or
// resources/read, whose router.Inputter the call is. On 2026-07-28 it
// answers from inputResponses and the verified requestState and collects
// what is still missing; on the legacy revisions it sends server-to-client
// requests (outbound.go). A call makes it when first needed (inputs):
// most calls never ask, and it made every call a size class larger.
type inputs struct {
	c *call

	mu sync.Mutex
	// answers are the client's results by key: this round's inputResponses
	// over the earlier rounds' answers kept in requestState (2026-07-28).
	answers map[string]json.RawMessage
	// used are the answers the handler read this round; they travel on in
	// the next requestState.
	used map[string]json.RawMessage
	// pending are the requests still to be answered (2026-07-28).
	pending map[string]spec.InputRequest
	state   []byte
	digest  string
}

// inputs returns the call's input state, made on first use.
func (c *call) inputs() *inputs {
	if in := c.in.Load(); in != nil {
		return in
	}
	in := &inputs{c: c}
	if c.in.CompareAndSwap(nil, in) {
		return in
	}
	return c.in.Load()
}

// InputState implements router.Inputter.
func (c *call) InputState() []byte {
	in := c.in.Load()
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return bytes.Clone(in.state)
}

// SetInputState implements router.Inputter.
func (c *call) SetInputState(state []byte) {
	in := c.inputs()
	in.mu.Lock()
	in.state = bytes.Clone(state)
	in.mu.Unlock()
}

// Input implements router.Inputter.
func (c *call) Input(ctx context.Context, reqs map[string]router.InputRequest) (map[string]json.RawMessage, error) {
	return c.inputs().input(ctx, reqs)
}

func (in *inputs) input(ctx context.Context, reqs map[string]router.InputRequest) (map[string]json.RawMessage, error) {
	if len(reqs) > MaxInputRequests {
		return nil, invalidParams("polymcp: %d input requests at once, over the limit of %d", len(reqs), MaxInputRequests)
	}
	keys := router.SortedKeys(reqs)
	encoded := make([]spec.InputRequest, len(keys))
	for i, k := range keys {
		q := reqs[k]
		params, err := encodeInputParams(q.Params)
		if err != nil {
			return nil, err
		}
		encoded[i] = spec.InputRequest{Method: q.Method, Params: params}
	}
	if !in.c.modern() {
		return in.c.ask(ctx, keys, encoded)
	}
	if t := in.c.task.Load(); t != nil {
		return in.awaitTask(ctx, t, keys, encoded)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make(map[string]json.RawMessage, len(keys))
	missing := false
	for i, k := range keys {
		if a, ok := in.answers[k]; ok {
			out[k] = a
			if in.used == nil {
				in.used = make(map[string]json.RawMessage)
			}
			in.used[k] = a
			continue
		}
		if err := in.c.checkInput(encoded[i]); err != nil {
			return nil, err
		}
		if in.pending == nil {
			in.pending = make(map[string]spec.InputRequest)
		}
		if _, dup := in.pending[k]; !dup && len(in.pending) >= MaxInputRequests {
			return nil, invalidParams("polymcp: more than %d input requests in one round", MaxInputRequests)
		}
		in.pending[k] = encoded[i]
		missing = true
	}
	if missing {
		return nil, router.ErrInputRequired
	}
	return out, nil
}

// awaitTask asks through a task: what an input_required round before the
// task answered comes from there, the rest waits for tasks/update.
func (in *inputs) awaitTask(ctx context.Context, t *task, keys []string, encoded []spec.InputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(keys))
	ask := make(map[string]spec.InputRequest, len(keys))
	in.mu.Lock()
	for i, k := range keys {
		if a, ok := in.answers[k]; ok {
			out[k] = a
		} else {
			ask[k] = encoded[i]
		}
	}
	in.mu.Unlock()
	if len(ask) == 0 {
		return out, nil
	}
	for _, q := range ask {
		if err := in.c.checkInput(q); err != nil {
			return nil, err
		}
	}
	got, err := t.await(ctx, ask, in.c.s.rt.now)
	if err != nil {
		return nil, err
	}
	for k, a := range got {
		out[k] = a
	}
	return out, nil
}

func encodeInputParams(p any) (json.RawMessage, error) {
	switch v := p.(type) {
	case nil:
		return json.RawMessage(`{}`), nil
	case json.RawMessage:
		if len(bytes.TrimSpace(v)) == 0 {
			return json.RawMessage(`{}`), nil
		}
		if jsonrpc.Valid(v, jsonrpc.Limits{}) != nil || bytes.TrimSpace(v)[0] != '{' {
			return nil, invalidParams("polymcp: input request params must be a JSON object")
		}
		return v, nil
	}
	b, err := jsonrpc.Marshal(p)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, invalidParams("polymcp: input request params must be a JSON object")
	}
	return b, nil
}

// prepareInputs reads a 2026-07-28 retry's inputResponses and requestState
// (verifying the state) before the handler runs. Malformed members are
// -32602.
func (c *call) prepareInputs() error {
	if !c.modern() {
		return nil
	}
	state, raw := c.param(paramRequestState), c.param(paramInputResponses)
	if state == nil && raw == nil {
		return nil
	}
	in := c.inputs()
	if state != nil {
		st, err := jsonrpc.StringValue(state, spec.ParamRequestState)
		if err != nil {
			return invalidParams("params.requestState must be a string")
		}
		// The digest is computed only when a state is checked or issued:
		// most calls never need it.
		if err := in.computeDigest(); err != nil {
			return err
		}
		p, err := c.s.rt.openState(st, c.method, in.digest)
		if err != nil {
			return invalidParams("params.requestState is invalid: %s", err)
		}
		in.answers, in.state = p.Answers, p.State
	}
	if raw == nil {
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return invalidParams("params.inputResponses must be an object")
	}
	var got map[string]json.RawMessage
	if err := jsonrpc.UnmarshalDecoded(raw, &got); err != nil {
		return invalidParams("%s", jsonrpc.Describe(err, "params.inputResponses"))
	}
	if in.answers == nil {
		in.answers = make(map[string]json.RawMessage, len(got))
	}
	for k, v := range got {
		if len(v) == 0 || v[0] != '{' {
			return invalidParams("params.inputResponses[%q] must be a result object", k)
		}
		in.answers[k] = v
	}
	return nil
}

func (in *inputs) computeDigest() error {
	if in.digest != "" {
		return nil
	}
	d, err := paramsDigest(in.c.params)
	if err != nil {
		return invalidParams("invalid params for %s", in.c.method)
	}
	in.digest = d
	return nil
}

// inputOutcome turns a handler's ErrInputRequired into the
// InputRequiredResult of this round (2026-07-28). Anything else passes.
func (c *call) inputOutcome(res spec.Result, err error) (spec.Result, error) {
	if err == nil || !c.modern() || !router.IsInputRequired(err) {
		return res, err
	}
	in := c.inputs()
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.pending) == 0 {
		return nil, err
	}
	if derr := in.computeDigest(); derr != nil {
		return nil, derr
	}
	st, serr := c.s.rt.sealState(&statePayload{Method: c.method, Digest: in.digest,
		Expires: c.s.rt.now().Add(c.s.rt.stateTTL).UnixMilli(), Answers: in.used, State: in.state})
	if serr != nil {
		return nil, execError(ReasonPanic, "cannot encode requestState: "+serr.Error())
	}
	return &spec.InputRequiredResult{ResultBase: spec.ResultBase{ResultType: spec.ResultInputRequired},
		InputRequests: in.pending, RequestState: st}, nil
}

// checkInput refuses an input request the client cannot take: a method
// the revision does not define as server-to-client (legacy), or a
// capability the client did not declare.
func (c *call) checkInput(q spec.InputRequest) error {
	d := c.adm.dialect
	if d.Era() == protocol.Legacy {
		m, ok := d.Catalogue().Lookup(q.Method)
		if !ok || m.Dir&protocol.ServerToClient == 0 {
			return &router.MissingCapabilityError{Method: q.Method, Required: json.RawMessage(`{}`)}
		}
	}
	caps := c.req.ClientCapabilities
	if caps == nil {
		caps = &spec.ClientCapabilities{}
	}
	missing := func(required string) error {
		return &router.MissingCapabilityError{Method: q.Method, Required: json.RawMessage(required),
			Modern: d.Era() == protocol.Modern}
	}
	switch q.Method {
	case spec.MethodElicit:
		if !declared(caps.Elicitation) {
			return missing(`{"elicitation":{}}`)
		}
		mode, _, _ := jsonrpc.StringMember(q.Params, "mode")
		if mode == "url" && !hasMember(caps.Elicitation, "url") {
			return missing(`{"elicitation":{"url":{}}}`)
		}
		// {} declares form mode; an object naming modes must name form.
		if mode != "url" && !isEmptyObject(caps.Elicitation) && !hasMember(caps.Elicitation, "form") {
			return missing(`{"elicitation":{"form":{}}}`)
		}
	case spec.MethodCreateMessage:
		if !declared(caps.Sampling) {
			return missing(`{"sampling":{}}`)
		}
		if tools, ok := jsonrpc.Member(q.Params, "tools"); ok && string(tools) != "null" && !hasMember(caps.Sampling, "tools") {
			return missing(`{"sampling":{"tools":{}}}`)
		}
		if ic, _, _ := jsonrpc.StringMember(q.Params, "includeContext"); ic != "" && ic != "none" && !hasMember(caps.Sampling, "context") {
			return missing(`{"sampling":{"context":{}}}`)
		}
	case spec.MethodListRoots:
		if !declared(caps.Roots) {
			return missing(`{"roots":{}}`)
		}
	}
	return nil
}

func declared(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{'
}

func hasMember(raw json.RawMessage, name string) bool {
	v, ok := jsonrpc.Member(raw, name)
	return ok && len(v) > 0 && v[0] == '{'
}

func isEmptyObject(raw json.RawMessage) bool {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(string(raw)), "{}")) == ""
}
