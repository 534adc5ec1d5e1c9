package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

func TestDowngradeContent(t *testing.T) {
	link := spec.Content{Type: spec.ContentResourceLink, URI: "test://a", Name: "a", Title: "The A"}
	audio := spec.AudioContent("UklG", "audio/wav")
	for _, tc := range []struct {
		rev, want string
	}{
		{spec.Rev20241105, `{"content":[{"type":"resource","resource":{"uri":"data:audio/wav;base64,","mimeType":"audio/wav","blob":"UklG"}},{"type":"text","text":"The A: test://a"}]}`},
		{spec.Rev20250326, `{"content":[{"type":"audio","data":"UklG","mimeType":"audio/wav"},{"type":"text","text":"The A: test://a"}]}`},
		{spec.Rev20250618, `{"content":[{"type":"audio","data":"UklG","mimeType":"audio/wav"},{"type":"resource_link","uri":"test://a","name":"a","title":"The A"}]}`},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			reg, err := NewRegistry()
			require.NoError(t, err)
			d, _ := reg.Lookup(tc.rev)
			blocks := []spec.Content{audio, link}
			r := &spec.CallToolResult{Content: blocks}
			d.Shape(r, Shaping{Method: "tools/call"})
			got, err := jsonrpc.Marshal(r)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(got))
			assert.Equal(t, spec.ContentAudio, blocks[0].Type, "the handler's slice is not modified")
		})
	}
}

func TestDowngradePromptMessages(t *testing.T) {
	reg, err := NewRegistry()
	require.NoError(t, err)
	d, _ := reg.Lookup(spec.Rev20241105)
	msgs := []spec.PromptMessage{{Role: "user", Content: spec.AudioContent("UklG", "audio/wav")}}
	r := &spec.GetPromptResult{Messages: msgs}
	d.Shape(r, Shaping{Method: "prompts/get"})
	assert.Equal(t, spec.ContentResource, r.Messages[0].Content.Type)
	assert.Equal(t, spec.ContentAudio, msgs[0].Content.Type)
}

func TestDowngradeMetadata(t *testing.T) {
	tools := []spec.Tool{{Name: "t", Title: "The T"}}
	prompts := []spec.Prompt{{Name: "p", Title: "The P", Arguments: []spec.PromptArgument{{Name: "a", Title: "The A"}}}}
	for _, tc := range []struct {
		rev, tools, prompts, init string
	}{
		{spec.Rev20241105, `{"tools":[{"name":"t","inputSchema":null}]}`, `{"prompts":[{"name":"p","arguments":[{"name":"a"}]}]}`,
			`{"protocolVersion":"2024-11-05","capabilities":{"logging":{}},"serverInfo":{"name":"s","version":"1"}}`},
		{spec.Rev20250326, `{"tools":[{"name":"t","inputSchema":null}]}`, `{"prompts":[{"name":"p","arguments":[{"name":"a"}]}]}`,
			`{"protocolVersion":"2025-03-26","capabilities":{"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}`},
		{spec.Rev20250618, `{"tools":[{"name":"t","title":"The T","inputSchema":null}]}`, `{"prompts":[{"name":"p","title":"The P","arguments":[{"name":"a","title":"The A"}]}]}`,
			`{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"completions":{}},"serverInfo":{"name":"s","title":"S","version":"1"}}`},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			reg, err := NewRegistry()
			require.NoError(t, err)
			d, _ := reg.Lookup(tc.rev)
			shaped := func(r spec.Result) string {
				d.Shape(r, Shaping{})
				b, err := jsonrpc.Marshal(r)
				require.NoError(t, err)
				return string(b)
			}
			assert.JSONEq(t, tc.tools, shaped(&spec.ListToolsResult{Tools: tools}))
			assert.JSONEq(t, tc.prompts, shaped(&spec.ListPromptsResult{Prompts: prompts}))
			assert.JSONEq(t, tc.init, shaped(&spec.InitializeResult{ProtocolVersion: tc.rev,
				Capabilities: spec.ServerCapabilities{Logging: &struct{}{}, Completions: &struct{}{}},
				ServerInfo:   spec.Implementation{Name: "s", Title: "S", Version: "1"}}))
			assert.Equal(t, "The T", tools[0].Title, "the catalogue is not modified")
			assert.Equal(t, "The A", prompts[0].Arguments[0].Title, "the catalogue is not modified")
			untitledPrompt := []spec.Prompt{{Name: "q", Arguments: []spec.PromptArgument{{Name: "b", Title: "The B"}}}}
			shaped(&spec.ListPromptsResult{Prompts: untitledPrompt})
			assert.Equal(t, "The B", untitledPrompt[0].Arguments[0].Title, "a prompt without a title is not modified either")
		})
	}
}

// TestModernShapeMeta: every 2026-07-28 result carries the server's info in
// _meta next to its own members, and shaping one never touches another's.
func TestModernShapeMeta(t *testing.T) {
	reg, err := NewRegistry()
	require.NoError(t, err)
	d, _ := reg.Lookup(spec.Rev20260728)
	info := &spec.Implementation{Name: "s", Version: "1"}
	shaped := func(r spec.Result) string {
		d.Shape(r, Shaping{Method: "tools/call", ServerInfo: info})
		b, err := jsonrpc.Marshal(r)
		require.NoError(t, err)
		return string(b)
	}
	plain := `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"content":[]}`
	assert.JSONEq(t, plain, shaped(&spec.CallToolResult{Content: []spec.Content{}}))
	own := spec.Meta{"k": "v"}
	withMeta := &spec.CallToolResult{Content: []spec.Content{}}
	withMeta.Meta = own
	assert.JSONEq(t, `{"resultType":"complete","_meta":{"k":"v","io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"content":[]}`,
		shaped(withMeta))
	assert.Equal(t, spec.Meta{"k": "v"}, own, "the handler's _meta is copied, not written")
	assert.JSONEq(t, plain, shaped(&spec.CallToolResult{Content: []spec.Content{}}), "the shared _meta kept nothing of the other result")
	other := &spec.Implementation{Name: "t", Version: "2"}
	r := &spec.CallToolResult{Content: []spec.Content{}}
	d.Shape(r, Shaping{Method: "tools/call", ServerInfo: other})
	assert.Same(t, other, r.Meta[spec.MetaServerInfo])
}
