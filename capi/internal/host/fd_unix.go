//go:build unix

package host

import (
	"context"

	"golang.org/x/sys/unix"

	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/stdio"
)

// checkFDs reports a descriptor that is not open.
func checkFDs(fds ...int) error {
	for _, fd := range fds {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
			return errorf(EIO, "stdio: descriptor %d: %v", fd, err)
		}
	}
	return nil
}

func serveFD(ctx context.Context, srv transport.Server, in, out int, opts *stdio.Options) error {
	return stdio.ServeFD(ctx, srv, in, out, opts)
}
