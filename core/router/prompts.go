package router

import (
	"context"
	"fmt"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// prompt is a registered prompt; completer is set by SetCompleter.
type prompt struct {
	def       spec.Prompt
	handler   PromptHandler
	completer CompleteHandler
}

// AddPrompt registers p, or replaces the prompt of the same name in its
// place, keeping its completer. The name is required, and argument names
// must be non-empty and distinct.
func (r *Router) AddPrompt(p spec.Prompt, h PromptHandler) error {
	if h == nil {
		return fmt.Errorf("router: prompt %q: nil handler", p.Name)
	}
	if p.Name == "" {
		return fmt.Errorf("router: prompt name is required")
	}
	seen := make(map[string]bool, len(p.Arguments))
	for _, a := range p.Arguments {
		if a.Name == "" || seen[a.Name] {
			return fmt.Errorf("router: prompt %q: argument name %q is empty or repeated", p.Name, a.Name)
		}
		seen[a.Name] = true
	}
	r.prompts.put(p.Name, &prompt{def: p, handler: h}, func(prev, next *prompt) { next.completer = prev.completer })
	r.enable(capPrompts)
	r.changed(ListPrompts)
	return nil
}

// RemovePrompts removes the named prompts, with their completers, and
// reports how many existed.
func (r *Router) RemovePrompts(names ...string) int {
	n := r.prompts.remove(names)
	if n > 0 {
		r.changed(ListPrompts)
	}
	return n
}

// ListPrompts answers prompts/list.
func (r *Router) ListPrompts(cursor *string) (*spec.ListPromptsResult, *jsonrpc.Error) {
	items, next, err := page(r, methodListPrompts, r.prompts.load(), cursor)
	if err != nil {
		return nil, err
	}
	return &spec.ListPromptsResult{Prompts: defs(items, func(p *prompt) spec.Prompt { return p.def }), NextCursor: next}, nil
}

// GetPrompt answers prompts/get. An unknown prompt and a missing required
// argument are -32602. Arguments the prompt does not declare are passed to
// the handler rather than refused: clients fill forms from older listings,
// and the handler is the better judge. A handler's *jsonrpc.Error passes
// through (return one with -32602 for a bad argument value); any other
// error is -32603 with its message.
func (r *Router) GetPrompt(ctx context.Context, req *Request, p *spec.GetPromptParams) (*spec.GetPromptResult, *jsonrpc.Error) {
	pr, ok := r.prompts.lookup(p.Name)
	if !ok {
		return nil, invalidParams("unknown prompt: %s", echo(p.Name))
	}
	for _, a := range pr.def.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, invalidParams("missing required argument %q for prompt %q", a.Name, pr.def.Name)
		}
	}
	req.deferAs(promptThen, nil)
	return promptResult(pr.handler(ctx, req, p.Arguments))
}

// promptResult is the answer to a prompts/get whose handler gave res and err.
func promptResult(res *spec.GetPromptResult, err error) (*spec.GetPromptResult, *jsonrpc.Error) {
	if err != nil {
		return nil, handlerError(err)
	}
	if res == nil {
		res = &spec.GetPromptResult{}
	}
	if res.Messages == nil {
		res.Messages = []spec.PromptMessage{}
	}
	return res, nil
}
