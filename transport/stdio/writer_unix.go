//go:build unix

package stdio

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// rawConn returns out's descriptor access for tryWrite, if it has one.
func rawConn(out io.Writer) syscall.RawConn {
	if c, ok := out.(syscall.Conn); ok {
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
