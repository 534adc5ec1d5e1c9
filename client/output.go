package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/schema"
	"github.com/polymcp/polymcp/core/spec"
)

// OutputError is CallTool's error when a tool's successful result does not
// keep the promise of its outputSchema: no structuredContent, or one that
// does not match.
type OutputError struct {
	Tool string
	Err  error
	// Result is the tool's result as it came, raw.
	Result json.RawMessage
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("client: the result of tool %s does not match its outputSchema: %v", e.Tool, e.Err)
}

func (e *OutputError) Unwrap() error { return e.Err }

// outputSchema is a listed tool's outputSchema, compiled on first use.
type outputSchema struct {
	raw  []byte
	once sync.Once
	v    *schema.Validator
	err  error
}

func (o *outputSchema) validator() (*schema.Validator, error) {
	o.once.Do(func() { o.v, o.err = schema.Compile(o.raw) })
	return o.v, o.err
}

// rememberOutputs replaces the output schemas known with those of a full
// tools/list.
func (c *Client) rememberOutputs(tools []spec.Tool) {
	if c.o.SkipOutputValidation {
		return
	}
	outputs := map[string]*outputSchema{}
	for _, t := range tools {
		if len(t.OutputSchema) > 0 {
			outputs[t.Name] = &outputSchema{raw: t.OutputSchema}
		}
	}
	c.mu.Lock()
	c.outputs = outputs
	c.mu.Unlock()
}

// checkOutput checks a successful tools/call result (raw) of tool name
// against the tool's outputSchema, when one is known.
func (c *Client) checkOutput(name string, raw []byte) error {
	c.mu.Lock()
	out := c.outputs[name]
	c.mu.Unlock()
	if out == nil {
		return nil
	}
	v, err := out.validator()
	if err != nil {
		c.o.Logger.Warn("client: a tool's outputSchema does not compile; its results go unchecked", "tool", name, "err", err)
		return nil
	}
	structured, ok := jsonrpc.Member(raw, "structuredContent")
	if !ok {
		return &OutputError{Tool: name, Err: fmt.Errorf("no structuredContent"), Result: bytes.Clone(raw)}
	}
	if err := v.ValidateJSON(structured); err != nil {
		return &OutputError{Tool: name, Err: err, Result: bytes.Clone(raw)}
	}
	return nil
}
