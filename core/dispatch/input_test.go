package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// addInputTools registers the tools and prompt the input tests call.
func addInputTools(t *testing.T, f *fixture) {
	t.Helper()
	nameForm := &spec.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}
	tool := func(name string, h router.ToolHandler) {
		require.NoError(t, f.router.AddTool(spec.Tool{Name: name}, h))
	}
	failure := func(err error) (*spec.CallToolResult, error) {
		// Protocol errors (input_required, -32021 on 2026-07-28, a
		// malformed answer) go back to the core; the rest is the tool's.
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			return nil, err
		}
		return spec.ErrorResult(err.Error()), nil
	}
	tool("greet", func(ctx context.Context, req *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
		res, err := req.Elicit(ctx, "user_name", nameForm)
		if err != nil {
			return failure(err)
		}
		return &spec.CallToolResult{Content: []spec.Content{spec.TextContent("Hello, " + res.Content["name"].(string) + "!")}}, nil
	})
	tool("sample", func(ctx context.Context, req *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
		res, err := req.Sample(ctx, "q", &spec.CreateMessageParams{Messages: []spec.SamplingMessage{spec.TextMessage(spec.RoleUser, "Hi?")}, MaxTokens: 10})
		if err != nil {
			return failure(err)
		}
		return &spec.CallToolResult{Content: []spec.Content{spec.TextContent("model said " + res.Text())}}, nil
	})
	tool("two_rounds", func(ctx context.Context, req *router.Request, _ json.RawMessage) (*spec.CallToolResult, error) {
		before := string(req.InputState())
		req.SetInputState([]byte("round-1"))
		first, err := req.Elicit(ctx, "a", nameForm)
		if err != nil {
			return failure(err)
		}
		req.SetInputState([]byte("round-2"))
		got, err := req.Input(ctx, map[string]router.InputRequest{"b": router.ListRoots(), "c": router.Elicitation(nameForm)})
		if err != nil {
			return failure(err)
		}
		return &spec.CallToolResult{Content: []spec.Content{spec.TextContent(
			"state " + before + "; a=" + first.Content["name"].(string) + "; b=" + string(got["b"]) + "; c=" + string(got["c"]))}}, nil
	})
	require.NoError(t, f.router.AddPrompt(spec.Prompt{Name: "ask"},
		func(ctx context.Context, req *router.Request, _ map[string]string) (*spec.GetPromptResult, error) {
			res, err := req.Elicit(ctx, "ctx", nameForm)
			if err != nil {
				return nil, err
			}
			return &spec.GetPromptResult{Messages: []spec.PromptMessage{{Role: spec.RoleUser, Content: spec.TextContent(res.Action)}}}, nil
		}))
}

const (
	allCaps = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}}`
	noCaps  = modernMeta
	info    = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}`
)

// stateOf returns the requestState of an answer and the answer with it
// replaced by "<state>".
func stateOf(t *testing.T, msg string) (string, string) {
	t.Helper()
	var m struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(msg), &m))
	if m.Result.RequestState == "" {
		return "", msg
	}
	return m.Result.RequestState, strings.Replace(msg, m.Result.RequestState, "<state>", 1)
}

func TestModernInputRequired(t *testing.T) {
	f := newFixture(t, executor.Options{})
	addInputTools(t, f)
	s, in := f.session(transport.Info{Name: "test"})
	defer s.Close()
	call := func(frame string) string {
		s.deliverString(frame, in)
		return in.next(t)
	}
	elicitRound1 := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",` + info + `,"inputRequests":{"user_name":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"<state>"}}`

	// Round 1: the request is answered with what the handler asked for.
	st, got := stateOf(t, call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",`+allCaps+`}}`))
	assert.JSONEq(t, elicitRound1, got)
	require.True(t, strings.HasPrefix(st, "v1."))

	cases := []struct {
		name, params, want string
	}{
		{"retry with the answer", `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"` + st + `"`,
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + info + `,"content":[{"type":"text","text":"Hello, Alice!"}]}}`},
		{"retry without requestState", `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bob"}}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + info + `,"content":[{"type":"text","text":"Hello, Bob!"}]}}`},
		{"extra keys are ignored", `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Eve"}},"other":{"x":1}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + info + `,"content":[{"type":"text","text":"Hello, Eve!"}]}}`},
		{"a wrong key asks again", `"inputResponses":{"wrong":{"action":"accept","content":{"name":"X"}}}`,
			strings.Replace(elicitRound1, `"id":1`, `"id":2`, 1)},
		{"null inputResponses", `"inputResponses":null`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"params.inputResponses must be an object"}}`},
		{"a response that is not an object", `"inputResponses":{"user_name":12345}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"params.inputResponses[\"user_name\"] must be a result object"}}`},
		{"an elicit result without action", `"inputResponses":{"user_name":{"content":{}}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"user_name: the answer to elicitation/create has no valid action (accept, decline or cancel)"}}`},
		{"tampered requestState", `"inputResponses":{"user_name":{"action":"accept","content":{"name":"A"}}},"requestState":"` + st + `-TAMPERED"`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"params.requestState is invalid: integrity check failed"}}`},
		{"forged requestState", `"requestState":"v1.e30.AAAA"`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"params.requestState is invalid: integrity check failed"}}`},
		{"requestState not a string", `"requestState":7`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"params.requestState must be a string"}}`},
		{"requestState of other arguments", `"arguments":{"x":1},"requestState":"` + st + `"`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"params.requestState is invalid: issued for another request"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, got := stateOf(t, call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet",`+tc.params+`,`+allCaps+`}}`))
			assert.JSONEq(t, tc.want, got)
		})
	}

	t.Run("requestState of another tool", func(t *testing.T) {
		got := call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","requestState":"` + st + `",` + allCaps + `}}`)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"params.requestState is invalid: issued for another request"}}`, got)
	})
	t.Run("expired requestState", func(t *testing.T) {
		f.rt.now = func() time.Time { return time.Now().Add(DefaultInputStateTTL + time.Minute) }
		defer func() { f.rt.now = time.Now }()
		got := call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","requestState":"` + st + `",` + allCaps + `}}`)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"params.requestState is invalid: expired"}}`, got)
	})
	t.Run("state from another server", func(t *testing.T) {
		other := newFixture(t, executor.Options{})
		addInputTools(t, other)
		s2, in2 := other.session(transport.Info{Name: "test"})
		defer s2.Close()
		s2.deliverString(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","requestState":"`+st+`",`+allCaps+`}}`, in2)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"params.requestState is invalid: integrity check failed"}}`, in2.next(t))
	})
	t.Run("undeclared capability is -32021", func(t *testing.T) {
		got := call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sample",` + noCaps + `}}`)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32021,"message":"the client did not declare the capability sampling/createMessage needs","data":{"requiredCapabilities":{"sampling":{}}}}}`, got)
	})
	t.Run("prompts/get asks too", func(t *testing.T) {
		_, got := stateOf(t, call(`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"ask",`+allCaps+`}}`))
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required",`+info+`,"inputRequests":{"ctx":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"<state>"}}`, got)
		got = call(`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"ask","inputResponses":{"ctx":{"action":"decline"}},` + allCaps + `}}`)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete",`+info+`,"messages":[{"role":"user","content":{"type":"text","text":"decline"}}]}}`, got)
	})
}

// TestModernMultiRound: answers of earlier rounds and the handler's state
// travel in requestState; each round asks only for what is missing, and
// several requests can go out in one round.
func TestModernMultiRound(t *testing.T) {
	f := newFixture(t, executor.Options{})
	addInputTools(t, f)
	s, in := f.session(transport.Info{Name: "test"})
	defer s.Close()
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"two_rounds",`+allCaps+`}}`, in)
	st1, got := stateOf(t, in.next(t))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",`+info+`,"inputRequests":{"a":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"<state>"}}`, got)

	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"two_rounds","inputResponses":{"a":{"action":"accept","content":{"name":"Ann"}}},"requestState":"`+st1+`",`+allCaps+`}}`, in)
	st2, got := stateOf(t, in.next(t))
	assert.NotEqual(t, st1, st2)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required",`+info+`,"inputRequests":{"b":{"method":"roots/list","params":{}},"c":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"<state>"}}`, got)

	s.deliverString(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"two_rounds","inputResponses":{"b":{"roots":[]},"c":{"action":"cancel"}},"requestState":"`+st2+`",`+allCaps+`}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete",`+info+`,"content":[{"type":"text","text":"state round-2; a=Ann; b={\"roots\":[]}; c={\"action\":\"cancel\"}"}]}}`, in.next(t))
}

// legacySession initializes a 2025-06-18 session with the given client
// capabilities.
func legacySession(t *testing.T, f *fixture, rev, caps string) (*Session, *inbox) {
	t.Helper()
	s, in := f.session(transport.Info{Name: "test"})
	t.Cleanup(s.Close)
	s.deliverString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+rev+`","capabilities":`+caps+`,"clientInfo":{"name":"c","version":"1"}}}`, in)
	in.next(t)
	return s, in
}

func TestLegacyServerToClientRequests(t *testing.T) {
	sampling := `{"jsonrpc":"2.0","id":"polymcp:1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Hi?"}}],"maxTokens":10}}`
	cases := []struct {
		name, rev, caps, call string
		// exchange alternates: the server's message, then the client's
		// answer ("" for none), ...; the last entry is the call's answer.
		exchange []string
	}{
		{"sampling answered", "2025-06-18", `{"sampling":{}}`, `{"name":"sample"}`, []string{
			sampling, `{"jsonrpc":"2.0","id":"polymcp:1","result":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"model said Paris"}]}}`}},
		{"elicitation answered", "2025-11-25", `{"elicitation":{}}`, `{"name":"greet"}`, []string{
			`{"jsonrpc":"2.0","id":"polymcp:1","method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
			`{"jsonrpc":"2.0","id":"polymcp:1","result":{"action":"accept","content":{"name":"Ann"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, Ann!"}]}}`}},
		{"client error", "2025-06-18", `{"sampling":{}}`, `{"name":"sample"}`, []string{
			sampling, `{"jsonrpc":"2.0","id":"polymcp:1","error":{"code":-1,"message":"User rejected sampling request"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the client answered sampling/createMessage with error -1: User rejected sampling request"}],"isError":true}}`}},
		{"malformed client result", "2025-06-18", `{"sampling":{}}`, `{"name":"sample"}`, []string{
			sampling, `{"jsonrpc":"2.0","id":"polymcp:1","result":{"role":"assistant","model":"m"}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"q: the answer to sampling/createMessage has no content"}}`}},
		{"capability not declared", "2025-06-18", `{}`, `{"name":"sample"}`, []string{
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the client did not declare the capability sampling/createMessage needs: {\"sampling\":{}}"}],"isError":true}}`}},
		{"elicitation before 2025-06-18", "2025-03-26", `{"elicitation":{}}`, `{"name":"greet"}`, []string{
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the client did not declare the capability elicitation/create needs: {}"}],"isError":true}}`}},
		{"roots undeclared after an answered elicitation", "2025-11-25", `{"elicitation":{"form":{}}}`, `{"name":"two_rounds"}`, []string{
			`{"jsonrpc":"2.0","id":"polymcp:1","method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
			`{"jsonrpc":"2.0","id":"polymcp:1","result":{"action":"accept","content":{"name":"Ann"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the client did not declare the capability roots/list needs: {\"roots\":{}}"}],"isError":true}}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, executor.Options{})
			addInputTools(t, f)
			s, in := legacySession(t, f, tc.rev, tc.caps)
			s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+tc.call+`}`, in)
			for i := 0; i < len(tc.exchange); i += 2 {
				assert.JSONEq(t, tc.exchange[i], in.next(t), "message %d", i)
				if i+1 < len(tc.exchange) {
					s.deliverString(tc.exchange[i+1], in)
				}
			}
		})
	}
}

func TestLegacyUnknownResponsesAreDropped(t *testing.T) {
	f := newFixture(t, executor.Options{})
	addInputTools(t, f)
	s, in := legacySession(t, f, "2025-06-18", `{"sampling":{}}`)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":"polymcp:1","result":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}`,
	} {
		s.deliverString(msg, in)
	}
	in.none(t, 50*time.Millisecond)
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, in.next(t))
}

// TestLegacyCancelStopsTheClientRequest: cancelling the call cancels the
// server-to-client request it waits on, and the late answer is dropped.
func TestLegacyCancelStopsTheClientRequest(t *testing.T) {
	f := newFixture(t, executor.Options{})
	addInputTools(t, f)
	s, in := legacySession(t, f, "2025-06-18", `{"sampling":{}}`)
	s.deliverString(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"sample"}}`, in)
	assert.Contains(t, in.next(t), `"id":"polymcp:1","method":"sampling/createMessage"`)
	start := time.Now()
	s.deliverString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"polymcp:1","reason":"polymcp: request cancelled by the client"}}`, in.next(t))
	assert.Less(t, time.Since(start), 2*time.Second)
	s.deliverString(`{"jsonrpc":"2.0","id":"polymcp:1","result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}}`, in)
	in.none(t, 50*time.Millisecond)
	s.mu.Lock()
	assert.Empty(t, s.outbound)
	s.mu.Unlock()
}

// TestLegacyTimeoutCoversTheClientRequest: the call's deadline bounds the
// wait for the client.
func TestLegacyTimeoutCoversTheClientRequest(t *testing.T) {
	f := newFixture(t, executor.Options{Timeout: 100 * time.Millisecond})
	addInputTools(t, f)
	s, in := legacySession(t, f, "2025-06-18", `{"sampling":{}}`)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}}`, in)
	assert.Contains(t, in.next(t), `"id":"polymcp:1","method":"sampling/createMessage"`)
	got := []string{in.next(t), in.next(t)}
	assert.Contains(t, got, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out after 100ms","data":{"reason":"timeout"}}}`)
	var cancelled bool
	for _, m := range got {
		cancelled = cancelled || strings.Contains(m, `"method":"notifications/cancelled","params":{"requestId":"polymcp:1"`)
	}
	assert.True(t, cancelled, "the pending request is cancelled: %v", got)
}

// TestLegacyPendingLimit: past MaxClientRequests a handler's Input fails
// with ErrTooManyClientRequests.
func TestLegacyPendingLimit(t *testing.T) {
	f := newFixture(t, executor.Options{})
	addInputTools(t, f)
	var err error
	f.rt, err = New(Config{Server: spec.Implementation{Name: "t", Version: "1"}, Router: f.router, Executor: f.exec, MaxClientRequests: 1})
	require.NoError(t, err)
	s, in := legacySession(t, f, "2025-06-18", `{"sampling":{}}`)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}}`, in)
	assert.Contains(t, in.next(t), `"id":"polymcp:1"`)
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"polymcp: too many server-to-client requests awaiting an answer on this session"}],"isError":true}}`, in.next(t))
	s.deliverString(`{"jsonrpc":"2.0","id":"polymcp:1","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"model said ok"}]}}`, in.next(t))
}

// TestInputOnlyWhereAllowed: completion/complete cannot ask for input.
func TestInputOnlyWhereAllowed(t *testing.T) {
	req := &router.Request{}
	_, err := req.Input(context.Background(), map[string]router.InputRequest{"a": router.ListRoots()})
	assert.ErrorIs(t, err, router.ErrNoInput)
}
