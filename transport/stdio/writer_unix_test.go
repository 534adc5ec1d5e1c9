//go:build unix

package stdio

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Over a real pipe, a sender with nothing queued writes its message itself
// (tryWrite). A pipe shrunk to one page and a reader that starts late make
// those writes partial, and the rest must still come first, whole: every
// line arrives exactly once and each sender's lines in the order sent.
func TestWriterDirectWritesOnPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	shrinkPipe(t, pw)
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

// countingPipe is a pipe's write end that counts the writes made to it.
type countingPipe struct {
	*os.File
	writes atomic.Int32
}

func (c *countingPipe) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.File.Write(p)
}

// What is sent while a Batch is open waits for its End, whichever
// goroutine sends it, and then leaves in one write; nested batches write
// at the outer End; with no batch open, a lone message goes at once.
func TestBatchGathersIntoOneWrite(t *testing.T) {
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	w := newWriter(pw, time.Minute) // raw and deadlines from the *os.File
	counted := &countingPipe{File: pw}
	w.out = counted // writes through tryWrite go to the descriptor; count the writer's too
	var b Batch
	w.batch = &b
	b.w.Store(w)
	lines := bufio.NewReader(pr)
	// The writer goroutine writes whatever is queued whenever it is awake;
	// a batch only keeps it from being woken. Let it park first.
	time.Sleep(20 * time.Millisecond)

	b.Begin()
	b.Begin()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { assert.NoError(t, w.Send(fmt.Appendf(nil, `{"n":%d}`, i))) })
	}
	wg.Wait()
	b.End()
	require.NoError(t, pr.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	n, err := pr.Read(make([]byte, 64))
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "nothing is written while a batch is open (%d bytes were)", n)
	require.NoError(t, pr.SetReadDeadline(time.Time{}))
	b.End()
	got := map[string]bool{}
	for range 20 {
		l, err := lines.ReadString('\n')
		require.NoError(t, err)
		got[l] = true
	}
	assert.Len(t, got, 20)
	assert.Zero(t, counted.writes.Load(), "the End wrote them itself, in one write that did not wait")

	time.Sleep(2 * loneGap)
	require.NoError(t, w.Send([]byte(`{"lone":true}`)))
	l, err := lines.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "{\"lone\":true}\n", l)

	w.close()
	<-w.finished
	require.NoError(t, w.result())
	pw.Close()
}
