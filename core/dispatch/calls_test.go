package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

func initialized(t *testing.T, f *fixture) (*Session, *inbox) {
	t.Helper()
	s, in := f.session(transport.Info{Name: "test"})
	s.deliverString(initMsg, in)
	in.next(t)
	t.Cleanup(s.Close)
	return s, in
}

func TestCancelledRequestIsNeverAnswered(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"block"}}`, in)
	<-f.entered
	s.deliverString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}`, in)
	// Cancelling an unknown id is ignored.
	s.deliverString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, in)
	in.none(t, 100*time.Millisecond)
	// The session still answers.
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, in.next(t))
}

func TestTimeoutAnswersWithDefinedError(t *testing.T) {
	f := newFixture(t, executor.Options{Timeout: 50 * time.Millisecond})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out after 50ms","data":{"reason":"timeout"}}}`, in.next(t))
	in.none(t, 50*time.Millisecond)
}

// A handler that ignores its context still has its call answered at the
// deadline (the executor tells the call, Ended), and what it returns later
// is dropped.
func TestTimeoutAnswersWhileTheHandlerIgnoresIt(t *testing.T) {
	f := newFixture(t, executor.Options{Timeout: 50 * time.Millisecond})
	release := make(chan struct{})
	returned := make(chan struct{})
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "stuck"},
		func(context.Context, *router.Request, json.RawMessage) (*spec.CallToolResult, error) {
			defer close(returned)
			<-release
			return &spec.CallToolResult{Content: []spec.Content{spec.TextContent("late")}}, nil
		}))
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out after 50ms","data":{"reason":"timeout"}}}`, in.next(t))
	close(release)
	<-returned
	in.none(t, 50*time.Millisecond)
}

// abandonInbox is an inbox that records Abandon (transport.Abandoner).
type abandonInbox struct {
	*inbox
	abandoned chan struct{}
}

func (b abandonInbox) Abandon() { close(b.abandoned) }

// A request whose context ends (its client went away) while the handler
// ignores it is abandoned at once, as the handler keeps running: the reply
// learns it gets no answer, nothing is sent, and its id is free again.
func TestParentEndAbandonsWhileTheHandlerIgnoresIt(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(fmt.Sprintf("inline=%v", inline), func(t *testing.T) {
			f := newFixture(t, executor.Options{})
			release := make(chan struct{})
			returned := make(chan struct{})
			require.NoError(t, f.router.AddTool(spec.Tool{Name: "stuck"},
				func(context.Context, *router.Request, json.RawMessage) (*spec.CallToolResult, error) {
					defer close(returned)
					f.entered <- struct{}{}
					<-release
					return &spec.CallToolResult{Content: []spec.Content{spec.TextContent("late")}}, nil
				}))
			s, in := initialized(t, f)
			reply := abandonInbox{inbox: newInbox(), abandoned: make(chan struct{})}
			var sink transport.Sink = reply
			if inline {
				sink = inlineInbox{reply}
			}
			ctx, cancel := context.WithCancel(context.Background())
			delivered := make(chan struct{})
			go func() {
				s.Deliver(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck"}}`), sink)
				close(delivered)
			}()
			<-f.entered
			cancel()
			select {
			case <-reply.abandoned:
			case <-time.After(2 * time.Second):
				t.Fatal("the reply was not abandoned while the handler ran")
			}
			s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}`, in)
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"again"}]}}`, in.next(t))
			close(release)
			<-returned
			<-delivered
			reply.none(t, 50*time.Millisecond)
		})
	}
}

// inlineInbox is an abandonInbox whose handler runs inline (transport.Inliner).
type inlineInbox struct{ abandonInbox }

func (inlineInbox) Inline(bool) {}

// hostInbox is an inbox whose handlers run inline on a host's event-loop
// thread (transport.HostThread).
type hostInbox struct{ *inbox }

func (hostInbox) Inline(bool)   {}
func (hostInbox) OnHostThread() {}

// A request delivered on a host's thread that finds no free slot is not
// waited for there: Deliver returns, and a worker runs it when its turn
// comes. (The calls holding the slots may be waiting for that thread.)
func TestHostThreadNeverWaitsForATurn(t *testing.T) {
	f := newFixture(t, executor.Options{MaxConcurrency: 1})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`, in)
	<-f.entered
	delivered := make(chan struct{})
	go func() {
		s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"queued"}}}`, hostInbox{in})
		close(delivered)
	}()
	select {
	case <-delivered:
	case <-time.After(2 * time.Second):
		t.Fatal("Deliver on a host thread waited for the busy slot")
	}
	in.none(t, 20*time.Millisecond)
	close(f.release)
	got := []string{in.next(t), in.next(t)}
	assert.Contains(t, got[0], `"released"`, "FIFO: the call holding the slot answers first")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"queued"}]}}`, got[1])
}

func TestPanicIsAnErrorForThatCallOnly(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error: the handler failed","data":{"reason":"panic"}}}`, in.next(t))
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}`, in)
	assert.Contains(t, in.next(t), `"text":"ok"`)
}

func TestOverload(t *testing.T) {
	f := newFixture(t, executor.Options{MaxConcurrency: 1, MaxQueue: -1})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`, in)
	<-f.entered
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"server overloaded: too many requests in flight; retry later","data":{"reason":"overloaded"}}}`, in.next(t))
	close(f.release)
	assert.Contains(t, in.next(t), `"released"`)
}

func TestDuplicateInFlightID(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block"}}`, in)
	<-f.entered
	s.deliverString(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"request id 7 is already in flight"}}`, in.next(t))
	close(f.release)
	assert.Contains(t, in.next(t), `"released"`)
}

func TestProgressOnlyWithToken(t *testing.T) {
	f := newFixture(t, executor.Options{})
	close(f.release)
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`, in)
	assert.Contains(t, in.next(t), `"released"`)
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","_meta":{"progressToken":"tok"}}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"message":"started"}}`, in.next(t))
	assert.Contains(t, in.next(t), `"released"`)
}

func TestProgressRules(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	d, _ := f.rt.registry.Lookup(spec.Rev20250618)
	c := s.newCall(mustDecode(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":5}}}`), in)
	c.adm.dialect = d
	c.admitted()
	c.adm.meta.ProgressToken = []byte("5")
	total := 10.0
	require.NoError(t, c.Progress(1, &total, ""))
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1,"total":10}}`, in.next(t))
	assert.ErrorContains(t, c.Progress(1, nil, ""), "must increase")
	assert.ErrorContains(t, c.Progress(2, nil, strings.Repeat("x", MaxProgressMessage+1)), "4096-byte limit")
	for i := 2; i <= MaxProgressUpdates; i++ {
		require.NoError(t, c.Progress(float64(i), nil, ""))
		in.next(t)
	}
	assert.ErrorContains(t, c.Progress(5000, nil, ""), "more than 1000")
	c.finish(&spec.EmptyResult{}, nil)
	in.next(t)
	assert.ErrorContains(t, c.Progress(6000, nil, ""), "already finished")
}

func TestLogLevels(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, in.next(t))
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"t","data":"err"}}`, in.next(t))
	assert.Contains(t, in.next(t), `"id":2`)
	s.deliverString(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"loud"}}`, in)
	assert.Contains(t, in.next(t), `"code":-32602`)

	// 2026-07-28: nothing without _meta logLevel; with it, from that level.
	m, in2 := f.session(transport.Info{Name: "test"})
	defer m.Close()
	m.deliverString(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log",`+modernMeta+`}}`, in2)
	assert.Contains(t, in2.next(t), `"id":4`)
	m.deliverString(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"log","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}`, in2)
	assert.Contains(t, in2.next(t), `"data":"dbg"`)
	assert.Contains(t, in2.next(t), `"data":"err"`)
	assert.Contains(t, in2.next(t), `"id":5`)
}

func TestConcurrentCallsAllEnterBeforeAnyReturns(t *testing.T) {
	const n = 100
	f := newFixture(t, executor.Options{MaxConcurrency: n})
	s, in := initialized(t, f)
	for i := range n {
		s.deliverString(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block"}}`, i), in)
	}
	for range n {
		select {
		case <-f.entered:
		case <-time.After(5 * time.Second):
			t.Fatal("not every call entered the handler")
		}
	}
	close(f.release)
	seen := map[string]bool{}
	for range n {
		seen[in.next(t)] = true
	}
	assert.Len(t, seen, n)
}

func TestCloseCancelsInFlightAndSilencesSession(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`, in)
	<-f.entered
	s.Close()
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, in)
	in.none(t, 100*time.Millisecond)
	s.mu.Lock()
	assert.Empty(t, s.inflight.all())
	s.mu.Unlock()
}

// A call delivered after Close (a transport's reader racing its shutdown)
// never runs: its handler is not entered and nothing is answered.
func TestCallAfterCloseNeverRuns(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.Close()
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`, in)
	select {
	case <-f.entered:
		t.Fatal("the handler ran after Close")
	case <-time.After(50 * time.Millisecond):
	}
	in.none(t, 10*time.Millisecond)
	s.mu.Lock()
	assert.Empty(t, s.inflight.all())
	s.mu.Unlock()
}

// Calls delivered while Close runs either are cancelled by it or never
// run: none is left blocked in its handler afterwards.
func TestCloseRacingDeliver(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	var wg sync.WaitGroup
	for id := 1; id <= 200; id++ {
		wg.Go(func() {
			s.deliverString(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block"}}`, id), in)
		})
		if id == 100 {
			wg.Go(s.Close)
		}
	}
	wg.Wait()
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.inflight.all()) == 0
	}, 5*time.Second, time.Millisecond, "a call outlived Close")
}

func TestListChangedAndSubscriptions(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://a"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, in.next(t))
	f.rt.ResourceUpdated("test://a")
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`, in.next(t))
	f.rt.ResourceUpdated("test://other")
	in.none(t, 30*time.Millisecond)
	f.router.RemoveTools("echo")
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, in.next(t))
}

func TestListenStream(t *testing.T) {
	f := newFixture(t, executor.Options{})
	s, in := f.session(transport.Info{Name: "test"})
	defer s.Close()
	s.deliverString(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://a"]},`+modernMeta+`}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://a"]},"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`, in.next(t))
	f.router.RemoveTools("echo")
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`, in.next(t))
	f.rt.ResourceUpdated("test://a")
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a","_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`, in.next(t))
	f.router.RemovePrompts("p") // not requested
	in.none(t, 30*time.Millisecond)
	f.rt.EndListeners()
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"L","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"L","io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}}}`, in.next(t))
	f.rt.mu.Lock()
	assert.Empty(t, f.rt.listeners)
	f.rt.mu.Unlock()
}

func TestSessionEndListenersEndsOnlyItsOwn(t *testing.T) {
	f := newFixture(t, executor.Options{})
	listen := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`
	a, inA := f.session(transport.Info{Name: "test"})
	b, inB := f.session(transport.Info{Name: "test"})
	defer a.Close()
	defer b.Close()
	a.deliverString(listen, inA)
	b.deliverString(listen, inB)
	inA.next(t)
	inB.next(t)
	a.EndListeners()
	assert.Contains(t, inA.next(t), `"id":"L","result":{"resultType":"complete"`)
	inB.none(t, 30*time.Millisecond)
	f.rt.mu.Lock()
	assert.Len(t, f.rt.listeners, 1)
	f.rt.mu.Unlock()
}

// A session closed while its initialize runs is never left among those
// server notifications reach, and one that never initialized (a stateless
// request's) is never listed at all.
func TestClosedSessionsAreNotListed(t *testing.T) {
	f := newFixture(t, executor.Options{})
	var wg sync.WaitGroup
	for range 200 {
		s, in := f.session(transport.Info{Name: "test"})
		wg.Go(func() { s.deliverString(initMsg, in) })
		wg.Go(s.Close)
	}
	wg.Wait()
	assert.Empty(t, f.rt.liveSessions(), "a closed session stayed listed")

	s, _ := initialized(t, f)
	assert.Equal(t, []*Session{s}, f.rt.liveSessions())
	s.Close()
	assert.Empty(t, f.rt.liveSessions())

	modern, _ := f.session(transport.Info{Name: "test", Revision: "2026-07-28"})
	modern.Close()
	assert.False(t, modern.tracked.Load(), "a stateless session was listed")
}
