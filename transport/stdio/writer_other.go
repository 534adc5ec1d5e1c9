//go:build !unix

package stdio

import (
	"io"
	"syscall"
)

// rawConn: writes that do not wait are Unix's here; every message goes
// through the writer goroutine.
func rawConn(io.Writer) syscall.RawConn { return nil }

func (w *writer) tryWrite([]byte) (int, error) { return 0, nil }
