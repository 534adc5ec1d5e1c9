//go:build unix

package stdio

import (
	"context"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/polymcp/polymcp/transport"
)

// ServeProcess serves srv over the process's standard input and output,
// exactly as ServeFD(ctx, srv, 0, 1, opts).
//
// It never writes through os.Stdout. The Go runtime turns EPIPE on a write
// to descriptor 1 or 2 into a SIGPIPE that kills the process; inside a
// Python or Node host that loaded polymcp as a shared library, that is the
// host dying because its client went away. A write to a duplicate of the
// descriptor, numbered 3 or above, returns EPIPE as an ordinary error.
func ServeProcess(ctx context.Context, srv transport.Server, opts *Options) error {
	return ServeFD(ctx, srv, 0, 1, opts)
}

// ServeFD serves srv over duplicates of the descriptors inFD and outFD, so
// the caller's descriptors stay open and are never written directly (see
// ServeProcess). The duplicates are put in non-blocking mode, which lets
// the runtime poller bound each write by WriteTimeout and interrupt a read
// on cancellation; a descriptor the poller cannot take, such as a regular
// file, falls back to blocking writes under a watchdog.
//
// A descriptor that is a pipe has its kernel buffer raised to pipeBytes
// (as far as /proc/sys/fs/pipe-max-size allows; failure is ignored): at
// the default 64 KiB a 64 KiB message crosses in several partial writes,
// each waking the reader, which cost a quarter of a large call's time.
//
// O_NONBLOCK belongs to the open file description, which the duplicates
// share with the originals: while Serve runs, other code reading inFD or
// writing outFD directly may see EAGAIN (it should not: those streams carry
// the protocol). The original mode is restored on return.
//
// With Options.Pump the input is read only by the Pump's caller, through
// a duplicate that Go's poller does not watch.
func ServeFD(ctx context.Context, srv transport.Server, inFD, outFD int, opts *Options) error {
	var in io.Reader
	if opts != nil && opts.Pump != nil {
		defer opts.Pump.detach() // when opening fails
		d, err := openFDInput(inFD)
		if err != nil {
			return err
		}
		defer d.close()
		in = d
	} else {
		d, err := openDup(inFD, "stdio-in")
		if err != nil {
			return err
		}
		defer d.close()
		in = d.f
	}
	out, err := openDup(outFD, "stdio-out")
	if err != nil {
		return err
	}
	defer out.close()
	return Serve(ctx, srv, in, out.f, opts)
}

// dupFile is a non-blocking duplicate of a descriptor the caller owns.
type dupFile struct {
	f           *os.File
	wasBlocking bool
}

// openDup duplicates fd. F_DUPFD_CLOEXEC rather than plain dup(2): the copy
// is numbered 3 or above even when 0-2 are closed (os.File treats 1 and 2
// as stdout and stderr, SIGPIPE included), and it is not inherited by
// children a handler spawns, which would otherwise keep the client's pipe
// open after we exit.
func openDup(fd int, name string) (*dupFile, error) {
	nfd, wasBlocking, err := dupNonblocking(fd)
	if err != nil {
		return nil, err
	}
	// NewFile sees O_NONBLOCK and registers the descriptor with the
	// poller, which is what makes SetWriteDeadline and SetReadDeadline work.
	return &dupFile{f: os.NewFile(uintptr(nfd), name), wasBlocking: wasBlocking}, nil
}

// dupNonblocking duplicates fd (as openDup says) in non-blocking mode,
// its pipe widened, and reports whether it was blocking before.
func dupNonblocking(fd int) (nfd int, wasBlocking bool, err error) {
	nfd, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return -1, false, fmt.Errorf("stdio: dup fd %d: %w", fd, err)
	}
	flags, err := unix.FcntlInt(uintptr(nfd), unix.F_GETFL, 0)
	if err == nil && flags&unix.O_NONBLOCK == 0 {
		err = unix.SetNonblock(nfd, true)
	}
	if err != nil {
		_ = unix.Close(nfd)
		return -1, false, fmt.Errorf("stdio: non-blocking fd %d: %w", fd, err)
	}
	growPipe(nfd)
	return nfd, flags&unix.O_NONBLOCK == 0, nil
}

// fdInput is a pumped ServeFD's input (hostInput): a non-blocking
// duplicate read directly, outside the poller.
type fdInput struct {
	fd          int
	wasBlocking bool
}

func openFDInput(fd int) (*fdInput, error) {
	nfd, wasBlocking, err := dupNonblocking(fd)
	if err != nil {
		return nil, err
	}
	return &fdInput{fd: nfd, wasBlocking: wasBlocking}, nil
}

func (*fdInput) hostInput() {}

// Read reads what is ready, without waiting: errWouldBlock when nothing is.
func (d *fdInput) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(d.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, errWouldBlock
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: "stdio-in", Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// close restores the blocking mode (see dupFile.close) and closes the copy.
func (d *fdInput) close() {
	if d.wasBlocking {
		_ = unix.SetNonblock(d.fd, false)
	}
	_ = unix.Close(d.fd)
}

// close restores the shared blocking mode, so a terminal or pipe is left
// as found for the host and for whoever reads it next, then closes the copy.
func (d *dupFile) close() {
	if d.wasBlocking {
		if rc, err := d.f.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { _ = unix.SetNonblock(int(fd), false) })
		}
	}
	_ = d.f.Close()
}

// pipeBytes is the kernel buffer asked for on a pipe: Linux's default
// pipe-max-size, so an unprivileged process gets it.
const pipeBytes = 1 << 20

// growPipe raises a pipe's buffer to pipeBytes; the pipe is shared with
// the peer, which only gains from it.
func growPipe(fd int) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
		_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeBytes)
	}
}
