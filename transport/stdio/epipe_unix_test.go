//go:build unix

package stdio

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runWithDeadStdout runs the test binary in mode with a stdout pipe whose
// reader is already closed, sends it one request, and waits for it.
func runWithDeadStdout(t *testing.T, mode string) (*os.ProcessState, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = outW, &stderr
	require.NoError(t, cmd.Start())
	require.NoError(t, outW.Close())
	require.NoError(t, outR.Close()) // nobody can read the child's stdout now
	_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}` + "\n"))
	require.NoError(t, err)

	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("child did not exit on its own; stderr:\n%s", stderr.String())
	}
	stdin.Close()
	return cmd.ProcessState, stderr.String()
}

// A write to a broken stdout pipe is an error (EPIPE) that ends Serve, not
// a SIGPIPE that kills the process: ServeProcess writes to a duplicate of
// fd 1.
func TestServeProcessBrokenStdout(t *testing.T) {
	st, stderr := runWithDeadStdout(t, "serve")
	ws := st.Sys().(syscall.WaitStatus)
	require.False(t, ws.Signaled(), "killed by %v; stderr:\n%s", ws.Signal(), stderr)
	assert.Equal(t, childServeFailed, st.ExitCode(), stderr)
	assert.Contains(t, stderr, "serve: stdio: write: write stdio-out: broken pipe (EPIPE: true)")
}

// The control: writing to os.Stdout itself on the same broken pipe kills
// the process with SIGPIPE, which is what the test above rules out.
func TestBrokenStdoutControl(t *testing.T) {
	st, stderr := runWithDeadStdout(t, "stdout")
	ws := st.Sys().(syscall.WaitStatus)
	require.True(t, ws.Signaled(), "exit code %d; stderr:\n%s", st.ExitCode(), stderr)
	assert.Equal(t, syscall.SIGPIPE, ws.Signal())
}
