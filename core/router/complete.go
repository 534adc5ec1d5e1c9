package router

import (
	"context"
	"fmt"
	"slices"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// SetCompleter sets the completer of a registered prompt (ref/prompt with
// Name) or resource template (ref/resource with URI, the uriTemplate
// string); a nil h removes it. The completer lives with its prompt or
// template: replacing that keeps it, removing that drops it. Setting one is
// not a list change, so cursors stay valid and OnListChanged is not called.
func (r *Router) SetCompleter(ref spec.CompleteRef, h CompleteHandler) error {
	var ok bool
	switch ref.Type {
	case spec.RefPrompt:
		ok = r.prompts.update(ref.Name, func(prev *prompt) *prompt {
			c := *prev // published snapshots hold prev; they must not change
			c.completer = h
			return &c
		})
		if !ok {
			return fmt.Errorf("router: completer for unknown prompt %q", ref.Name)
		}
	case spec.RefResource:
		ok = r.templates.update(ref.URI, func(prev *template) *template {
			c := *prev
			c.completer = h
			return &c
		})
		if !ok {
			return fmt.Errorf("router: completer for unknown resource template %q", ref.URI)
		}
	default:
		return fmt.Errorf("router: completer reference type %q is neither %q nor %q", ref.Type, spec.RefPrompt, spec.RefResource)
	}
	if h != nil {
		r.enable(capCompletions)
	}
	return nil
}

// Complete answers completion/complete. The reference must name a
// registered prompt or resource template, and the argument one of its
// arguments or template variables; otherwise it is -32602. Without a
// completer the answer is an empty completion. More than
// spec.MaxCompletionValues values are cut to that many, with hasMore set
// and total at least the number the handler gave.
func (r *Router) Complete(ctx context.Context, req *Request, p *spec.CompleteParams) (*spec.CompleteResult, *jsonrpc.Error) {
	h, rpcErr := r.completerFor(p)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if h == nil {
		return &spec.CompleteResult{Completion: spec.Completion{Values: []string{}}}, nil
	}
	req.deferAs(completeThen, nil)
	return completeResult(h(ctx, req, p))
}

// completeResult is the answer to a completion/complete whose handler gave
// c and err.
func completeResult(c *spec.Completion, err error) (*spec.CompleteResult, *jsonrpc.Error) {
	if err != nil {
		return nil, handlerError(err)
	}
	return &spec.CompleteResult{Completion: capCompletion(c)}, nil
}

// completerFor resolves the reference of p to its completer, which may be nil.
func (r *Router) completerFor(p *spec.CompleteParams) (CompleteHandler, *jsonrpc.Error) {
	arg := p.Argument.Name
	switch p.Ref.Type {
	case spec.RefPrompt:
		pr, ok := r.prompts.lookup(p.Ref.Name)
		if !ok {
			return nil, invalidParams("unknown prompt: %s", echo(p.Ref.Name))
		}
		if !slices.ContainsFunc(pr.def.Arguments, func(a spec.PromptArgument) bool { return a.Name == arg }) {
			return nil, invalidParams("prompt %q has no argument %q", pr.def.Name, echo(arg))
		}
		return pr.completer, nil
	case spec.RefResource:
		t, ok := r.templates.lookup(p.Ref.URI)
		if !ok {
			return nil, invalidParams("unknown resource template: %s", echo(p.Ref.URI))
		}
		if !slices.Contains(t.vars, arg) {
			return nil, invalidParams("resource template %q has no variable %q", echo(t.def.URITemplate), echo(arg))
		}
		return t.completer, nil
	}
	return nil, invalidParams("unknown completion reference type %q", echo(p.Ref.Type))
}

// capCompletion enforces the protocol's cap on values, leaving the
// handler's value untouched.
func capCompletion(c *spec.Completion) spec.Completion {
	if c == nil {
		return spec.Completion{Values: []string{}}
	}
	out := *c
	if out.Values == nil {
		out.Values = []string{}
	}
	if n := len(out.Values); n > spec.MaxCompletionValues {
		out.Values = out.Values[:spec.MaxCompletionValues:spec.MaxCompletionValues]
		out.HasMore = true
		if out.Total == nil || *out.Total < n {
			out.Total = &n
		}
	}
	return out
}
