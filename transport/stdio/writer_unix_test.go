//go:build unix

package stdio

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Over a real pipe, a sender with nothing queued writes its message itself
// (tryWrite). A pipe shrunk to one page and a reader that starts late make
// those writes partial, and the rest must still come first, whole: every
// line arrives exactly once and each sender's lines in the order sent.
func TestWriterDirectWritesOnPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	rc, err := pw.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) { _, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 4096) }))
	require.NoError(t, err)
	w := newWriter(pw, time.Minute)
	require.NotNil(t, w.raw, "an *os.File pipe is written directly")

	// Larger than the pipe, with no reader yet: its write is partial.
	big := `{"id":"big","pad":"` + strings.Repeat("y", 10000) + `"}`
	require.NoError(t, w.Send([]byte(big)))

	const senders, each = 8, 40
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				pad := strings.Repeat("x", (g*each+i)%7*3000) // up to 18 KB: several pages
				assert.NoError(t, w.Send(fmt.Appendf(nil, `{"id":"%d-%d","pad":"%s"}`, g, i, pad)))
			}
		})
	}
	lines := make(chan []string, 1)
	go func() {
		time.Sleep(50 * time.Millisecond) // let the pipe fill first
		var got []string
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	wg.Wait()
	w.close()
	<-w.finished
	require.NoError(t, w.result())
	pw.Close()

	next := make([]int, senders) // the index each sender's next line must have
	got := <-lines
	require.Len(t, got, senders*each+1)
	assert.Equal(t, big, got[0])
	for _, l := range got[1:] {
		var g, i int
		_, err := fmt.Sscanf(l, `{"id":"%d-%d"`, &g, &i)
		require.NoError(t, err, "a whole line: %.60s", l)
		require.Equal(t, next[g], i, "sender %d's lines in order", g)
		next[g]++
		assert.Equal(t, `{"id":"`+fmt.Sprintf("%d-%d", g, i)+`","pad":"`+strings.Repeat("x", (g*each+i)%7*3000)+`"}`, l)
	}
}
