package host

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// failAfter bounds every wait in these tests; a healthy run never nears it.
const failAfter = 20 * time.Second

// event is one callback, in the order the fake host saw them.
type event struct {
	name string // "call", "cancel", "log", "closed"
	call uint64
	kind uint32
	tag  uint64
	data string
}

// fakeHost stands in for the C callbacks.
type fakeHost struct {
	onCall func(call uint64, kind uint32, tag uint64, params []byte)

	mu     sync.Mutex
	events []event
	closed chan struct{}
	after  int // callbacks after on_closed
}

func newFakeHost(onCall func(call uint64, kind uint32, tag uint64, params []byte)) *fakeHost {
	return &fakeHost{onCall: onCall, closed: make(chan struct{})}
}

func (f *fakeHost) record(e event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.closed:
		f.after++
	default:
	}
	f.events = append(f.events, e)
}

func (f *fakeHost) OnCall(call uint64, kind uint32, tag uint64, params []byte) {
	f.record(event{name: "call", call: call, kind: kind, tag: tag, data: string(params)})
	if f.onCall != nil {
		f.onCall(call, kind, tag, params)
	}
}

func (f *fakeHost) OnCancel(call uint64) { f.record(event{name: "cancel", call: call}) }

func (f *fakeHost) OnLog(level int, msg []byte) {
	f.record(event{name: "log", data: fmt.Sprintf("%d %s", level, msg)})
}

func (f *fakeHost) OnClosed() {
	f.record(event{name: "closed"})
	close(f.closed)
}

func (f *fakeHost) snapshot() []event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]event(nil), f.events...)
}

func (f *fakeHost) count(name string) int {
	n := 0
	for _, e := range f.snapshot() {
		if e.name == name {
			n++
		}
	}
	return n
}

// inbox is a session's send callback: every message, in arrival order.
type inbox chan []byte

func (in inbox) Send(msg []byte) { in <- bytes.Clone(msg) }

func (in inbox) next(t *testing.T) string {
	t.Helper()
	select {
	case m := <-in:
		return string(m)
	case <-time.After(failAfter):
		t.Fatal("no message from the session")
		return ""
	}
}

// waitFor polls cond until it holds (a failure bound, not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(failAfter)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

const (
	initialize  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	echoTool    = `{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`
)

// fixture is a server with the echo tool (tag 7) and one initialized
// session.
type fixture struct {
	host    *fakeHost
	server  uint64
	session uint64
	in      inbox
}

func newFixture(t *testing.T, options string, onCall func(call uint64, kind uint32, tag uint64, params []byte)) *fixture {
	t.Helper()
	f := &fixture{host: newFakeHost(onCall), in: make(inbox, 20000)}
	var err error
	f.server, err = NewServer([]byte(options), f.host)
	require.NoError(t, err)
	require.NoError(t, AddTool(f.server, []byte(echoTool), 7))
	f.session, err = OpenSession(f.server, nil, f.in)
	require.NoError(t, err)
	require.NoError(t, Dispatch(f.session, []byte(initialize)))
	f.in.next(t)
	require.NoError(t, Dispatch(f.session, []byte(initialized)))
	t.Cleanup(func() { f.shutdown(t) })
	return f
}

// shutdown closes the server and checks the end of its life: on_closed
// last, nothing after it, no handle left behind.
func (f *fixture) shutdown(t *testing.T) {
	t.Helper()
	_ = Free(f.server)
	select {
	case <-f.host.closed:
	case <-time.After(failAfter):
		t.Fatal("on_closed never came")
	}
	ev := f.host.snapshot()
	require.Equal(t, "closed", ev[len(ev)-1].name, "on_closed must be the last callback")
	require.Zero(t, f.host.after, "callbacks after on_closed")
	waitFor(t, "no live calls or sessions", func() bool {
		st := CurrentStats()
		return st.Calls == 0 && st.Sessions == 0
	})
}

func (f *fixture) call(t *testing.T, msg string) {
	t.Helper()
	require.NoError(t, Dispatch(f.session, []byte(msg)))
}

func timeout() <-chan time.Time { return time.After(failAfter) }
