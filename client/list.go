package client

import (
	"context"
	"fmt"

	"github.com/polymcp/polymcp/core/spec"
)

// page is one page of a list method's result.
type page[T any] interface {
	items() []T
	next() string
}

type toolsPage struct{ spec.ListToolsResult }

func (p *toolsPage) items() []spec.Tool { return p.Tools }
func (p *toolsPage) next() string       { return p.NextCursor }

type resourcesPage struct{ spec.ListResourcesResult }

func (p *resourcesPage) items() []spec.Resource { return p.Resources }
func (p *resourcesPage) next() string           { return p.NextCursor }

type templatesPage struct {
	spec.ListResourceTemplatesResult
}

func (p *templatesPage) items() []spec.ResourceTemplate { return p.ResourceTemplates }
func (p *templatesPage) next() string                   { return p.NextCursor }

type promptsPage struct{ spec.ListPromptsResult }

func (p *promptsPage) items() []spec.Prompt { return p.Prompts }
func (p *promptsPage) next() string         { return p.NextCursor }

// listAll follows method's pages to the end: at most MaxPages, and never a
// cursor twice (a server handing back the same cursor would loop).
func listAll[T any, P interface {
	*Q
	page[T]
}, Q any](ctx context.Context, c *Client, method string) ([]T, error) {
	var all []T
	seen := map[string]bool{}
	cursor := ""
	for range c.o.MaxPages {
		var params map[string]any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		p := P(new(Q))
		if _, err := c.send(ctx, method, params, p, nil); err != nil {
			return nil, err
		}
		all = append(all, p.items()...)
		cursor = p.next()
		if cursor == "" {
			return all, nil
		}
		if seen[cursor] {
			return nil, fmt.Errorf("client: %s gave cursor %q twice", method, cursor)
		}
		seen[cursor] = true
	}
	return nil, fmt.Errorf("client: %s has more than %d pages", method, c.o.MaxPages)
}

// ListTools returns every tool, following the pages, and remembers their
// output schemas for CallTool.
func (c *Client) ListTools(ctx context.Context) ([]spec.Tool, error) {
	tools, err := listAll[spec.Tool, *toolsPage](ctx, c, "tools/list")
	if err == nil {
		c.rememberOutputs(tools)
	}
	return tools, err
}

// ListResources returns every resource, following the pages.
func (c *Client) ListResources(ctx context.Context) ([]spec.Resource, error) {
	return listAll[spec.Resource, *resourcesPage](ctx, c, "resources/list")
}

// ListResourceTemplates returns every resource template, following the
// pages.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]spec.ResourceTemplate, error) {
	return listAll[spec.ResourceTemplate, *templatesPage](ctx, c, "resources/templates/list")
}

// ListPrompts returns every prompt, following the pages.
func (c *Client) ListPrompts(ctx context.Context) ([]spec.Prompt, error) {
	return listAll[spec.Prompt, *promptsPage](ctx, c, "prompts/list")
}
