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
