//go:build !unix

package stdio

import (
	"context"
	"os"

	"github.com/polymcp/polymcp/transport"
)

// ServeProcess serves srv over the process's standard input and output.
// Without SIGPIPE (this platform has none) os.Stdout is safe to use; writes
// are timed by a watchdog since its pipes take no deadlines.
func ServeProcess(ctx context.Context, srv transport.Server, opts *Options) error {
	return Serve(ctx, srv, os.Stdin, os.Stdout, opts)
}
