package protocol

import (
	"github.com/polymcp/polymcp/core/spec"
)

// Content blocks newer than a revision cannot go out under it: the older
// schemas enumerate the block types. Such blocks are rewritten into the
// nearest older form rather than dropped, so no data is silently lost.
//
//   - audio (2025-03-26) becomes, on 2024-11-05, an embedded resource whose
//     blob holds the audio, with an empty "data:" URI naming its media type;
//   - resource_link (2025-06-18) becomes, before it, a text block naming
//     the link's uri (and title or name).
func downgradeContent(rev string, r spec.Result) {
	switch v := r.(type) {
	case *spec.CallToolResult:
		v.Content = downgradeBlocks(rev, v.Content)
	case *spec.GetPromptResult:
		for i := range v.Messages {
			if b, ok := downgradeBlock(rev, v.Messages[i].Content); ok {
				// Copy before writing: the handler may reuse its messages.
				msgs := append([]spec.PromptMessage(nil), v.Messages...)
				msgs[i].Content = b
				v.Messages = msgs
			}
		}
	}
}

// downgradeBlocks returns blocks, or a rewritten copy when any is too new.
func downgradeBlocks(rev string, blocks []spec.Content) []spec.Content {
	var out []spec.Content
	for i, c := range blocks {
		b, ok := downgradeBlock(rev, c)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]spec.Content(nil), blocks...)
		}
		out[i] = b
	}
	if out == nil {
		return blocks
	}
	return out
}

// downgradeBlock rewrites c when rev predates its type.
func downgradeBlock(rev string, c spec.Content) (spec.Content, bool) {
	switch {
	case c.Type == spec.ContentAudio && rev < spec.Rev20250326:
		res := spec.BlobResource("data:"+c.MimeType+";base64,", c.MimeType, c.Data)
		return spec.Content{Type: spec.ContentResource, Resource: &res, Annotations: c.Annotations, Meta: c.Meta}, true
	case c.Type == spec.ContentResourceLink && rev < spec.Rev20250618:
		label := c.Title
		if label == "" {
			label = c.Name
		}
		text := c.URI
		if label != "" {
			text = label + ": " + c.URI
		}
		return spec.Content{Type: spec.ContentText, Text: &text, Annotations: c.Annotations, Meta: c.Meta}, true
	}
	return c, false
}
