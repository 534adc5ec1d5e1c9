package dispatch

import (
	"context"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// methodTable is the one method table of polymcp. Runtime.New checks it
// against every revision's catalogue.
func methodTable() map[string]method {
	return map[string]method{
		"initialize":               {rare: true, run: initialize},
		"ping":                     {rare: true, run: ping},
		"server/discover":          {rare: true, run: discover},
		"logging/setLevel":         {rare: true, run: setLevel},
		"tools/list":               {run: listTools},
		"tools/call":               {async: true, run: callTool},
		"resources/list":           {run: listResources},
		"resources/templates/list": {run: listResourceTemplates},
		"resources/read":           {async: true, run: readResource},
		"resources/subscribe":      {rare: true, run: subscribe(true)},
		"resources/unsubscribe":    {rare: true, run: subscribe(false)},
		"prompts/list":             {run: listPrompts},
		"prompts/get":              {async: true, run: getPrompt},
		"completion/complete":      {async: true, run: complete},
		"subscriptions/listen":     {stream: true, run: listen},
		"tasks/get":                {run: getTask},
		"tasks/update":             {run: updateTask},
		"tasks/cancel":             {run: cancelTask},
	}
}

// decodeParams reads c's params into v; absent params leave v as is.
func decodeParams(c *call, v any) error {
	return decodeParamsWith(jsonrpc.UnmarshalDecoded, c, v)
}

// decodeParamsWith is decodeParams decoding with unmarshal.
func decodeParamsWith(unmarshal func([]byte, any) error, c *call, v any) error {
	if len(c.params) == 0 {
		return nil
	}
	if err := unmarshal(c.params, v); err != nil {
		return invalidParams("invalid params for %s: %s", c.method, jsonrpc.Describe(err, "params"))
	}
	return nil
}

func initialize(_ context.Context, c *call) (spec.Result, error) {
	var p spec.InitializeParams
	// Once a session: not worth a compiled decoder (see UnmarshalRare).
	if err := decodeParamsWith(jsonrpc.UnmarshalRare, c, &p); err != nil {
		return nil, err
	}
	s := c.s
	d, _ := s.rt.registry.Negotiate(p.ProtocolVersion)
	if s.fixed != nil && s.fixed.Era() == d.Era() {
		d = s.fixed
	}
	st := &legacyState{dialect: d, clientCaps: p.Capabilities, clientInfo: p.ClientInfo}
	if !s.state.CompareAndSwap(nil, st) {
		return nil, jsonrpc.Errorf(jsonrpc.KindProtocol, jsonrpc.CodeInvalidRequest, "session already initialized")
	}
	// The answer is shaped for the negotiated revision.
	c.adm.dialect = d
	s.rt.track(s)
	return &spec.InitializeResult{ProtocolVersion: d.Revision(), Capabilities: s.rt.Capabilities(),
		ServerInfo: s.rt.cfg.Server, Instructions: s.rt.cfg.Instructions}, nil
}

func ping(context.Context, *call) (spec.Result, error) { return &spec.EmptyResult{}, nil }

func discover(_ context.Context, c *call) (spec.Result, error) {
	rt := c.s.rt
	caps := rt.Capabilities()
	if rt.offersExtension(spec.ExtensionTasks) {
		caps.Extensions = map[string]any{spec.ExtensionTasks: struct{}{}}
	}
	return &spec.DiscoverResult{SupportedVersions: rt.registry.Modern(), Capabilities: caps,
		Instructions: rt.cfg.Instructions}, nil
}

func setLevel(_ context.Context, c *call) (spec.Result, error) {
	var p spec.SetLevelParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	sev, ok := p.Level.Severity()
	if !ok {
		return nil, invalidParams("unknown log level %q", p.Level)
	}
	s := c.s
	for {
		old := s.state.Load()
		st := *old
		st.logLevel = sev
		if s.state.CompareAndSwap(old, &st) {
			return &spec.EmptyResult{}, nil
		}
	}
}

func cursorOf(c *call) (*string, error) {
	var p spec.PaginatedParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	return p.Cursor, nil
}

func listTools(_ context.Context, c *call) (spec.Result, error) {
	cur, err := cursorOf(c)
	if err != nil {
		return nil, err
	}
	return router.ResultOf(c.s.rt.cfg.Router.ListTools(cur))
}

func listResources(_ context.Context, c *call) (spec.Result, error) {
	cur, err := cursorOf(c)
	if err != nil {
		return nil, err
	}
	return router.ResultOf(c.s.rt.cfg.Router.ListResources(cur))
}

func listResourceTemplates(_ context.Context, c *call) (spec.Result, error) {
	cur, err := cursorOf(c)
	if err != nil {
		return nil, err
	}
	return router.ResultOf(c.s.rt.cfg.Router.ListResourceTemplates(cur))
}

func listPrompts(_ context.Context, c *call) (spec.Result, error) {
	cur, err := cursorOf(c)
	if err != nil {
		return nil, err
	}
	return router.ResultOf(c.s.rt.cfg.Router.ListPrompts(cur))
}

func callTool(ctx context.Context, c *call) (spec.Result, error) {
	// The two members are read in place: decoding params whole copied the
	// arguments and decoded _meta a third time, for nothing.
	var p spec.CallToolParams
	if raw := c.param(paramName); raw != nil {
		var err error
		if p.Name, err = jsonrpc.StringValue(raw, "name"); err != nil {
			return nil, invalidParams("invalid params for %s: %s", c.method, jsonrpc.Describe(err, "params"))
		}
	}
	p.Arguments = c.param(paramArguments)
	if p.Name == "" {
		return nil, invalidParams("tools/call needs params.name")
	}
	if err := c.prepareInputs(); err != nil {
		return nil, err
	}
	return router.ResultOf(c.s.rt.cfg.Router.CallTool(ctx, &c.req, &p))
}

func readResource(ctx context.Context, c *call) (spec.Result, error) {
	var p spec.ReadResourceParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/read needs params.uri")
	}
	if err := c.prepareInputs(); err != nil {
		return nil, err
	}
	res, err := c.s.rt.cfg.Router.ReadResource(ctx, &c.req, p.URI)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func subscribe(on bool) func(context.Context, *call) (spec.Result, error) {
	return func(_ context.Context, c *call) (spec.Result, error) {
		var p spec.SubscribeParams
		if err := decodeParams(c, &p); err != nil {
			return nil, err
		}
		if p.URI == "" {
			return nil, invalidParams("%s needs params.uri", c.method)
		}
		c.s.subscribe(p.URI, on)
		return &spec.EmptyResult{}, nil
	}
}

func getPrompt(ctx context.Context, c *call) (spec.Result, error) {
	var p spec.GetPromptParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, invalidParams("prompts/get needs params.name")
	}
	if err := c.prepareInputs(); err != nil {
		return nil, err
	}
	return router.ResultOf(c.s.rt.cfg.Router.GetPrompt(ctx, &c.req, &p))
}

func complete(ctx context.Context, c *call) (spec.Result, error) {
	var p spec.CompleteParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	if p.Ref.Type != spec.RefPrompt && p.Ref.Type != spec.RefResource {
		return nil, invalidParams("completion/complete: unknown ref type %q", p.Ref.Type)
	}
	return router.ResultOf(c.s.rt.cfg.Router.Complete(ctx, &c.req, &p))
}
