package wire

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/polymcp/polymcp/transport/stdio"
)

// Process adapts a stdio subprocess to Conn.
func Process(p *stdio.Process) Conn { return processConn{p} }

type processConn struct{ p *stdio.Process }

func (c processConn) Send(msg []byte) error                    { return c.p.Send(msg) }
func (c processConn) Recv(ctx context.Context) ([]byte, error) { return c.p.RecvContext(ctx) }

// BuildCommand builds the polymcp command into dir and returns the binary's
// path; a TestMain calls it once per test binary. It runs the go tool
// found on PATH, from the working directory (inside the module).
func BuildCommand(dir string) (string, error) {
	bin := filepath.Join(dir, "polymcp")
	cmd := exec.Command("go", "build", "-o", bin, modulePath+"/cmd/polymcp")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("wire: go build ./cmd/polymcp: %w", err)
	}
	return bin, nil
}
