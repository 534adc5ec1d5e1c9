package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/spec"
)

// TestElicitDefaults: the form comes back accepted with every default, as
// elicitation-sep1034-client-defaults asks, and without the fields that
// have none.
func TestElicitDefaults(t *testing.T) {
	r, err := elicit(context.Background(), &spec.ElicitParams{Message: "defaults", RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},` +
			`"score":{"type":"number","default":95.5},"status":{"type":"string","enum":["active","inactive"],"default":"active"},` +
			`"verified":{"type":"boolean","default":true},"note":{"type":"string"}}}`)})
	require.NoError(t, err)
	assert.Equal(t, spec.ElicitAccept, r.Action)
	raw, err := json.Marshal(r.Content)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}`, string(raw))

	r, err = elicit(context.Background(), &spec.ElicitParams{Message: "no schema"})
	require.NoError(t, err)
	assert.Equal(t, &spec.ElicitResult{Action: spec.ElicitAccept, Content: map[string]any{}}, r)
}

func TestSampleArguments(t *testing.T) {
	got := sampleArguments(json.RawMessage(`{"type":"object","properties":{"region":{"type":"string"},` +
		`"n":{"type":"integer"},"on":{"type":"boolean"},"opt":{"type":"string"}},"required":["region","n","on"]}`))
	assert.Equal(t, map[string]any{"region": "conformance", "n": 1, "on": true}, got)
	assert.Empty(t, sampleArguments(nil))
}
