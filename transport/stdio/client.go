package stdio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/polymcp/polymcp/transport"
)

// DefaultShutdownGrace is how long ClientConn.Close waits for the server
// to exit after its stdin closed before it kills the process group.
const DefaultShutdownGrace = 2 * time.Second

// ClientConn is a Process as a transport.ClientConn, for package client.
// Its Close is the spec's stdio shutdown: close the server's stdin, wait
// for it to exit, and only then kill it.
type ClientConn struct {
	p *Process
	// Grace is how long Close waits for the server to exit on its own;
	// DefaultShutdownGrace when 0.
	Grace time.Duration
}

// Conn returns p as a transport.ClientConn.
func (p *Process) Conn() *ClientConn { return &ClientConn{p: p} }

// Process returns the process the conn speaks to.
func (c *ClientConn) Process() *Process { return c.p }

// Send implements transport.ClientConn.
func (c *ClientConn) Send(ctx context.Context, msg []byte) error {
	err := c.p.SendContext(ctx, msg)
	if errors.Is(err, os.ErrClosed) {
		return transport.ErrClosed
	}
	return err
}

// Recv implements transport.ClientConn. Blank lines are skipped (some
// servers print them), as is a line over ClientMaxLineBytes; the end of
// the server's stdout is transport.ErrClosed.
func (c *ClientConn) Recv(ctx context.Context) ([]byte, error) {
	for {
		line, err := c.p.RecvContext(ctx)
		switch {
		case errors.Is(err, ErrLineTooLong):
			continue
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, os.ErrClosed):
			return nil, transport.ErrClosed
		case err != nil:
			return nil, err
		case len(bytes.TrimSpace(line)) == 0:
			continue
		}
		return line, nil
	}
}

// Close implements transport.ClientConn: it closes the server's stdin,
// waits up to Grace for it to exit, then kills its process group.
func (c *ClientConn) Close() error {
	_ = c.p.CloseStdin()
	grace := c.Grace
	if grace <= 0 {
		grace = DefaultShutdownGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.p.Exited():
	case <-t.C:
	}
	return c.p.Close()
}
