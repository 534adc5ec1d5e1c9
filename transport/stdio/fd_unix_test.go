//go:build unix

package stdio

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// ServeFD's reader waits for input in poll(2), outside Go's poller:
// cancelling Serve interrupts that wait, calls in flight are cancelled,
// the input descriptor is left as it was found (blocking), and nothing
// read is lost to a reader left behind.
func TestServeFDContextCancel(t *testing.T) {
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer outR.Close()
	defer outW.Close()
	inFD, outFD := int(inR.Fd()), int(outW.Fd()) // Fd leaves them blocking
	srv := newFakeServer()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeFD(ctx, srv, inFD, outFD, nil) }()

	_, err = inW.WriteString(request(1, "echo", `{}`) + "\n" + request(2, "slow", "") + "\n")
	require.NoError(t, err)
	line := make([]byte, 128)
	n, err := outR.Read(line)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"echo":{}}}`+"\n", string(line[:n]))
	eventually(t, func() bool { return srv.session(t).delivered.Load() == 2 }, "the slow call delivered")
	time.Sleep(10 * time.Millisecond) // the reader is waiting for input again
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeFD did not return after cancel")
	}
	assert.Equal(t, int32(1), srv.session(t).cancelled.Load())

	flags, err := unix.FcntlInt(uintptr(inFD), unix.F_GETFL, 0)
	require.NoError(t, err)
	assert.Zero(t, flags&unix.O_NONBLOCK, "the input is blocking again")
	_, err = inW.WriteString("after\n")
	require.NoError(t, err)
	got := make([]byte, 6)
	_, err = io.ReadFull(inR, got)
	require.NoError(t, err)
	assert.Equal(t, "after\n", string(got), "no reader was left behind to take it")
}
