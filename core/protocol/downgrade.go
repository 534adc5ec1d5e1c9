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
			if b, ok := downgradeBlock(rev, &v.Messages[i].Content); ok {
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
	for i := range blocks {
		b, ok := downgradeBlock(rev, &blocks[i])
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

// downgradeBlock rewrites c when rev predates its type. c is a pointer: a
// block is some twenty words, and copying each one in and out cost more
// than the rest of shaping a small tool result.
func downgradeBlock(rev string, c *spec.Content) (spec.Content, bool) {
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
	return spec.Content{}, false
}

// downgradeMetadata drops the members a revision predates from the results
// that describe the server and its catalogue: the completions capability
// (2025-03-26) and every title (2025-06-18) on serverInfo, tools,
// resources, templates, prompts and prompt arguments. Older clients may
// validate strictly; the name stays, which is all they show.
func downgradeMetadata(rev string, r spec.Result) {
	switch v := r.(type) {
	case *spec.InitializeResult:
		if rev < spec.Rev20250326 {
			v.Capabilities.Completions = nil
		}
		if rev < spec.Rev20250618 {
			v.ServerInfo.Title = ""
		}
	case *spec.ListToolsResult:
		if rev < spec.Rev20250618 {
			v.Tools = untitled(v.Tools, func(t *spec.Tool) *string { return &t.Title })
		}
	case *spec.ListResourcesResult:
		if rev < spec.Rev20250618 {
			v.Resources = untitled(v.Resources, func(r *spec.Resource) *string { return &r.Title })
		}
	case *spec.ListResourceTemplatesResult:
		if rev < spec.Rev20250618 {
			v.ResourceTemplates = untitled(v.ResourceTemplates, func(t *spec.ResourceTemplate) *string { return &t.Title })
		}
	case *spec.ListPromptsResult:
		if rev < spec.Rev20250618 {
			v.Prompts = untitledPrompts(v.Prompts)
		}
	}
}

// untitledPrompts is untitled for prompts and their arguments.
func untitledPrompts(prompts []spec.Prompt) []spec.Prompt {
	var out []spec.Prompt
	for i, p := range prompts {
		args := untitled(p.Arguments, func(a *spec.PromptArgument) *string { return &a.Title })
		if p.Title == "" && (len(args) == 0 || &args[0] == &p.Arguments[0]) {
			continue // nothing to clear in this one
		}
		if out == nil {
			out = append([]spec.Prompt(nil), prompts...)
		}
		out[i].Title, out[i].Arguments = "", args
	}
	if out == nil {
		return prompts
	}
	return out
}

// untitled returns items with every title cleared. It copies the slice
// first when any title is set: the items belong to the catalogue.
func untitled[T any](items []T, title func(*T) *string) []T {
	for i := range items {
		if *title(&items[i]) != "" {
			out := append([]T(nil), items...)
			for j := range out {
				*title(&out[j]) = ""
			}
			return out
		}
	}
	return items
}
