package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/polymcp/polymcp/examples/everything"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/stdio"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

func mcpVersion() string     { return mcp.Version }
func mcpRevisions() []string { return mcp.Revisions() }

// serveEverything serves the everything example until stdin closes or ctx
// ends (a signal). Only protocol messages go to stdout; logs go to stderr.
func serveEverything(ctx context.Context, args []string, logger *slog.Logger) error {
	fs := flag.NewFlagSet("everything", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("http", "", "serve Streamable HTTP (and 2024-11-05 HTTP+SSE) on HOST:PORT instead of stdio")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err // -h: run prints the usage
		}
		return usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument " + fs.Arg(0))
	}
	srv := everything.New(&mcp.ServerOptions{Logger: logger})
	defer srv.Close()
	if *addr == "" {
		return srv.ServeStdio(ctx, &stdio.Options{Logger: logger})
	}
	l, err := srv.ListenHTTP(ctx, *addr, &streamhttp.Options{Logger: logger})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "polymcp: serving %s\n", l.URL())
	return l.Wait()
}
