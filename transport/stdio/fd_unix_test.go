//go:build unix

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
// pipe-max-size), so a 64 KiB message crosses in one write and one read.
func TestServeProcessGrowsPipes(t *testing.T) {
	want := pipeBytes
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if max, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && max < want {
			want = max
		}
	}
	p := spawnChild(t, context.Background(), "serve")
	require.NoError(t, p.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"echo":{}}}`, recvLine(t, p))
	for name, f := range map[string]*os.File{"stdin": p.stdin, "stdout": p.stdout} {
		size, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, size, want, name)
	}
}
