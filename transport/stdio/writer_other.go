//go:build !unix

package stdio

import "syscall"

// rawConn: writes that do not wait are Unix's here; every message goes
// through the writer goroutine.
func rawConn(any) syscall.RawConn { return nil }

func (w *writer) tryWrite([]byte) (int, error) { return 0, nil }

// tryReader: reading without waiting is Unix's here; Serve has no input
// descriptor for a Pump (rawConn is nil), so this is never read.
type tryReader struct{ raw syscall.RawConn }

func (tryReader) Read([]byte) (int, error) { return 0, errWouldBlock }
