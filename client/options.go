package client

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/polymcp/polymcp/core/spec"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one request, unless its context ends sooner.
	DefaultTimeout = 60 * time.Second
	// DefaultProbeTimeout bounds the server/discover probe of automatic
	// negotiation: a legacy server may leave an unknown request
	// unanswered, and then the client goes on with initialize.
	DefaultProbeTimeout = 5 * time.Second
	// DefaultMaxPages bounds the pages one List call follows.
	DefaultMaxPages = 1000
	// DefaultMaxInputRounds bounds the input_required rounds of one
	// request on 2026-07-28.
	DefaultMaxInputRounds = 16
	// DefaultMaxQuestions bounds the server's questions (legacy
	// server-to-client requests) answered at once; one more is refused.
	DefaultMaxQuestions = 64
)

// Options configure a Client. The zero value (or nil) means the defaults.
type Options struct {
	// Info names the client to the server; default polymcp-client.
	Info spec.Implementation
	// Revision pins the protocol revision (one of spec.Revisions). Empty:
	// negotiate, preferring 2026-07-28.
	Revision string
	// Timeout bounds each request; DefaultTimeout when 0. WithTimeout
	// sets another for one call.
	Timeout time.Duration
	// ResetTimeoutOnProgress restarts a call's timeout at each of its
	// progress notifications (calls made WithProgress), so that a long
	// task that keeps reporting is not cut off.
	ResetTimeoutOnProgress bool
	// ProbeTimeout bounds the server/discover probe; DefaultProbeTimeout
	// when 0.
	ProbeTimeout time.Duration
	// MaxPages bounds the pages a List call follows; DefaultMaxPages when 0.
	MaxPages int
	// MaxInputRounds bounds a request's input_required rounds;
	// DefaultMaxInputRounds when 0.
	MaxInputRounds int
	// MaxQuestions bounds the server's questions answered at once;
	// DefaultMaxQuestions when 0. One more is answered with an error
	// (-32603, "too many requests in flight") at once.
	MaxQuestions int

	// Tasks declares the 2026-07-28 tasks extension
	// (io.modelcontextprotocol/tasks): the server may then answer a
	// tools/call with a task, which CallTool follows to its end (polling
	// tasks/get, answering its questions with tasks/update, and
	// tasks/cancel when the call's context ends first).
	Tasks bool
	// Capabilities are declared over what the handlers below imply: a
	// member set here replaces the handler's default ({} for sampling and
	// elicitation, {"listChanged":true} for roots) with the
	// sub-capabilities the handler supports (elicitation
	// {"form":{},"url":{}}, sampling {"tools":{}}), and Experimental and
	// Extensions members are added. Declaring sampling, elicitation or
	// roots without its handler is an error of Connect.
	Capabilities spec.ClientCapabilities
	// SkipOutputValidation leaves tool results unchecked against the
	// outputSchema their tool declared in ListTools.
	SkipOutputValidation bool

	// The client's answers to the server's questions. Each one set is
	// declared as a capability (roots, sampling, elicitation); a question
	// without a handler is answered with method not found. They run on
	// goroutines of their own, with a context that ends when the server
	// cancels the question or the client closes.
	Sampling    func(ctx context.Context, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error)
	Elicitation func(ctx context.Context, p *spec.ElicitParams) (*spec.ElicitResult, error)
	Roots       func(ctx context.Context) ([]spec.Root, error)

	// Notification callbacks. They run on the goroutine that reads the
	// connection, in the order the server sent the notifications, so
	// they must return quickly.
	OnLog              func(spec.LoggingMessageParams)
	OnToolsChanged     func()
	OnPromptsChanged   func()
	OnResourcesChanged func()
	OnResourceUpdated  func(uri string)

	// Logger receives the client's own diagnostics (a message it could
	// not decode, an answer to an abandoned request); nil discards them.
	Logger *slog.Logger
}

// withDefaults returns a copy of o with every zero field defaulted.
func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Info.Name == "" {
		r.Info = spec.Implementation{Name: "polymcp-client", Version: "0.1.0"}
	}
	if r.Timeout <= 0 {
		r.Timeout = DefaultTimeout
	}
	if r.ProbeTimeout <= 0 {
		r.ProbeTimeout = DefaultProbeTimeout
	}
	if r.MaxPages <= 0 {
		r.MaxPages = DefaultMaxPages
	}
	if r.MaxInputRounds <= 0 {
		r.MaxInputRounds = DefaultMaxInputRounds
	}
	if r.MaxQuestions <= 0 {
		r.MaxQuestions = DefaultMaxQuestions
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	return r
}

// capabilities are the client capabilities the handlers of o declare.
func (o *Options) capabilities() (spec.ClientCapabilities, error) {
	var c spec.ClientCapabilities
	declared := o.Capabilities
	for _, h := range []struct {
		name     string
		handled  bool
		declared json.RawMessage
		implied  string
		to       *json.RawMessage
	}{
		{"roots", o.Roots != nil, declared.Roots, `{"listChanged":true}`, &c.Roots}, // RootsChanged
		{"sampling", o.Sampling != nil, declared.Sampling, `{}`, &c.Sampling},
		{"elicitation", o.Elicitation != nil, declared.Elicitation, `{}`, &c.Elicitation},
	} {
		switch {
		case len(h.declared) > 0 && !h.handled:
			return c, fmt.Errorf("client: Capabilities declares %s, which has no handler", h.name)
		case len(h.declared) > 0:
			*h.to = h.declared
		case h.handled:
			*h.to = json.RawMessage(h.implied)
		}
	}
	c.Tasks = declared.Tasks
	c.Experimental = maps.Clone(declared.Experimental)
	c.Extensions = maps.Clone(declared.Extensions)
	if o.Tasks {
		if c.Extensions == nil {
			c.Extensions = map[string]any{}
		}
		c.Extensions[spec.ExtensionTasks] = map[string]any{}
	}
	return c, nil
}
