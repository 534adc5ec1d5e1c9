//go:build unix

package stdio

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// ServeFD's reader waits for input in poll(2), outside Go's poller (in
// the poller with a single P): either way cancelling Serve interrupts the
// wait, calls in flight are cancelled, the input descriptor is left as it
// was found (blocking), and nothing read is lost to a reader left behind.
func TestServeFDContextCancel(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
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
		})
	}
}

// fdInput, the reader of ServeFD's input: it waits in poll(2) for data,
// a passed read deadline interrupts the wait until cleared, a wake left
// over from an interruption does not end a later wait, a pumped one never
// waits, and the end of the pipe is io.EOF.
func TestFDInput(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	d, err := openFDInput(int(r.Fd()), false)
	require.NoError(t, err)
	defer d.close()
	buf := make([]byte, 16)
	read := func() (string, error) {
		n, err := d.Read(buf)
		return string(buf[:n]), err
	}
	later := func(s string) {
		go func() {
			time.Sleep(20 * time.Millisecond)
			_, _ = w.WriteString(s)
		}()
	}

	later("a")
	got, err := read()
	require.NoError(t, err)
	assert.Equal(t, "a", got, "waited for the data")

	require.NoError(t, d.SetReadDeadline(time.Now()))
	_, err = read()
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	_, err = read()
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "until cleared")
	require.NoError(t, d.SetReadDeadline(time.Time{}))
	require.Error(t, d.SetReadDeadline(time.Now().Add(time.Hour)), "only a passed deadline")

	_, err = unix.Write(d.wake[1], []byte{0}) // stale: no interruption
	require.NoError(t, err)
	later("b")
	got, err = read()
	require.NoError(t, err)
	assert.Equal(t, "b", got)

	p, err := openFDInput(int(r.Fd()), true)
	require.NoError(t, err)
	defer p.close()
	_, err = p.Read(buf)
	require.ErrorIs(t, err, errWouldBlock)

	require.NoError(t, w.Close())
	_, err = read()
	require.ErrorIs(t, err, io.EOF)
}

func init() {
	// "guard-twice": two servers' guards of stdout, taken and given back in
	// turn, with a print to stdout at each step.
	childModes["guard-twice"] = func() int {
		first, releaseFirst := stdoutToStderr()
		second, releaseSecond := stdoutToStderr()
		fmt.Println("stray while both guard")
		_, _ = unix.Write(first, []byte("first\n"))
		_, _ = unix.Write(second, []byte("second\n"))
		releaseFirst()
		fmt.Println("stray while one guards")
		releaseSecond()
		fmt.Println("after")
		return 0
	}
}

// Two servers guarding stdout share the one duplicate of the real stdout
// (the second does not take stderr for it), and stdout is the program's
// again only once both are done.
func TestStdoutGuardShared(t *testing.T) {
	p := spawnChild(t, context.Background(), "guard-twice")
	for _, want := range []string{"first", "second", "after"} {
		assert.Equal(t, want, recvLine(t, p))
	}
	code, err := waitChild(t, p)
	require.NoError(t, err)
	assert.Equal(t, 0, code, "stderr:\n%s", p.Stderr())
	assert.Contains(t, string(p.Stderr()), "stray while both guard\nstray while one guards\n")
}
