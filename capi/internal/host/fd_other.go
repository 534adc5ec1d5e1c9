//go:build !unix

package host

import (
	"context"

	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/stdio"
)

// checkFDs refuses: serving stdio over descriptors is built for Unix only
// (the library itself is built for Linux).
func checkFDs(...int) error {
	return errorf(EIO, "stdio: serving over descriptors needs a Unix system")
}

func serveFD(context.Context, transport.Server, int, int, *stdio.Options) error {
	return errorf(EIO, "stdio: serving over descriptors needs a Unix system")
}
