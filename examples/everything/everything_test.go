package everything_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/examples/everything"
	"github.com/polymcp/polymcp/internal/wire"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/memory"
)

// Behaviour the transcripts cannot show because the binary offers no way to
// set it up (a small page size, a resource that changes), checked in process
// with literal messages and the same schema validation.

// session is a memory connection whose every message is validated when the
// schemas are available.
type session struct {
	t *testing.T
	c *memory.Client
	v *wire.Validator
}

func open(t *testing.T, opts *mcp.ServerOptions, rev string) (*session, *mcp.Server) {
	t.Helper()
	srv := everything.New(opts)
	t.Cleanup(srv.Close)
	c := srv.Connect()
	t.Cleanup(c.Close)
	s := &session{t: t, c: c}
	if dir, err := wire.FindSchemaDir(); err == nil {
		s.v, err = wire.LoadSchemas(dir).Validator(rev)
		require.NoError(t, err)
	}
	return s, srv
}

// call sends msg and returns the next message, validated.
func (s *session) call(msg string) string {
	s.t.Helper()
	if s.v != nil {
		s.v.Sent([]byte(msg))
	}
	require.NoError(s.t, s.c.Send([]byte(msg)))
	return s.next()
}

func (s *session) next() string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), recvTimeout)
	defer cancel()
	got, err := s.c.Recv(ctx)
	require.NoError(s.t, err)
	if s.v != nil {
		require.NoError(s.t, s.v.Check(got), "message %s", got)
	}
	return string(got)
}

func (s *session) initialize(rev string) {
	s.t.Helper()
	got := s.call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	require.Contains(s.t, got, `"protocolVersion":"`+rev+`"`)
	require.NoError(s.t, s.c.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
}

// TestPagination walks tools/list three tools at a time (spec:
// server/utilities/pagination): the pages hold every tool once, in order,
// and only the last page has no nextCursor. A cursor is bound to its method.
func TestPagination(t *testing.T) {
	for _, rev := range []string{"2025-06-18", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			s, _ := open(t, &mcp.ServerOptions{PageSize: 3}, rev)
			meta := ""
			if rev == "2026-07-28" {
				meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
			} else {
				s.initialize(rev)
			}
			var names []string
			var cursor *string
			firstCursor := ""
			for page := 1; ; page++ {
				require.Less(t, page, 20, "pagination does not end")
				params := meta
				if cursor != nil {
					c, _ := json.Marshal(*cursor)
					params = join(params, `"cursor":`+string(c))
				}
				var res struct {
					Result struct {
						Tools      []struct{ Name string }
						NextCursor *string
					}
				}
				require.NoError(t, json.Unmarshal([]byte(s.call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{%s}}`, page, params))), &res))
				assert.LessOrEqual(t, len(res.Result.Tools), 3)
				for _, tool := range res.Result.Tools {
					names = append(names, tool.Name)
				}
				if res.Result.NextCursor == nil {
					break
				}
				assert.Len(t, res.Result.Tools, 3, "only the last page is short")
				if firstCursor == "" {
					firstCursor = *res.Result.NextCursor
				}
				cursor = res.Result.NextCursor
			}
			assert.Equal(t, []string{"echo", "sleep", "test_simple_text", "test_image_content", "test_audio_content",
				"test_embedded_resource", "test_multiple_content_types", "test_error_handling", "test_tool_with_logging",
				"test_logging_tool", "test_tool_with_progress", "test_reconnection", "test_trigger_tool_change",
				"test_trigger_prompt_change", "json_schema_2020_12_tool", "test_custom_header",
				"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
				"test_input_required_result_elicitation", "test_input_required_result_sampling",
				"test_input_required_result_list_roots", "test_input_required_result_request_state",
				"test_input_required_result_tampered_state", "test_input_required_result_multiple_inputs",
				"test_input_required_result_multi_round", "test_input_required_result_capabilities",
				"test_missing_capability", "test_streaming_elicitation",
				"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task"}, names)

			c, _ := json.Marshal(firstCursor)
			got := s.call(`{"jsonrpc":"2.0","id":99,"method":"prompts/list","params":{` + join(meta, `"cursor":`+string(c)) + `}}`)
			assert.Contains(t, got, `{"jsonrpc":"2.0","id":99,"error":{"code":-32602,`, "a tools/list cursor on prompts/list")
		})
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

// TestResourceUpdated checks the legacy subscription round trip (spec:
// server/resources#subscriptions): a subscribed resource's change is
// notified with its uri; after unsubscribe it is not.
func TestResourceUpdated(t *testing.T) {
	s, srv := open(t, nil, "2025-11-25")
	s.initialize("2025-11-25")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`,
		s.call(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}`))
	srv.ResourceUpdated("test://watched-resource")
	srv.ResourceUpdated("test://static-text") // not subscribed: no message
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}}`, s.next())
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`,
		s.call(`{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"test://watched-resource"}}`))
	srv.ResourceUpdated("test://watched-resource")
	// Had either change been notified, its message would come before this answer.
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, s.call(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
}

// TestRequestTimeout: a call outliving its deadline is answered with the
// documented -32603 and data.reason "timeout".
func TestRequestTimeout(t *testing.T) {
	s, _ := open(t, &mcp.ServerOptions{RequestTimeout: 50 * time.Millisecond}, "2025-06-18")
	s.initialize("2025-06-18")
	got := s.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out after 50ms","data":{"reason":"timeout"}}}`, got)
}
