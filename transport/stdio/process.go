package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Limits of a Process.
const (
	// ClientMaxLineBytes bounds one line Recv returns; servers answer with
	// big results, so it is well above what a server accepts.
	ClientMaxLineBytes = 64 << 20
	// StderrLimit is how much of the child's stderr is kept: the latest
	// bytes, where a crash report ends up.
	StderrLimit = 1 << 20
	// waitDelay bounds how long Wait waits for stderr to close after the
	// child exited (a grandchild may hold it open).
	waitDelay = 2 * time.Second
)

// ErrLineTooLong is returned by Recv for a line over ClientMaxLineBytes; the
// line is skipped and the next Recv reads the one after it.
var ErrLineTooLong = errors.New("stdio: line exceeds ClientMaxLineBytes")

// Process is an MCP server running as a subprocess, spoken to line by line
// over its stdin and stdout. It is the client side of this transport, and
// is strict about framing so that a test can check a server's: Recv returns
// each line exactly as written, without normalising '\r', a byte order
// mark or blank lines.
//
// Send and Recv may be called from different goroutines at once; calls of
// the same one are serialised.
type Process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr tailBuffer

	readMu  sync.Mutex
	lines   *LineReader
	writeMu sync.Mutex

	closeIn   sync.Once
	closeOnce sync.Once
	closing   chan struct{} // closed by Close

	exited   chan struct{}
	exitCode int
	waitErr  error
}

// Spawn starts the named program with args as a stdio server. When ctx ends,
// the process group is killed and pending calls fail.
func Spawn(ctx context.Context, name string, args ...string) (*Process, error) {
	return Start(ctx, exec.Command(name, args...))
}

// Start is Spawn for a prepared command, for when the server needs its own
// environment or working directory. Stdin and Stdout must be unset: the
// Process owns them. A Stderr set (os.Stderr, say) gets the child's
// stderr; unset, the Process keeps its tail (Stderr). The child runs in a
// process group of its own.
func Start(ctx context.Context, cmd *exec.Cmd) (*Process, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("stdio: Start needs a command without Stdin or Stdout")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Own pipes rather than cmd.StdinPipe/StdoutPipe: exec closes those in
	// Wait, racing with reads, and ours are in the poller, so per-call
	// deadlines work.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdio: pipe: %w", err)
	}
	growPipes(inW, outR)
	p := &Process{cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{}), closing: make(chan struct{})}
	p.lines = newVerbatimReader(outR, ClientMaxLineBytes)
	cmd.Stdin, cmd.Stdout = inR, outW
	if cmd.Stderr == nil {
		cmd.Stderr = &p.stderr
	}
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	err = cmd.Start()
	// The child has its ends now; holding ours would hide its exit from
	// Recv (no EOF while we keep a write end open).
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("stdio: start %s: %w", cmd.Path, err)
	}
	go p.wait()
	if ctx.Done() != nil {
		// A goroutine rather than context.AfterFunc: its stop function
		// would have to be stored after the callback may already run.
		go p.closeOnDone(ctx)
	}
	return p, nil
}

// closeOnDone closes p when ctx ends first.
func (p *Process) closeOnDone(ctx context.Context) {
	select {
	case <-ctx.Done():
		p.Close()
	case <-p.closing:
	}
}

// wait reaps the child and records how it ended.
func (p *Process) wait() {
	err := p.cmd.Wait()
	p.exitCode = -1
	if st := p.cmd.ProcessState; st != nil {
		p.exitCode = st.ExitCode()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && p.exitCode >= 0 {
		err = nil // a non-zero status is a result, not a failure of Wait
	}
	p.waitErr = err
	close(p.exited)
}

// Pid returns the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Send writes msg and a '\n' in one write. msg must not contain '\n'.
func (p *Process) Send(msg []byte) error {
	return p.SendContext(context.Background(), msg)
}

// SendContext is Send bounded by ctx, for a server that stopped reading.
func (p *Process) SendContext(ctx context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errors.New("stdio: a message must not contain a newline")
	}
	if len(msg) < separateNewline {
		return p.WriteRaw(ctx, append(msg[:len(msg):len(msg)], '\n'))
	}
	return p.write(ctx, msg, newline)
}

// separateNewline is the length from which a message and its '\n' go in
// two writes rather than copied into one buffer: a syscall costs less
// than copying that much.
const separateNewline = 16 << 10

var newline = []byte{'\n'}

// WriteRaw writes b exactly as given, for tests of a server's framing
// (a byte order mark, CRLF, an oversize line, a line split over writes).
func (p *Process) WriteRaw(ctx context.Context, b []byte) error { return p.write(ctx, b) }

// write writes parts in order, with no other write between them.
func (p *Process) write(ctx context.Context, parts ...[]byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	err := withDeadline(ctx, p.stdin.SetWriteDeadline, func() error {
		for _, b := range parts {
			if _, err := p.stdin.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("stdio: send: %w", err)
	}
	return nil
}

// Recv returns the next line the server wrote, without its '\n' and
// otherwise verbatim. It returns io.EOF when stdout closed, or a last line
// together with io.ErrUnexpectedEOF when stdout closed inside it.
func (p *Process) Recv() ([]byte, error) {
	return p.RecvContext(context.Background())
}

// RecvContext is Recv bounded by ctx; a line partly read when ctx ends is
// kept for the next call.
func (p *Process) RecvContext(ctx context.Context) ([]byte, error) {
	p.readMu.Lock()
	defer p.readMu.Unlock()
	var line []byte
	var tooLong bool
	err := withDeadline(ctx, p.stdout.SetReadDeadline, func() error {
		var err error
		line, tooLong, err = p.lines.Next()
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case tooLong:
		return nil, ErrLineTooLong
	case p.lines.unterminated:
		return bytes.Clone(line), io.ErrUnexpectedEOF
	}
	return bytes.Clone(line), nil
}

// withDeadline runs fn with the poller deadline that set sets made to
// follow ctx, and reports ctx's error when that is what stopped fn.
func withDeadline(ctx context.Context, set func(time.Time) error, fn func() error) error {
	if ctx.Done() == nil {
		return fn()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = set(time.Now())
	})
	err := fn()
	if !stop() {
		<-fired // it set the deadline: clear it only after that
	}
	_ = set(time.Time{})
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// CloseStdin closes the server's stdin, which asks a stdio server to exit.
// Later calls do nothing.
func (p *Process) CloseStdin() error {
	var err error
	p.closeIn.Do(func() { err = p.stdin.Close() })
	return err
}

// Exited is closed once the process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait waits for the process to exit and returns its exit code. err is nil
// when it exited by itself, whatever the code; when it was killed by a
// signal the code is -1 and err says which.
func (p *Process) Wait() (exitCode int, err error) {
	<-p.exited
	return p.exitCode, p.waitErr
}

// Stderr returns a copy of the latest StderrLimit bytes of the child's
// stderr (nothing when the command came with a Stderr of its own).
func (p *Process) Stderr() []byte { return p.stderr.bytes() }

// Close kills the process group at once, waits for the child and releases
// the pipes. For a graceful stop, CloseStdin and Wait (with a deadline)
// first. Close is idempotent and safe to call concurrently with anything.
func (p *Process) Close() error {
	var err error
	p.closeOnce.Do(func() {
		close(p.closing)
		// Killing the group also ends grandchildren that would keep the
		// pipes open; it is harmless if everyone already exited.
		if err = killGroup(p.cmd); err != nil {
			_ = p.cmd.Process.Kill() // at least the child, so the wait below ends
		}
		<-p.exited
		p.CloseStdin()
		// Closing stdout unblocks a Recv waiting on a pipe that a process
		// outside the group still holds.
		p.stdout.Close()
	})
	return err
}

// tailBuffer is a concurrency-safe writer keeping the last StderrLimit bytes.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*StderrLimit { // trim rarely, so writes stay amortised O(1)
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-StderrLimit:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf[max(0, len(t.buf)-StderrLimit):])
}
