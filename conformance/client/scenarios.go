package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
)

// session is one scenario's client and the runner's extra inputs.
type session struct {
	c     *client.Client
	input struct {
		// ToolCalls are the calls http-custom-headers asks for.
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
		// The pre-registered client of the auth/* scenarios that have one.
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Issuer       string `json:"issuer"`
	}
}

// scenarios play each client scenario the runner names; what the runner
// checks is on the wire (headers, _meta, retries), so most only list and
// call. The auth/* scenarios, not listed, run callListed (see run).
var scenarios = map[string]func(context.Context, *session) error{
	"initialize":                          listTools,
	"json-schema-ref-no-deref":            listTools,
	"request-metadata":                    listTools,
	"tools_call":                          addNumbers,
	"elicitation-sep1034-client-defaults": callEach("test_client_elicitation_defaults"),
	"sse-retry":                           callEach("test_reconnection"),
	"sep-2322-client-request-state": callEach("test_mrtr_echo_state", "test_mrtr_no_state",
		"test_mrtr_unrelated", "test_mrtr_no_result_type"),
	"http-standard-headers":            everyMethod,
	"http-custom-headers":              givenCalls,
	"http-invalid-tool-headers":        callListed,
	"json-schema-2020-12-preservation": echoSchema,
}

func listTools(ctx context.Context, s *session) error {
	_, err := s.c.ListTools(ctx)
	return err
}

func addNumbers(ctx context.Context, s *session) error {
	if err := listTools(ctx, s); err != nil {
		return err
	}
	return s.call(ctx, "add_numbers", map[string]any{"a": 5, "b": 3})
}

// callEach lists the tools, then calls each of names without arguments.
func callEach(names ...string) func(context.Context, *session) error {
	return func(ctx context.Context, s *session) error {
		if err := listTools(ctx, s); err != nil {
			return err
		}
		for _, name := range names {
			if err := s.call(ctx, name, nil); err != nil {
				return err
			}
		}
		return nil
	}
}

// everyMethod lists tools, resources and prompts, and calls, reads or gets
// each, so that every method's headers are seen.
func everyMethod(ctx context.Context, s *session) error {
	tools, err := s.c.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if err := s.call(ctx, t.Name, nil); err != nil {
			return err
		}
	}
	resources, err := s.c.ListResources(ctx)
	if err != nil {
		return err
	}
	for _, r := range resources {
		if _, err := s.c.ReadResource(ctx, r.URI); err != nil {
			return err
		}
	}
	prompts, err := s.c.ListPrompts(ctx)
	if err != nil {
		return err
	}
	for _, p := range prompts {
		if _, err := s.c.GetPrompt(ctx, p.Name, nil); err != nil {
			return err
		}
	}
	return nil
}

// givenCalls lists the tools, which teaches the conn their x-mcp-header
// annotations, then makes the calls of MCP_CONFORMANCE_CONTEXT.
func givenCalls(ctx context.Context, s *session) error {
	if len(s.input.ToolCalls) == 0 {
		return errors.New("MCP_CONFORMANCE_CONTEXT names no toolCalls")
	}
	if err := listTools(ctx, s); err != nil {
		return err
	}
	for _, tc := range s.input.ToolCalls {
		var args any
		if len(tc.Arguments) > 0 {
			args = tc.Arguments
		}
		if err := s.call(ctx, tc.Name, args); err != nil {
			return err
		}
	}
	return nil
}

// callListed calls every tool listed, with arguments its schema accepts:
// tools whose x-mcp-header annotations are invalid must not be among them.
func callListed(ctx context.Context, s *session) error {
	tools, err := s.c.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if err := s.call(ctx, t.Name, sampleArguments(t.InputSchema)); err != nil {
			return err
		}
	}
	return nil
}

// echoSchema hands json_schema_2020_12_tool's inputSchema, as listed, back
// to json_schema_echo: the client must keep every keyword.
func echoSchema(ctx context.Context, s *session) error {
	tools, err := s.c.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if t.Name == "json_schema_2020_12_tool" {
			return s.call(ctx, "json_schema_echo", map[string]any{"schema": t.InputSchema})
		}
	}
	return errors.New("json_schema_2020_12_tool is not listed")
}

// call calls a tool; its own failure (IsError) fails the scenario too.
func (s *session) call(ctx context.Context, name string, args any) error {
	r, err := s.c.CallTool(ctx, name, args)
	switch {
	case err != nil:
		return fmt.Errorf("tools/call %s: %w", name, err)
	case r.IsError:
		return fmt.Errorf("tools/call %s: the tool failed: %s", name, textOf(r))
	}
	return nil
}

func textOf(r *spec.CallToolResult) string {
	for _, c := range r.Content {
		if c.Text != nil {
			return *c.Text
		}
	}
	return ""
}

// sampleArguments fills a schema's required properties with a value of
// their type.
func sampleArguments(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s) // a schema it cannot read gets no arguments
	samples := map[string]any{"string": "conformance", "integer": 1, "number": 1.5, "boolean": true,
		"object": map[string]any{}, "array": []any{}}
	args := map[string]any{}
	for _, name := range s.Required {
		args[name] = samples[s.Properties[name].Type]
	}
	return args
}
