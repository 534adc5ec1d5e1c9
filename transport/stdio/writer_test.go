package stdio

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowWriter stores a write piece by piece, yielding in between, so that
// senders run while a batch is half written.
type slowWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *slowWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), 4096)
		s.mu.Lock()
		s.buf.Write(p[:n])
		s.mu.Unlock()
		p = p[n:]
		runtime.Gosched() // let senders run in the middle of a write
	}
	return total, nil
}

// Many goroutines sending at once get exactly one line each, whole, pure
// ASCII, in some order.
func TestWriterConcurrentLines(t *testing.T) {
	const senders, each = 16, 50
	out := &slowWriter{}
	w := newWriter(out, time.Minute)
	want := map[string]int{}
	var wg sync.WaitGroup
	for g := range senders {
		for i := range each {
			// Some messages are big, so the queue fills and senders wait.
			pad := "é"
			if (g*each+i)%25 == 0 {
				pad = strings.Repeat("é", 40000)
			}
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d-%d","result":{"t":"😀%s"}}`, g, i, pad)
			want[string(AppendLine(nil, []byte(msg)))]++
			wg.Go(func() { assert.NoError(t, w.Send([]byte(msg))) })
		}
	}
	wg.Wait()
	w.close()
	<-w.finished
	require.NoError(t, w.result())

	got := map[string]int{}
	for _, l := range strings.SplitAfter(out.buf.String(), "\n") {
		if l != "" {
			got[l]++
		}
	}
	assert.Equal(t, want, got)
	for i, c := range out.buf.Bytes() {
		if c >= 0x80 {
			t.Fatalf("non-ASCII byte 0x%x at %d", c, i)
		}
	}
}

func TestWriterRefuses(t *testing.T) {
	t.Run("empty message", func(t *testing.T) {
		w := newWriter(io.Discard, time.Minute)
		defer w.close()
		assert.ErrorIs(t, w.Send(nil), errEmpty)
	})
	t.Run("after close", func(t *testing.T) {
		var out bytes.Buffer
		w := newWriter(&out, time.Minute)
		require.NoError(t, w.Send([]byte(`{"a":1}`)))
		w.close()
		assert.ErrorIs(t, w.Send([]byte(`{"a":2}`)), ErrClosed)
		<-w.finished
		assert.Equal(t, `{"a":1}`+"\n", out.String(), "what was queued before close is written")
	})
	t.Run("after a failed write", func(t *testing.T) {
		w := newWriter(failWriter{}, time.Minute)
		defer w.close()
		require.NoError(t, w.Send([]byte(`{"a":1}`)))
		<-w.failed
		assert.EqualError(t, w.Send([]byte(`{"a":2}`)), "stdio: write: "+io.ErrClosedPipe.Error())
		assert.ErrorIs(t, w.result(), io.ErrClosedPipe)
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// A sender waiting for room in a full queue is released by a failure.
func TestWriterFailureReleasesSenders(t *testing.T) {
	r, pw := io.Pipe()
	defer r.Close()
	w := newWriter(pw, 20*time.Millisecond)
	big := []byte(`"` + strings.Repeat("q", queueBytes) + `"`)
	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- w.Send(big) }()
	}
	// Nobody reads: the first batch hangs, the watchdog fails the writer.
	failed := 0
	for range 3 {
		select {
		case err := <-errs:
			if err != nil {
				failed++
				assert.ErrorIs(t, err, ErrWriteTimeout)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a sender stayed blocked after the writer failed")
		}
	}
	assert.Positive(t, failed, "the sender waiting for room fails")
	require.ErrorIs(t, w.result(), ErrWriteTimeout)
	<-w.finished
}

// gateWriter records writes. While gate is set, a Write waits on it
// (entered is told first); deadlines, when accepted, are not enforced.
type gateWriter struct {
	deadlines bool
	entered   chan struct{}
	gate      chan struct{}
	mu        sync.Mutex
	buf       bytes.Buffer
}

func (g *gateWriter) Write(p []byte) (int, error) {
	if g.gate != nil {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		<-g.gate
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gateWriter) written() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

// withDeadlines exposes SetWriteDeadline, making the writer one whose
// flush may write on the caller's goroutine.
type withDeadlines struct{ *gateWriter }

func (withDeadlines) SetWriteDeadline(time.Time) error { return nil }

// flush writes the held answers itself when the output has deadlines and
// no write is under way; otherwise it leaves them to the writer goroutine
// and returns at once.
func TestWriterFlush(t *testing.T) {
	const a, b = `{"a":1}`, `{"b":2}`
	t.Run("idle writer with deadlines: written before flush returns", func(t *testing.T) {
		g := &gateWriter{}
		w := newWriter(withDeadlines{g}, time.Minute)
		defer w.close()
		// Once the writer goroutine has written a first message it waits
		// to be woken, which a held message does not do.
		require.NoError(t, w.Send([]byte(a)))
		require.Eventually(t, func() bool { return g.written() == a+"\n" }, 5*time.Second, time.Millisecond)
		w.holding.Store(true) // the reader took a line
		require.NoError(t, w.send([]byte(a), true))
		require.NoError(t, w.send([]byte(b), true))
		time.Sleep(5 * time.Millisecond)
		assert.Equal(t, a+"\n", g.written(), "held until the flush")
		w.flush()
		assert.Equal(t, a+"\n"+a+"\n"+b+"\n", g.written(), "one write by the flusher")
	})
	// A send that asks to be held once the reader has flushed (an answer
	// from another thread, racing the reader's last flush before it waits
	// for input) is written at once: nothing would flush it.
	t.Run("held after the last flush: written at once", func(t *testing.T) {
		g := &gateWriter{}
		w := newWriter(withDeadlines{g}, time.Minute)
		defer w.close()
		w.holding.Store(true)
		w.flush()
		require.NoError(t, w.send([]byte(a), true))
		require.Eventually(t, func() bool { return g.written() == a+"\n" }, 5*time.Second, time.Millisecond)
	})
	for _, tc := range []struct {
		name string
		out  func(*gateWriter) io.Writer
	}{
		{"a write under way", func(g *gateWriter) io.Writer { return withDeadlines{g} }},
		{"no deadlines", func(g *gateWriter) io.Writer { return g }},
	} {
		t.Run(tc.name+": flush does not wait for the write", func(t *testing.T) {
			g := &gateWriter{entered: make(chan struct{}, 1), gate: make(chan struct{})}
			w := newWriter(tc.out(g), time.Minute)
			if tc.name == "a write under way" {
				require.NoError(t, w.Send([]byte(a))) // the writer goroutine takes it and blocks
				<-g.entered
				require.NoError(t, w.send([]byte(b), true))
				w.flush()
			} else {
				require.NoError(t, w.send([]byte(a), true))
				require.NoError(t, w.send([]byte(b), true))
				w.flush() // hands the batch to the writer goroutine, which blocks
				<-g.entered
			}
			close(g.gate)
			w.close()
			<-w.finished
			require.NoError(t, w.result())
			assert.Equal(t, a+"\n"+b+"\n", g.written())
		})
	}
}
