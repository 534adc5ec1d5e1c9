//go:build unix

package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/polymcp/polymcp/transport"
)

// ServeProcess serves srv over the process's standard input and output:
// ServeFD(ctx, srv, 0, 1, opts) with Options.StdoutToStderr. While it
// serves, a fmt.Println or log line anywhere in the program lands on stderr
// instead of in the middle of the protocol stream, which would break the
// client. (Should stderr be unusable, stdout is served as it is.)
//
// It never writes through os.Stdout. The Go runtime turns EPIPE on a write
// to descriptor 1 or 2 into a SIGPIPE that kills the process; inside a
// Python or Node host that loaded polymcp as a shared library, that is the
// host dying because its client went away. A write to a duplicate of the
// descriptor, numbered 3 or above, returns EPIPE as an ordinary error.
func ServeProcess(ctx context.Context, srv transport.Server, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.StdoutToStderr = true
	return ServeFD(ctx, srv, 0, 1, &o)
}

// stdout is descriptor 1's guard while servers serve with StdoutToStderr:
// the duplicate of the real stdout, and how many servers use it. Servers
// share it, so a second one does not take stderr for stdout.
var stdout struct {
	sync.Mutex
	fd, users int
}

// stdoutToStderr points descriptor 1 where 2 points, unless a server did
// already, and returns the duplicate of the real stdout and the function
// that gives it back (the last one puts descriptor 1 back). If either step
// fails it returns 1 and a no-op.
func stdoutToStderr() (out int, release func()) {
	stdout.Lock()
	defer stdout.Unlock()
	if stdout.users == 0 {
		saved, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			return 1, func() {}
		}
		if err := unix.Dup2(2, 1); err != nil {
			_ = unix.Close(saved)
			return 1, func() {}
		}
		stdout.fd = saved
	}
	stdout.users++
	return stdout.fd, releaseStdout
}

func releaseStdout() {
	stdout.Lock()
	defer stdout.Unlock()
	if stdout.users--; stdout.users == 0 {
		_ = unix.Dup2(stdout.fd, 1)
		_ = unix.Close(stdout.fd)
	}
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
// The input is read outside Go's poller (see fdInput), with Options.Pump
// only by the Pump's caller, except with a single P (GOMAXPROCS 1): a
// reader waiting in a system call would hold it, and goroutines made
// runnable meanwhile (a handler's timer, its network reply) would wait
// until sysmon took it back, up to 10 ms once sysmon has backed off. The
// poller lets the P go.
func ServeFD(ctx context.Context, srv transport.Server, inFD, outFD int, opts *Options) error {
	pumped := opts != nil && opts.Pump != nil
	if pumped {
		defer opts.Pump.detach() // when opening fails
	}
	var in io.Reader
	if pumped || runtime.GOMAXPROCS(0) > 1 {
		d, err := openFDInput(inFD, pumped)
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
	if opts != nil && opts.StdoutToStderr && outFD == 1 {
		fd, release := stdoutToStderr()
		defer release()
		outFD = fd
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

// fdInput is ServeFD's input: a non-blocking duplicate read directly,
// outside Go's poller. Pumped, a read never waits (errWouldBlock, for the
// host to poll). Otherwise the reader waits for input in poll(2), a
// blocking system call, as a blocking read would, rather than parking in
// the poller. Parked, it left every P idle between bursts of input, and
// the first system call after that reset the runtime's sysmon to its
// 20 µs naps: ~8% of a small call's CPU over stdio went to sysmon's
// wake-ups. Waiting in a system call keeps its P, as the benchmark's floor
// does with its blocking read, and sysmon backs off to 10 ms naps. A byte
// written to the wake pipe interrupts the wait (SetReadDeadline).
type fdInput struct {
	fd          int
	wasBlocking bool
	pumped      bool
	wake        [2]int // a pipe, non-blocking; [0] is polled beside fd
	interrupted atomic.Bool
}

func openFDInput(fd int, pumped bool) (*fdInput, error) {
	nfd, wasBlocking, err := dupNonblocking(fd)
	if err != nil {
		return nil, err
	}
	d := &fdInput{fd: nfd, wasBlocking: wasBlocking, pumped: pumped, wake: [2]int{-1, -1}}
	if !pumped {
		if err := unix.Pipe(d.wake[:]); err != nil {
			d.close()
			return nil, fmt.Errorf("stdio: wake pipe: %w", err)
		}
		for _, w := range d.wake {
			unix.CloseOnExec(w)
			_ = unix.SetNonblock(w, true)
		}
	}
	return d, nil
}

// readsWithoutWaiting implements hostInput.
func (d *fdInput) readsWithoutWaiting() bool { return d.pumped }

// Read reads what is ready; with nothing ready it returns errWouldBlock
// when pumped, else waits for input.
func (d *fdInput) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(d.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN && d.pumped:
			return 0, errWouldBlock
		case err == unix.EAGAIN:
			if err := d.wait(); err != nil {
				return 0, err
			}
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: "stdio-in", Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// wait blocks until the input is readable (or hung up: the read says so)
// or the wait is interrupted (os.ErrDeadlineExceeded).
func (d *fdInput) wait() error {
	fds := []unix.PollFd{{Fd: int32(d.fd), Events: unix.POLLIN}, {Fd: int32(d.wake[0]), Events: unix.POLLIN}}
	for {
		if d.interrupted.Load() {
			return os.ErrDeadlineExceeded
		}
		_, err := unix.Poll(fds, -1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return &os.PathError{Op: "poll", Path: "stdio-in", Err: err}
		case fds[1].Revents != 0 && d.interrupted.Load():
			return os.ErrDeadlineExceeded
		case fds[0].Revents != 0:
			return nil
		case fds[1].Revents != 0:
			d.drainWake() // a wake left from an interruption since cleared
		}
	}
}

// drainWake empties the wake pipe.
func (d *fdInput) drainWake() {
	var b [64]byte
	for {
		if n, _ := unix.Read(d.wake[0], b[:]); n <= 0 {
			return
		}
	}
}

// SetReadDeadline is what Serve needs to stop a waiting Read: a time not
// after now interrupts the Read under way and any after it, until the
// zero time clears that. Later deadlines are not supported.
func (d *fdInput) SetReadDeadline(t time.Time) error {
	switch {
	case d.pumped:
		return nil // a pumped read never waits
	case t.IsZero():
		d.interrupted.Store(false)
		d.drainWake()
		return nil
	case t.After(time.Now()):
		return errors.New("stdio: only a read deadline that has passed is supported")
	}
	d.interrupted.Store(true)
	_, _ = unix.Write(d.wake[1], []byte{0})
	return nil
}

// close restores the blocking mode (see dupFile.close) and closes the copy.
func (d *fdInput) close() {
	if d.wasBlocking {
		_ = unix.SetNonblock(d.fd, false)
	}
	_ = unix.Close(d.fd)
	for _, w := range d.wake {
		if w >= 0 {
			_ = unix.Close(w)
		}
	}
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
