package spec

import "encoding/json"

// Content types.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"
	ContentResource     = "resource"
	ContentResourceLink = "resource_link"
)

// Content is one content block. Type selects which fields apply:
// text → Text; image and audio → Data (base64) and MimeType; resource →
// Resource; resource_link → URI, Name, Title, Description, MimeType, Size.
type Content struct {
	Type        string            `json:"type"`
	Text        *string           `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        *int64            `json:"size,omitempty"`
	Icons       []Icon            `json:"icons,omitempty"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
}

// TextContent returns a text block.
func TextContent(text string) Content { return Content{Type: ContentText, Text: &text} }

// ImageContent returns an image block; data is base64.
func ImageContent(data, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MimeType: mimeType}
}

// AudioContent returns an audio block (2025-03-26+); data is base64.
func AudioContent(data, mimeType string) Content {
	return Content{Type: ContentAudio, Data: data, MimeType: mimeType}
}

// EmbeddedResource returns a resource block holding contents.
func EmbeddedResource(c ResourceContents) Content {
	return Content{Type: ContentResource, Resource: &c}
}

// ResourceLink returns a resource_link block (2025-06-18+).
func ResourceLink(r Resource) Content {
	return Content{Type: ContentResourceLink, URI: r.URI, Name: r.Name, Title: r.Title,
		Description: r.Description, MimeType: r.MimeType, Size: r.Size, Icons: r.Icons,
		Annotations: r.Annotations, Meta: r.Meta}
}

// ResourceContents is text or blob contents of a resource. Exactly one of
// Text and Blob is meaningful: Blob (base64) when non-empty, else Text.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"-"`
	Blob     string `json:"-"`
	Meta     Meta   `json:"_meta,omitempty"`
}

// TextResource returns text contents.
func TextResource(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Text: text}
}

// BlobResource returns binary contents; blob is base64.
func BlobResource(uri, mimeType, blob string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Blob: blob}
}

type wireContents struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	Meta     Meta    `json:"_meta,omitempty"`
}

// MarshalJSON writes "text" (even when empty) or "blob", never both.
func (c ResourceContents) MarshalJSON() ([]byte, error) {
	w := wireContents{URI: c.URI, MimeType: c.MimeType, Meta: c.Meta}
	if c.Blob != "" {
		w.Blob = &c.Blob
	} else {
		w.Text = &c.Text
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads text or blob contents.
func (c *ResourceContents) UnmarshalJSON(b []byte) error {
	var w wireContents
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = ResourceContents{URI: w.URI, MimeType: w.MimeType, Meta: w.Meta}
	if w.Text != nil {
		c.Text = *w.Text
	}
	if w.Blob != nil {
		c.Blob = *w.Blob
	}
	return nil
}
