package streamhttp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/dispatch"
	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// newTestEngine builds an Engine over a bare dispatcher with one annotated tool.
func newTestEngine(t testing.TB, opts *Options) *Engine {
	t.Helper()
	ex, err := executor.New(executor.Options{})
	require.NoError(t, err)
	t.Cleanup(ex.Close)
	r := router.New(router.Options{})
	require.NoError(t, r.AddTool(spec.Tool{Name: "route", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(_ context.Context, _ *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
			return &spec.CallToolResult{}, nil
		}))
	rt, err := dispatch.New(dispatch.Config{Router: r, Executor: ex})
	require.NoError(t, err)
	e, err := New(rt, opts)
	require.NoError(t, err)
	t.Cleanup(e.Close)
	return e
}

// TestStatusMap: the HTTP status of a JSON answer, per era (spec digest d).
func TestStatusMap(t *testing.T) {
	e := newTestEngine(t, nil)
	modern, _ := e.reg.Lookup(spec.Rev20260728)
	cases := []struct {
		msg            string
		modern, legacy int
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 200, 200},
		{`{"jsonrpc":"2.0","id":"x","result":{"a":[1,{"method":"m"}]}}`, 200, 200},
		{`[{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}]`, 200, 200},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":[],"requested":"x"}}}`, 400, 200},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}`, 404, 200},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"m"}}`, 400, 200},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m","data":{"requiredCapabilities":{"sampling":{}}}}}`, 400, 200},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}`, 400, 200},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, 400, 400},
		{`{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32603,"message":"m","data":{"reason":"overloaded"}}}`, 503, 503},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m","data":{"reason":"timeout"}}}`, 500, 200},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.modern, e.status(modern, []byte(tc.msg)), "2026-07-28: %s", tc.msg)
		assert.Equal(t, tc.legacy, e.status(e.legacy, []byte(tc.msg)), "legacy: %s", tc.msg)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		msg  string
		want msgKind
	}{
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, kindNotification},
		{`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, kindRequest},
		{`{"jsonrpc":"2.0","id":"a,\"b","result":{}}`, kindResult},
		{`{"jsonrpc":"2.0","id":-7,"error":{"code":1,"message":""}}`, kindError},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, kindBatch},
		{`{"id":1,"jsonrpc":"2.0","result":{}}`, kindResult}, // other member order
		{`{"method":"m","jsonrpc":"2.0"}`, kindNotification}, // other member order
		{`{"error":{"code":1,"message":""},"jsonrpc":"2.0","id":1}`, kindError},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, classify([]byte(tc.msg)), tc.msg)
	}
}

func jsonQuote(s string) ([]byte, error) { return json.Marshal(s) }
