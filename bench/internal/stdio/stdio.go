// Package stdio is the load driver's stdio client transport: it runs the
// server as a child process and speaks newline-delimited JSON-RPC over its
// stdin and stdout.
package stdio

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/polymcp/polymcp/bench/internal/proc"
)

// Conn is a load.ClientTransport over a child's stdin and stdout.
type Conn struct {
	in      *os.File // the child's stdin, our end
	out     *os.File // the child's stdout, our end
	w       *bufio.Writer
	r       *bufio.Reader
	scratch []byte
	once    sync.Once
}

// Dial starts argv as a stdio MCP server.
func Dial(argv []string) (*proc.Server, *Conn, error) {
	cmd, err := proc.Command(argv)
	if err != nil {
		return nil, nil, err
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = stdinR, stdoutW
	srv, err := proc.Start(cmd)
	stdinR.Close() // the child holds its own copies now
	stdoutW.Close()
	if err != nil {
		stdinW.Close()
		stdoutR.Close()
		return nil, nil, err
	}
	c := &Conn{
		in: stdinW, out: stdoutR,
		w: bufio.NewWriterSize(stdinW, 256<<10),
		r: bufio.NewReaderSize(stdoutR, 1<<20),
	}
	return srv, c, nil
}

// Send queues frame and its newline.
func (c *Conn) Send(frame []byte) error {
	c.w.Write(frame)
	return c.w.WriteByte('\n') // a write error sticks, so this reports either
}

// Flush writes what is queued to the child's stdin.
func (c *Conn) Flush() error { return c.w.Flush() }

// Recv returns the next line from the child's stdout, without its newline.
// A line that fits the read buffer is returned without a copy.
func (c *Conn) Recv() ([]byte, error) {
	for {
		line, err := c.readLine()
		if err != nil || len(line) > 0 {
			return line, err
		}
	}
}

func (c *Conn) readLine() ([]byte, error) {
	chunk, err := c.r.ReadSlice('\n')
	if err == nil {
		return chunk[:len(chunk)-1], nil
	}
	c.scratch = append(c.scratch[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = c.r.ReadSlice('\n')
		c.scratch = append(c.scratch, chunk...)
	}
	if err == nil {
		return c.scratch[:len(c.scratch)-1], nil
	}
	if errors.Is(err, io.EOF) && len(c.scratch) > 0 {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// Close closes the child's stdin, which asks it to exit, and our end of its
// stdout, which ends a blocked Recv.
func (c *Conn) Close() error {
	var err error
	c.once.Do(func() { err = errors.Join(c.in.Close(), c.out.Close()) })
	return err
}
