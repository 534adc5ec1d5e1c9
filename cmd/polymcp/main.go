// Command polymcp serves polymcp's example servers and talks to MCP servers.
//
//	polymcp everything          serve the everything example over stdio
//	polymcp demo                run the everything example and call it as a client
//	polymcp list|call|read      talk to any MCP server as a client
//	polymcp version             print the version and the protocol revisions
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/polymcp/polymcp/internal/gcdefault"
)

const usage = `polymcp — one MCP implementation for every language

Usage:
  polymcp everything          serve the everything example over stdio
      --http HOST:PORT        serve it over HTTP instead: Streamable HTTP at /mcp (every
                              revision) and 2024-11-05 HTTP+SSE at /sse; port 0 picks a
                              free one; the URL is printed on stderr
  polymcp demo                start "polymcp everything" and call it as a client
      --server "CMD ARGS"     call this stdio server instead
  polymcp list [--json]                       list a server's tools, resources, templates, prompts
  polymcp call [--json] TOOL ['{"k":"v"}']   call a tool; print its content (status 1 on a tool error)
  polymcp read [--json] URI                  read a resource; print its text
      each names its server last: --http URL, or -- COMMAND ARGS... (a stdio server);
      --revision REV pins a protocol revision (default: negotiate), --timeout D bounds a request;
      over HTTP, --header "Name: value" (repeatable) goes on every request, and --oauth
      authorizes with OAuth 2.1 when the server asks (the URL to open is printed on stderr),
      keeping the tokens for the next run in --oauth-store FILE (default: polymcp/oauth.json
      in the user's cache directory; "" keeps none)
  polymcp version             print the version and the protocol revisions
  polymcp help                print this text
`

func main() {
	gcdefault.Apply() // this process's runtime is ours to tune, as the C ABI's is
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command and returns the process exit status: 0 on
// success, 1 when the command failed, 2 for a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "everything":
		err = serveEverything(ctx, args[1:], logger)
	case "demo":
		err = demo(ctx, args[1:], stdout)
	case "list":
		err = list(ctx, args[1:], stdout)
	case "call":
		err = callTool(ctx, args[1:], stdout)
	case "read":
		err = read(ctx, args[1:], stdout)
	case "version", "--version":
		printVersion(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "polymcp: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if err != nil {
		if u, ok := err.(usageError); ok {
			fmt.Fprintf(stderr, "polymcp %s: %s\n", args[0], string(u))
			return 2
		}
		logger.Error("polymcp "+args[0]+" failed", "err", err)
		return 1
	}
	return 0
}

// usageError is a mistake in the command line, answered with status 2.
type usageError string

func (e usageError) Error() string { return string(e) }

func printVersion(w io.Writer) {
	fmt.Fprintf(w, "polymcp %s\nprotocol revisions: %s\n", mcpVersion(), strings.Join(mcpRevisions(), ", "))
}
