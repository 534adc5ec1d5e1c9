package stdio

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// ServeProcess widens both pipes to pipeBytes (bounded by the system's
// pipe-max-size), so a 64 KiB message crosses in one write and one read;
// so does Start, for a server that does not.
func TestPipesAreWidened(t *testing.T) {
	serving := func(p *Process) {
		require.NoError(t, p.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`)))
		assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"echo":{}}}`, recvLine(t, p))
	}
	for _, tc := range []struct {
		mode  string // the child: "serve" widens its side, "stdout" does not
		ready func(*Process)
	}{{"serve", serving}, {"stdout", func(*Process) {}}} {
		t.Run(tc.mode, func(t *testing.T) {
			p := spawnChild(t, context.Background(), tc.mode)
			tc.ready(p)
			for name, f := range map[string]*os.File{"stdin": p.stdin, "stdout": p.stdout} {
				assert.GreaterOrEqual(t, pipeSize(t, f), wantPipeBytes(), name)
			}
		})
	}
}

func wantPipeBytes() int {
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if max, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && max < pipeBytes {
			return max
		}
	}
	return pipeBytes
}

func pipeSize(t *testing.T, f *os.File) int {
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	size := 0
	require.NoError(t, rc.Control(func(fd uintptr) { size, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) }))
	require.NoError(t, err)
	return size
}

// shrinkPipe makes f's pipe one page, so that writes to it are partial.
func shrinkPipe(t *testing.T, f *os.File) {
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) { _, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 4096) }))
	require.NoError(t, err)
}
