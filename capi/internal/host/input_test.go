package host

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inputHost answers each call by asking the client for what asks holds,
// then completing with the answers (and the state of earlier rounds) as
// text, or failing with the code Input returned.
func inputHost(t *testing.T, asks string) func(call uint64, _ uint32, _ uint64, _ []byte) {
	return func(call uint64, _ uint32, _ uint64, _ []byte) {
		state, err := InputState(call)
		require.NoError(t, err)
		require.NoError(t, SetInputState(call, []byte("round-1")))
		answers, err := Input(call, []byte(asks))
		if err != nil {
			if CodeOf(err) != EInputRequired {
				_ = Fail(call, 0, "input failed: "+err.Error(), nil)
			}
			assert.Equal(t, EUnknownCall, CodeOf(Complete(call, []byte(`{"content":[]}`))), "the call is over after Input failed")
			return
		}
		text, _ := json.Marshal("state=" + string(state) + " answers=" + string(answers))
		require.NoError(t, Complete(call, []byte(`{"content":[{"type":"text","text":`+string(text)+`}]}`)))
	}
}

// TestInputLegacy: up to 2025-11-25 a request for input is a real
// server-to-client request, and Input returns the client's answer.
func TestInputLegacy(t *testing.T) {
	f := newFixture(t, "", inputHost(t, `{"r":{"method":"roots/list"}}`))
	// The fixture's client declared no roots: the host gets ECapability.
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"input failed: the client did not declare the capability roots/list needs: {\"roots\":{}}"}],"isError":true}}`, f.in.next(t))

	s, err := OpenSession(f.server, nil, f.in)
	require.NoError(t, err)
	defer CloseSession(s)
	require.NoError(t, Dispatch(s, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`)))
	f.in.next(t)
	require.NoError(t, Dispatch(s, []byte(initialized)))
	require.NoError(t, Dispatch(s, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"polymcp:1","method":"roots/list","params":{}}`, f.in.next(t))
	require.NoError(t, Dispatch(s, []byte(`{"jsonrpc":"2.0","id":"polymcp:1","result":{"roots":[{"uri":"file:///w"}]}}`)))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"state= answers={\"r\":{\"roots\":[{\"uri\":\"file:///w\"}]}}"}]}}`, f.in.next(t))
}

// TestInputModern: on 2026-07-28 the first round ends the call with
// input_required; the retry carries the answers and the state kept.
func TestInputModern(t *testing.T) {
	f := newFixture(t, "", inputHost(t, `{"who":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}`))
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},`+meta+`}}`)
	var round1 struct {
		Result struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.in.next(t)), &round1))
	assert.Equal(t, "input_required", round1.Result.ResultType)
	assert.JSONEq(t, `{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`, string(round1.Result.InputRequests["who"]))
	require.NotEmpty(t, round1.Result.RequestState)

	state, _ := json.Marshal(round1.Result.RequestState)
	f.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},`+
		`"inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}},"requestState":`+string(state)+`,`+meta+`}}`)
	var round2 struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.in.next(t)), &round2))
	require.Len(t, round2.Result.Content, 1)
	assert.Equal(t, `state=round-1 answers={"who":{"action":"accept","content":{"name":"Ada"}}}`, round2.Result.Content[0].Text)

	// Undeclared: -32021 for the whole request, and the call is over.
	f.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	assert.Contains(t, f.in.next(t), `"code":-32021`)
}

func TestInputErrors(t *testing.T) {
	calls := make(chan uint64, 1)
	f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) { calls <- call })
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	c := <-calls
	for _, bad := range []string{``, `[]`, `{}`, `{"k":{"params":{}}}`, `{"k":7}`} {
		_, err := Input(c, []byte(bad))
		assert.Equal(t, EInvalid, CodeOf(err), "input %q", bad)
	}
	_, err := Input(1<<62, []byte(`{"k":{"method":"roots/list"}}`))
	assert.Equal(t, EBadHandle, CodeOf(err), "a handle never issued")
	require.NoError(t, Complete(c, []byte(`{"content":[]}`)))
	f.in.next(t)
}
