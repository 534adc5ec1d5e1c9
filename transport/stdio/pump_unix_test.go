//go:build unix

package stdio

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pumpHarness runs a pumped Serve over two real pipes; the test is the
// host, calling Read when it has written input.
type pumpHarness struct {
	srv   *fakeServer
	pump  *Pump
	batch *Batch
	inW   *os.File
	outR  *os.File
	lines *bufio.Reader
	done  chan error
}

func startPump(t *testing.T, ctx context.Context, opts Options) *pumpHarness {
	t.Helper()
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	srv := newFakeServer()
	srv.inline = true // echo answers inside Deliver: on the pumping thread
	h := &pumpHarness{srv: srv, pump: NewPump(), batch: opts.Batch, inW: inW, outR: outR, lines: bufio.NewReader(outR), done: make(chan error, 1)}
	opts.Pump = h.pump
	go func() {
		h.done <- ServeFD(ctx, srv, int(inR.Fd()), int(outW.Fd()), &opts)
		inR.Close()
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		close(srv.barrierOnce())
	})
	return h
}

func (h *pumpHarness) write(t *testing.T, s string) {
	t.Helper()
	_, err := io.WriteString(h.inW, s)
	require.NoError(t, err)
}

// ready reads the lines that are in the output pipe now, without waiting
// for more than a moment: what a Read wrote before it returned.
func (h *pumpHarness) ready(t *testing.T) []string {
	t.Helper()
	var got []string
	require.NoError(t, h.outR.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	defer func() { require.NoError(t, h.outR.SetReadDeadline(time.Time{})) }()
	for {
		l, err := h.lines.ReadString('\n')
		if err != nil {
			require.ErrorIs(t, err, os.ErrDeadlineExceeded)
			require.Empty(t, l, "a partial line")
			return got
		}
		got = append(got, strings.TrimSuffix(l, "\n"))
	}
}

func (h *pumpHarness) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-h.done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return within 5s")
		return nil
	}
}

// Each Read handles what is ready on the caller's thread and has written
// the answers when it returns; a partial line waits for its end; a line
// over the limit is answered and the next one read; end of input ends it.
func TestPumpReadsOnTheCallersThread(t *testing.T) {
	h := startPump(t, context.Background(), Options{MaxLineBytes: 200})
	assert.Equal(t, PumpDrained, h.pump.Read(), "no input yet: call again later")
	assert.Empty(t, h.ready(t))

	h.write(t, request(1, "echo", `{"a":1}`)+"\n"+request(2, "echo", `{"b":2}`)+"\n"+`{"jsonrpc":"2.0","id":3,`)
	require.Equal(t, PumpDrained, h.pump.Read())
	assert.Equal(t, []string{
		`{"jsonrpc":"2.0","id":1,"result":{"echo":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"echo":{"b":2}}}`,
	}, h.ready(t), "written before Read returned, by the caller")
	assert.Equal(t, int32(2), h.srv.session(t).delivered.Load(), "the partial line waits")

	h.write(t, `"method":"echo","params":{"c":3}}`+"\n"+`{"pad":"`+strings.Repeat("x", 300)+`"}`+"\n"+request(4, "echo", `{"d":4}`)+"\n")
	require.Equal(t, PumpDrained, h.pump.Read())
	assert.Equal(t, []string{
		`{"jsonrpc":"2.0","id":3,"result":{"echo":{"c":3}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message exceeds max_line_bytes (200)"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"echo":{"d":4}}}`,
	}, h.ready(t))

	require.NoError(t, h.inW.Close())
	assert.Equal(t, PumpEnded, h.pump.Read(), "end of input: stop polling")
	require.NoError(t, h.wait(t))
	assert.Equal(t, PumpEnded, h.pump.Read(), "after Serve returned")
	assert.Equal(t, int32(1), h.srv.session(t).closeCalls.Load())
}

// A Read handles a burst of at most pumpBurst lines and has answered them
// when it returns PumpMore, so that a pipelining client gets its first
// answers while the rest are read.
func TestPumpBursts(t *testing.T) {
	h := startPump(t, context.Background(), Options{})
	var in strings.Builder
	for i := range 2*pumpBurst + 3 {
		in.WriteString(request(i, "echo", `{}`) + "\n")
	}
	h.write(t, in.String())
	for _, want := range []struct {
		status  PumpStatus
		answers int
	}{{PumpMore, pumpBurst}, {PumpMore, pumpBurst}, {PumpDrained, 3}} {
		require.Equal(t, want.status, h.pump.Read())
		assert.Len(t, h.ready(t), want.answers)
	}
}

// A Read that starts before Serve took the Pump waits for it.
func TestPumpReadWaitsForServe(t *testing.T) {
	p := NewPump()
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	defer inW.Close()
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer outR.Close()
	read := make(chan PumpStatus, 1)
	go func() { read <- p.Read() }()
	_, err = io.WriteString(inW, request(1, "echo", `{}`)+"\n")
	require.NoError(t, err)
	srv := newFakeServer()
	srv.inline = true
	done := make(chan error, 1)
	go func() { done <- ServeFD(context.Background(), srv, int(inR.Fd()), int(outW.Fd()), &Options{Pump: p}) }()
	select {
	case status := <-read:
		assert.Equal(t, PumpDrained, status)
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return")
	}
	l, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"echo":{}}}`+"\n", l)
	require.NoError(t, inW.Close())
	assert.Equal(t, PumpEnded, p.Read())
	require.NoError(t, <-done)
}

// A Pump reads ServeFD's input: Serve refuses any other at once, as
// ServeFD does a descriptor that is not open, and a Read waiting for
// either returns false rather than hang.
func TestPumpNeedsServeFD(t *testing.T) {
	p := NewPump()
	inR, inW := io.Pipe()
	defer inW.Close()
	err := Serve(context.Background(), newFakeServer(), inR, io.Discard, &Options{Pump: p})
	require.ErrorContains(t, err, "a Pump reads the input of ServeFD")
	assert.Equal(t, PumpEnded, p.Read())

	p = NewPump()
	require.Error(t, ServeFD(context.Background(), newFakeServer(), 999, 1, &Options{Pump: p}))
	assert.Equal(t, PumpEnded, p.Read())
}

// Cancelling Serve's context ends it without any Read; later Reads say
// to stop. Calls in flight are cancelled as ever.
func TestPumpContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := startPump(t, ctx, Options{})
	h.write(t, request(1, "slow", "")+"\n")
	require.Equal(t, PumpDrained, h.pump.Read())
	cancel()
	require.NoError(t, h.wait(t))
	assert.Equal(t, PumpEnded, h.pump.Read())
	assert.Equal(t, int32(1), h.srv.session(t).cancelled.Load())
}

// With a Batch open around it, a Read leaves its answers for the Batch's
// End, so that answers the host gives after the Read leave with them.
func TestPumpInBatch(t *testing.T) {
	h := startPump(t, context.Background(), Options{Batch: new(Batch)})
	time.Sleep(20 * time.Millisecond) // let the writer goroutine park
	h.batch.Begin()
	h.write(t, request(1, "echo", `{}`)+"\n"+request(2, "notify", `{"n":1}`)+"\n")
	require.Equal(t, PumpDrained, h.pump.Read())
	assert.Empty(t, h.ready(t), "held for the batch")
	h.batch.End()
	assert.Equal(t, []string{
		`{"jsonrpc":"2.0","id":1,"result":{"echo":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"n":1}}`,
	}, h.ready(t))
}

// Reads from several threads at once take turns; every line is handled
// once, and the session sees them in order.
func TestPumpConcurrentReads(t *testing.T) {
	h := startPump(t, context.Background(), Options{})
	const n = 200
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					h.pump.Read()
				}
			}
		})
	}
	for i := range n {
		h.write(t, request(i, "echo", `{}`)+"\n")
	}
	for i := range n {
		l, err := h.lines.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"echo":{}}}`+"\n", i), l)
	}
	close(stop)
	wg.Wait()
}
