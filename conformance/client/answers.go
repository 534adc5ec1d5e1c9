package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/polymcp/polymcp/core/spec"
)

// The client's answers to the server's questions, as a user who accepts
// everything would give them.

// elicit accepts with each field's default (SEP-1034): a form the user
// submits untouched. Fields without a default are left out.
func elicit(_ context.Context, p *spec.ElicitParams) (*spec.ElicitResult, error) {
	var schema struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if len(p.RequestedSchema) > 0 {
		if err := json.Unmarshal(p.RequestedSchema, &schema); err != nil {
			return nil, fmt.Errorf("requestedSchema: %w", err)
		}
	}
	content := map[string]any{}
	for name, prop := range schema.Properties {
		if len(prop.Default) > 0 {
			content[name] = prop.Default
		}
	}
	return &spec.ElicitResult{Action: spec.ElicitAccept, Content: content}, nil
}

// sample answers every sampling request with the same text.
func sample(context.Context, *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
	return &spec.CreateMessageResult{Role: "assistant", Model: "conformance-model",
		Content: json.RawMessage(`{"type":"text","text":"Paris"}`)}, nil
}

// roots offers one directory.
func roots(context.Context) ([]spec.Root, error) {
	return []spec.Root{{URI: "file:///tmp/polymcp-conformance", Name: "workspace"}}, nil
}
