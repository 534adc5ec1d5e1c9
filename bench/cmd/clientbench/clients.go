package main

import (
	"context"
	"errors"
	"os/exec"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport/stdio"
)

// Each client is set up the way its documentation's first example does,
// with default options, and pinned to 2025-11-25 where it negotiates, so
// that all speak the same revision.

func polymcpClient(ctx context.Context, server []string) (caller, func(), error) {
	p, err := stdio.Start(ctx, exec.Command(server[0], server[1:]...))
	if err != nil {
		return nil, nil, err
	}
	c, err := client.Connect(ctx, p.Conn(), &client.Options{Revision: spec.Rev20251125})
	if err != nil {
		return nil, nil, err
	}
	call := func(ctx context.Context, text string) (string, error) {
		r, err := c.CallTool(ctx, "echo", map[string]string{"text": text})
		if err != nil {
			return "", err
		}
		return firstText(len(r.Content), func() *string { return r.Content[0].Text })
	}
	return call, func() { c.Close() }, nil
}

func gosdkClient(ctx context.Context, server []string) (caller, func(), error) {
	c := gosdk.NewClient(&gosdk.Implementation{Name: "clientbench", Version: "1"}, nil)
	s, err := c.Connect(ctx, &gosdk.CommandTransport{Command: exec.Command(server[0], server[1:]...)}, nil)
	if err != nil {
		return nil, nil, err
	}
	call := func(ctx context.Context, text string) (string, error) {
		r, err := s.CallTool(ctx, &gosdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
		if err != nil {
			return "", err
		}
		if len(r.Content) == 0 {
			return "", errors.New("no content")
		}
		t, ok := r.Content[0].(*gosdk.TextContent)
		if !ok {
			return "", errors.New("not text")
		}
		return t.Text, nil
	}
	return call, func() { s.Close() }, nil
}

func mcpgoClient(ctx context.Context, server []string) (caller, func(), error) {
	c, err := mcpgoclient.NewStdioMCPClient(server[0], nil, server[1:]...)
	if err != nil {
		return nil, nil, err
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = spec.Rev20251125
	init.Params.ClientInfo = mcpgo.Implementation{Name: "clientbench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil, nil, err
	}
	call := func(ctx context.Context, text string) (string, error) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": text}
		r, err := c.CallTool(ctx, req)
		if err != nil {
			return "", err
		}
		if len(r.Content) == 0 {
			return "", errors.New("no content")
		}
		t, ok := r.Content[0].(mcpgo.TextContent)
		if !ok {
			return "", errors.New("not text")
		}
		return t.Text, nil
	}
	return call, func() { c.Close() }, nil
}

// firstText returns the first content item's text.
func firstText(n int, text func() *string) (string, error) {
	if n == 0 || text() == nil {
		return "", errors.New("no text content")
	}
	return *text(), nil
}
