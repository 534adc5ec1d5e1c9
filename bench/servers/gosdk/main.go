// Command gosdk serves the benchmark's echo tool with the official MCP Go
// SDK (github.com/modelcontextprotocol/go-sdk), default options: over stdio
// (StdioTransport), or with -http HOST:PORT over Streamable HTTP
// (StreamableHTTPHandler at /mcp: stateful, answering with SSE streams; with
// -stateless, stateless with JSONResponse). It prints the URL on stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"text to echo back"`
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `host:port` instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: stateless, JSON responses")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-gosdk", Version: "1.8.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, echo)
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	opts := &mcp.StreamableHTTPOptions{}
	if *stateless {
		opts.Stateless, opts.JSONResponse = true, true
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts))
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "gosdk: serving http://%s/mcp\n", l.Addr())
	log.Fatal(http.Serve(l, mux))
}
