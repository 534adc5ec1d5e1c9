// Command mcpgo serves the benchmark's echo tool with
// github.com/mark3labs/mcp-go, default options: over stdio
// (server.ServeStdio), or with -http HOST:PORT over Streamable HTTP
// (StreamableHTTPServer at /mcp: stateful, WithStateful(true), which mints
// and checks session ids; with -stateless, WithStateLess(true)). It prints
// the URL on stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

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
	addr := flag.String("http", "", "serve Streamable HTTP on `host:port` instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: stateless (no sessions)")
	flag.Parse()
	s := server.NewMCPServer("bench-mcpgo", "1.2.1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echo the text back."),
		mcp.WithString("text", mcp.Required(), mcp.Description("text to echo back")),
	), echo)
	if *addr == "" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	opt := server.WithStateful(true)
	if *stateless {
		opt = server.WithStateLess(true)
	}
	h := server.NewStreamableHTTPServer(s, opt)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "mcpgo: serving http://%s/mcp\n", l.Addr())
	log.Fatal(http.Serve(l, mux))
}
