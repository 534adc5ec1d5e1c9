// Package proc starts the server under test and reads its resource use from
// /proc (Linux only).
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is a running server process.
type Server struct {
	cmd    *exec.Cmd
	stderr *tail
	stdin  io.Closer // set by StartNetwork: the pipe that keeps the server's stdin open
	exited chan struct{}
	err    error // from Wait, once exited is closed
}

// Command prepares argv to run as a server; the caller wires its stdin and
// stdout (or leaves them alone for a network server) and calls Start.
func Command(argv []string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("no server command")
	}
	return exec.Command(argv[0], argv[1:]...), nil
}

// Start starts cmd, keeping the tail of its stderr for error reports.
func Start(cmd *exec.Cmd) (*Server, error) {
	s := &Server{cmd: cmd, stderr: &tail{max: 4096}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.err = cmd.Wait(); close(s.exited) }()
	return s, nil
}

// StartNetwork starts cmd as a network server: its stdin is a pipe that stays
// open until Stop (some servers, like the C example, serve until stdin ends),
// and every line it writes to stdout or stderr is passed to onLine (from
// another goroutine) as well as kept for error reports.
func StartNetwork(cmd *exec.Cmd, onLine func(line string)) (*Server, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, stderr: &tail{max: 4096, onLine: onLine}, stdin: stdin, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.err = cmd.Wait(); close(s.exited) }()
	return s, nil
}

// Exited is closed when the server process has exited.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Pid returns the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Stderr returns the last few KiB the server wrote to stderr.
func (s *Server) Stderr() string { return strings.TrimSpace(s.stderr.String()) }

// Stop waits up to grace for the server to exit by itself (a stdio server
// should, once its stdin is closed), then kills it. A network server is
// asked to stop first: its stdin is closed and it gets SIGTERM.
func (s *Server) Stop(grace time.Duration) error {
	if s.stdin != nil {
		s.stdin.Close()
		s.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-s.exited:
		return s.err
	case <-time.After(grace):
	}
	s.cmd.Process.Kill()
	<-s.exited
	return fmt.Errorf("did not exit within %v of being asked to; killed", grace)
}

// Usage is a sample of a process's counters.
type Usage struct {
	CPU     time.Duration // user+system time so far, all threads
	PeakRSS uint64        // VmHWM, bytes
}

// Sample reads the server's counters.
func (s *Server) Sample() (Usage, error) {
	cpu, err := cpuTime(s.Pid())
	if err != nil {
		return Usage{}, err
	}
	hwm, err := peakRSS(s.Pid())
	return Usage{CPU: cpu, PeakRSS: hwm}, err
}

// cpuTime returns utime+stime from /proc/<pid>/stat.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after it are plain.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state), so utime (14) and stime (15) are f[11], f[12].
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / time.Duration(ClockTicks()), nil
}

// peakRSS returns VmHWM from /proc/<pid>/status in bytes.
func peakRSS(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}

var clockTicks = sync.OnceValue(func() int {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if n, err2 := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && err2 == nil && n > 0 {
		return n
	}
	return 100
})

// ClockTicks returns the kernel's USER_HZ, the unit of /proc CPU times, as
// `getconf CLK_TCK` reports it, or 100 (Linux's value) if that fails.
func ClockTicks() int { return clockTicks() }

// tail is an io.Writer that keeps the last max bytes written to it, and
// passes each complete line to onLine, if set.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	onLine  func(string)
	partial []byte // the current line so far, for onLine; bounded by max
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.onLine != nil {
		rest := p
		for {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			t.onLine(string(append(t.partial, rest[:i]...)))
			t.partial, rest = t.partial[:0], rest[i+1:]
		}
		if len(t.partial)+len(rest) <= t.max {
			t.partial = append(t.partial, rest...)
		}
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
