// Command mcpgo serves the benchmark's echo tool over stdio with
// github.com/mark3labs/mcp-go, default options.
package main

import (
	"context"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(text), nil
}

func main() {
	s := server.NewMCPServer("bench-mcpgo", "1.2.1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echo the text back."),
		mcp.WithString("text", mcp.Required(), mcp.Description("text to echo back")),
	), echo)
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
