package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// fulfil answers one of the server's questions with the handler of
// Options it names, returning the result's JSON: a server-to-client
// request's (legacy) or an input request's (2026-07-28).
func (c *Client) fulfil(ctx context.Context, method string, params []byte) ([]byte, error) {
	var (
		res any
		err error
	)
	switch {
	case method == "ping":
		return []byte(`{}`), nil
	case method == spec.MethodListRoots && c.o.Roots != nil:
		var roots []spec.Root
		if roots, err = c.o.Roots(ctx); err == nil {
			if roots == nil {
				roots = []spec.Root{}
			}
			res = spec.ListRootsResult{Roots: roots}
		}
	case method == spec.MethodCreateMessage && c.o.Sampling != nil:
		var p spec.CreateMessageParams
		if err = unmarshalParams(params, &p); err == nil {
			var r *spec.CreateMessageResult
			if r, err = c.o.Sampling(ctx, &p); err == nil && r == nil {
				err = errNoResult
			}
			res = r
		}
	case method == spec.MethodElicit && c.o.Elicitation != nil:
		var p spec.ElicitParams
		if err = unmarshalParams(params, &p); err == nil {
			var r *spec.ElicitResult
			if r, err = c.o.Elicitation(ctx, &p); err == nil && r == nil {
				err = errNoResult
			}
			res = r
		}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
	}
	if err != nil {
		return nil, err
	}
	return jsonrpc.Marshal(res)
}

// errNoResult answers a question whose handler returned neither a result
// nor an error.
var errNoResult = errors.New("the client's handler gave no answer")

func unmarshalParams(params []byte, v any) error {
	if len(params) == 0 {
		params = []byte(`{}`)
	}
	if err := jsonrpc.UnmarshalOwned(params, v); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: jsonrpc.Describe(err, "params")}
	}
	return nil
}

// resultTypeInputRequired is the resultType of an InputRequiredResult.
const resultTypeInputRequired = "input_required"

// roundTrip sends a request that may need input (tools/call, prompts/get,
// resources/read) and returns its final result: on 2026-07-28, each
// input_required result is answered with the handlers and the request is
// sent again, with a fresh id, the inputResponses and the requestState
// echoed unchanged.
func (c *Client) roundTrip(ctx context.Context, method string, params map[string]any, meta spec.Meta) ([]byte, error) {
	for round := 0; ; round++ {
		raw, err := c.request(ctx, method, params, meta)
		if err != nil || !c.modern || !inputRequired(raw) {
			return raw, err
		}
		if round == c.o.MaxInputRounds {
			return nil, fmt.Errorf("client: %s still needs input after %d rounds", method, round)
		}
		var ir spec.InputRequiredResult
		if err := jsonrpc.UnmarshalOwned(raw, &ir); err != nil {
			return nil, fmt.Errorf("client: %s: bad input_required result: %w", method, err)
		}
		responses, err := c.answerInputs(ctx, ir.InputRequests)
		if err != nil {
			return nil, err
		}
		params = retryParams(params, responses, ir.RequestState)
	}
}

// inputRequired reports whether raw is an InputRequiredResult.
func inputRequired(raw []byte) bool {
	rt, _, err := jsonrpc.StringMember(raw, "resultType")
	return err == nil && rt == resultTypeInputRequired
}

// answerInputs fulfils each input request, by key.
func (c *Client) answerInputs(ctx context.Context, reqs map[string]spec.InputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	for key, r := range reqs {
		res, err := c.fulfil(ctx, r.Method, r.Params)
		if err != nil {
			return nil, fmt.Errorf("client: answering input %q (%s): %w", key, r.Method, err)
		}
		out[key] = res
	}
	return out, nil
}

// retryParams returns a copy of params carrying the answers and the
// request state of the previous round (none when the server gave none).
func retryParams(params map[string]any, responses map[string]json.RawMessage, state string) map[string]any {
	p := make(map[string]any, len(params)+2)
	for k, v := range params {
		if k != spec.ParamInputResponses && k != spec.ParamRequestState {
			p[k] = v
		}
	}
	p[spec.ParamInputResponses] = responses
	if state != "" {
		p[spec.ParamRequestState] = state
	}
	return p
}
