package wire

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemas returns the official schemas; the test is skipped when they are
// not beside the repository.
func schemas(t *testing.T) *Schemas {
	t.Helper()
	dir, err := FindSchemaDir()
	if errors.Is(err, ErrNoSchemas) {
		t.Skipf("%v: schema validation not tested", err)
	}
	require.NoError(t, err)
	return LoadSchemas(dir)
}

func TestValidator(t *testing.T) {
	s := schemas(t)
	cases := []struct {
		name, rev string
		sent      []string
		got       string
		err       string // empty: valid
	}{
		{"ping result", "2024-11-05", []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`}, `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{"string ids are not numbers", "2024-11-05", []string{`{"jsonrpc":"2.0","id":"1","method":"ping"}`}, `{"jsonrpc":"2.0","id":1,"result":{}}`,
			"answers id 1, which the client did not send"},
		{"audio did not exist in 2024-11-05", "2024-11-05", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`},
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"","mimeType":"audio/wav"}]}}`, "2024-11-05 CallToolResult"},
		{"audio in 2025-03-26", "2025-03-26", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`},
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"","mimeType":"audio/wav"}]}}`, ""},
		{"result of the wrong shape", "2025-06-18", []string{`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`},
			`{"jsonrpc":"2.0","id":7,"result":{"tools":{}}}`, "result of tools/list: 2025-06-18 ListToolsResult"},
		{"initialize result", "2025-11-25", []string{`{"jsonrpc":"2.0","id":0,"method":"initialize"}`},
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, ""},
		{"initialize result without serverInfo", "2025-11-25", []string{`{"jsonrpc":"2.0","id":0,"method":"initialize"}`},
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`, "InitializeResult"},
		{"an answer nobody asked for", "2025-06-18", nil, `{"jsonrpc":"2.0","id":3,"result":{}}`, "answers id 3"},
		{"parse error with id null", "2024-11-05", nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, ""},
		{"null-id error with an extra member", "2025-06-18", nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"},"x":1}`,
			"must hold exactly jsonrpc, id and error"},
		{"error without message", "2025-06-18", []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`, "JSONRPCError"},
		{"progress", "2025-03-26", nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2,"message":"m"}}`, ""},
		{"progress without progress", "2025-03-26", nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t"}}`, "ProgressNotification"},
		{"a notification the revision lacks", "2025-06-18", nil, `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{}}`,
			`notification "notifications/elicitation/complete" is not defined by revision 2025-06-18`},
		{"batch answer", "2025-03-26", []string{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`},
			`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}},{"jsonrpc":"2.0","id":1,"result":{}}]`, ""},
		{"no batches in 2025-06-18", "2025-06-18", []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`},
			`[{"jsonrpc":"2.0","id":1,"result":{}}]`, "revision 2025-06-18 has no batches"},
		{"modern result needs resultType", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
			`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, "missing property 'resultType'"},
		{"input_required answers a tools/call", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"roots/list"}},"requestState":"s"}}`, ""},
		{"input_required is checked as InputRequiredResult", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":7}}`, "InputRequiredResult"},
		{"modern list needs cache hints", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`, "ListToolsResult"},
		{"modern list", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[]}}`, ""},
		{"unsupported version with its data", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"],"requested":"x"}}}`, ""},
		{"unsupported version without data", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m"}}`, "UnsupportedProtocolVersionError"},
		{"missing capability without requiredCapabilities", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m","data":{}}}`, "MissingRequiredClientCapabilityError"},
		{"modern parse error", "2026-07-28", nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, ""},
		{"not JSON", "2026-07-28", nil, `{"jsonrpc"`, "not a JSON text"},
		{"not a message", "2026-07-28", nil, `{"jsonrpc":"2.0"}`, "neither a request, a notification nor a response"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := s.Validator(tc.rev)
			require.NoError(t, err)
			for _, m := range tc.sent {
				v.Sent([]byte(m))
			}
			err = v.Check([]byte(tc.got))
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

func TestValidatorAnswersOnce(t *testing.T) {
	v, err := schemas(t).Validator("2025-06-18")
	require.NoError(t, err)
	v.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, v.Check([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)))
	assert.ErrorContains(t, v.Check([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)), "already answered")
}

func TestValidatorUnknownRevision(t *testing.T) {
	_, err := schemas(t).Validator("1999-01-01")
	assert.ErrorContains(t, err, "schema of 1999-01-01")
}

// TestPlayDeviations checks that a "! schema:" mark demands the failure it
// describes, and that schema failures are reported without stopping a run.
func TestPlayDeviations(t *testing.T) {
	s := schemas(t)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	bad := `{"jsonrpc":"2.0","id":1,"result":[]}`
	good := `{"jsonrpc":"2.0","id":1,"result":{}}`
	for name, tc := range map[string]struct {
		answer, session, err string
	}{
		"marked and failing":      {bad, "! schema: known\n< " + bad + "\n", ""},
		"marked but valid":        {good, "! schema: known\n< " + good + "\n", "marked as a schema deviation (known) but the message validates"},
		"failing and not marked":  {bad, "< " + bad + "\n", "t.txtar:4: schema:"},
		"valid and not marked":    {good, "< " + good + "\n", ""},
		"failing then mismatched": {bad, "< " + good + "\n", "unexpected message"},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := Parse([]byte("spec: test\n-- session --\n> " + ping + "\n" + tc.session))
			require.NoError(t, err)
			tr.Path = "t.txtar"
			v, err := s.Validator("2025-06-18")
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err = Play(ctx, newScripted(map[string][]string{ping: {tc.answer}}), tr, v)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
