//go:build unix

package stdio

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// rawConn returns v's descriptor access (for tryWrite, tryReader), if it has one.
func rawConn(v any) syscall.RawConn {
	if c, ok := v.(syscall.Conn); ok {
		if raw, err := c.SyscallConn(); err == nil {
			return raw
		}
	}
	return nil
}

// tryWrite writes as much of b as the descriptor takes at once. A write
// refused for want of room, or because the last deadline has passed
// (which only a waiting write cares about), writes nothing and is no error.
func (w *writer) tryWrite(b []byte) (int, error) {
	n := 0
	var werr error
	err := w.raw.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, err := unix.Write(int(fd), b[n:])
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				if err != unix.EAGAIN {
					werr = err
				}
				break
			}
			if m <= 0 {
				break // no progress: the writer goroutine takes over
			}
			n += m
		}
		return true // never wait: the writer goroutine does that
	})
	if werr != nil {
		// As os.File.Write reports it, so that both paths fail alike.
		name := ""
		if f, ok := w.out.(interface{ Name() string }); ok {
			name = f.Name()
		}
		return n, wrapWrite(&os.PathError{Op: "write", Path: name, Err: werr})
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return n, wrapWrite(err)
	}
	return n, nil
}

// tryReader reads a descriptor without ever waiting for input: none ready
// is errWouldBlock, for a Pump to return to its host.
type tryReader struct{ raw syscall.RawConn }

func (t tryReader) Read(p []byte) (int, error) {
	n := 0
	var rerr error
	err := t.raw.Read(func(fd uintptr) bool {
		for {
			n, rerr = unix.Read(int(fd), p)
			if rerr != unix.EINTR {
				return true // never wait: the host polls
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case rerr == unix.EAGAIN:
		return 0, errWouldBlock
	case rerr != nil:
		return 0, &os.PathError{Op: "read", Path: "stdio-in", Err: rerr}
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}
