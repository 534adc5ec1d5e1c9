package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// response is one on_response.
type response struct {
	tag  uint64
	rc   Code
	body string
}

// clientHost stands in for a host's client callbacks.
type clientHost struct {
	answers    bool
	onQuestion func(q uint64, method string, params []byte)

	responses chan response
	progress  chan string
	notes     chan string // "method params"
	cancelled chan uint64 // on_question_cancel

	mu       sync.Mutex
	closed   chan struct{}
	closedRC Code
	after    int // callbacks after on_closed
}

func newClientHost() *clientHost {
	return &clientHost{answers: true, responses: make(chan response, 1000), progress: make(chan string, 1000),
		notes: make(chan string, 1000), cancelled: make(chan uint64, 100), closed: make(chan struct{})}
}

func (h *clientHost) check() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.closed:
		h.after++
	default:
	}
}

func (h *clientHost) OnResponse(tag uint64, rc Code, body []byte) {
	h.check()
	h.responses <- response{tag, rc, string(body)}
}

func (h *clientHost) OnNotification(method string, params []byte) {
	h.check()
	h.notes <- method + " " + string(params)
}

func (h *clientHost) OnProgress(tag uint64, params []byte) {
	h.check()
	h.progress <- fmt.Sprintf("%d %s", tag, params)
}

func (h *clientHost) OnQuestion(q uint64, method string, params []byte) {
	h.check()
	if h.onQuestion != nil {
		h.onQuestion(q, method, bytes.Clone(params))
	}
}

func (h *clientHost) OnQuestionCancel(q uint64) {
	h.check()
	h.cancelled <- q
}

func (h *clientHost) OnClosed(rc Code, _ string) {
	h.mu.Lock()
	h.closedRC = rc
	h.mu.Unlock()
	close(h.closed)
}

func (h *clientHost) Answers() bool { return h.answers }

func (h *clientHost) next(t *testing.T) response {
	t.Helper()
	select {
	case r := <-h.responses:
		return r
	case <-timeout():
		t.Fatal("no on_response")
		return response{}
	}
}

// connectTo connects a client to the server of handle s with extra
// options, checks the connect's answer and closes the client at the end.
func connectTo(t *testing.T, h *clientHost, s uint64, extra string) uint64 {
	t.Helper()
	c := connected(t, h, s, extra)
	t.Cleanup(func() { closeClient(t, h, c) })
	return c
}

// connected is connectTo for a test that ends the client itself.
func connected(t *testing.T, h *clientHost, s uint64, extra string) uint64 {
	t.Helper()
	c, err := Connect([]byte(fmt.Sprintf(`{"server":%d%s}`, s, extra)), h, 1)
	require.NoError(t, err)
	r := h.next(t)
	require.Equal(t, OK, r.rc, r.body)
	require.Equal(t, uint64(1), r.tag)
	return c
}

// closeClient closes c and checks the end: on_closed last, nothing after.
func closeClient(t *testing.T, h *clientHost, c uint64) {
	t.Helper()
	require.NoError(t, CloseClient(c))
	select {
	case <-h.closed:
	case <-timeout():
		t.Fatal("on_closed never came")
	}
	require.NoError(t, FreeClient(c))
	h.mu.Lock()
	defer h.mu.Unlock()
	require.Zero(t, h.after, "callbacks after on_closed")
	assert.Equal(t, EBadHandle, CodeOf(FreeClient(c)), "a freed client is a bad handle")
}

// echoServer is a host server whose echo tool answers at once, unless
// the text is "hold": then the call waits for its cancellation.
func echoServer(t *testing.T) (*fakeHost, uint64) {
	return toolServer(t, func(call uint64, _ uint32, _ uint64, params []byte) {
		var p struct {
			Arguments struct{ Text string } `json:"arguments"`
		}
		require.NoError(t, json.Unmarshal(params, &p))
		if p.Arguments.Text != "hold" {
			require.NoError(t, CompleteText(call, []byte(p.Arguments.Text)))
		}
	})
}

// toolServer is a host server whose echo tool onCall answers, freed at
// the test's end.
func toolServer(t testing.TB, onCall func(call uint64, kind uint32, tag uint64, params []byte)) (*fakeHost, uint64) {
	h := newFakeHost(onCall)
	s, err := NewServer(nil, h)
	require.NoError(t, err)
	require.NoError(t, AddTool(s, []byte(echoTool), 7))
	t.Cleanup(func() {
		_ = Free(s)
		<-h.closed
	})
	return h, s
}

func TestClientRequests(t *testing.T) {
	for _, rev := range []string{"", "2025-03-26", "2025-11-25"} {
		t.Run("revision="+rev, func(t *testing.T) {
			_, s := echoServer(t)
			h := newClientHost()
			extra := ""
			if rev != "" {
				extra = fmt.Sprintf(`,"revision":%q`, rev)
			}
			c, err := Connect([]byte(fmt.Sprintf(`{"server":%d%s,"client_info":{"name":"c","version":"1"}}`, s, extra)), h, 1)
			require.NoError(t, err)
			r := h.next(t)
			require.Equal(t, OK, r.rc, r.body)
			var info struct {
				ProtocolVersion string
				ServerInfo      struct{ Name string }
			}
			require.NoError(t, json.Unmarshal([]byte(r.body), &info))
			want := rev
			if want == "" {
				want = "2026-07-28"
			}
			assert.Equal(t, want, info.ProtocolVersion)
			assert.Equal(t, "polymcp-server", info.ServerInfo.Name)

			require.NoError(t, Request(c, "tools/list", nil, nil, 2))
			r = h.next(t)
			require.Equal(t, OK, r.rc, r.body)
			assert.Contains(t, r.body, `"name":"echo"`)

			require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"héllo"}}`), nil, 3))
			r = h.next(t)
			require.Equal(t, OK, r.rc, r.body)
			assert.Contains(t, r.body, `"content":[{"type":"text","text":"héllo"}]`)

			require.NoError(t, Request(c, "tools/call", []byte(`{"name":"nope","arguments":{}}`), nil, 4))
			r = h.next(t)
			require.Equal(t, ERPC, r.rc, r.body)
			assert.Contains(t, r.body, `"code":-32602`)

			require.NoError(t, Request(c, "ping", nil, []byte(`{"timeout_ms":5000,"meta":{"k":1}}`), 5))
			r = h.next(t)
			assert.Equal(t, OK, r.rc, r.body)
			closeClient(t, h, c)
		})
	}
}

func TestClientRefusesBadInput(t *testing.T) {
	_, s := echoServer(t)
	h := newClientHost()
	for _, opts := range []string{`{}`, `{"server":1,"url":"http://x"}`, `{"command":[""]}`,
		`{"server":1,"bogus":1}`, `{"server":1,"revision":"2020-01-01"}`, `{"url":"http://x","env":{"A":"b"}}`} {
		_, err := Connect([]byte(opts), h, 1)
		assert.Equal(t, EInvalid, CodeOf(err), opts)
	}
	quiet := newClientHost()
	quiet.answers = false
	_, err := Connect([]byte(fmt.Sprintf(`{"server":%d,"sampling":true}`, s)), quiet, 1)
	assert.Equal(t, EInvalid, CodeOf(err), "a capability without on_question")

	c := connectTo(t, h, s, "")
	assert.Equal(t, EInvalid, CodeOf(Request(c, "tools/call", []byte(`[1]`), nil, 2)), "params that are not an object")
	assert.Equal(t, EInvalid, CodeOf(Request(c, "", nil, nil, 2)))
	assert.Equal(t, EInvalid, CodeOf(Request(c, "ping", nil, []byte(`{"timeout_ms":-1}`), 2)))
	assert.Equal(t, EUnknownCall, CodeOf(Cancel(c, 99)))
	assert.Equal(t, EBadHandle, CodeOf(Request(s, "ping", nil, nil, 2)), "a server handle is not a client")
	assert.Equal(t, EInvalid, CodeOf(FreeClient(c)), "free before on_closed")

	require.NoError(t, Request(c, "tools/call", []byte(`{"arguments":{}}`), nil, 2))
	assert.Equal(t, EInvalid, h.next(t).rc, "a tools/call without a name")
}

func TestClientCancelAndClose(t *testing.T) {
	server, s := echoServer(t)
	h := newClientHost()
	c := connected(t, h, s, "")

	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"hold"}}`), nil, 2))
	waitFor(t, "the call reaches the server", func() bool { return server.count("call") == 1 })
	assert.Equal(t, EInvalid, CodeOf(Request(c, "ping", nil, nil, 2)), "a tag still pending")
	require.NoError(t, Cancel(c, 2))
	r := h.next(t)
	assert.Equal(t, response{2, ECancelled, `{"message":"cancelled by the host"}`}, r)
	waitFor(t, "the server's on_cancel", func() bool { return server.count("cancel") == 1 })

	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"hold"}}`), []byte(`{"timeout_ms":50}`), 3))
	assert.Equal(t, ETimeout, h.next(t).rc)

	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"hold"}}`), nil, 4))
	waitFor(t, "the call reaches the server", func() bool { return server.count("call") == 3 })
	require.NoError(t, CloseClient(c))
	r = h.next(t)
	assert.Equal(t, uint64(4), r.tag)
	assert.Equal(t, EClosed, r.rc, r.body)
	<-h.closed
	assert.Equal(t, OK, h.closedRC)
	assert.Equal(t, EClosed, CodeOf(Request(c, "ping", nil, nil, 5)))
	require.NoError(t, CloseClient(c), "a second close")
	require.NoError(t, FreeClient(c))
}

func TestClientConnectFails(t *testing.T) {
	h := newClientHost()
	c, err := Connect([]byte(`{"command":["/nonexistent/polymcp-server"]}`), h, 9)
	require.NoError(t, err, "connecting is asynchronous")
	// A request made before the failure waits for the connection and ends
	// with it; one made after is refused at once.
	want := map[uint64]Code{9: EIO}
	if err := Request(c, "ping", nil, nil, 10); err == nil {
		want[10] = EClosed
	} else {
		assert.Equal(t, EClosed, CodeOf(err))
	}
	got := map[uint64]Code{}
	for range want {
		r := h.next(t)
		got[r.tag] = r.rc
	}
	assert.Equal(t, want, got)
	<-h.closed
	assert.Equal(t, EIO, h.closedRC)
	require.NoError(t, FreeClient(c))
}

func TestClientQuestions(t *testing.T) {
	asks := `{"who":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}},"where":{"method":"roots/list"}}`
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			_, s := toolServer(t, inputHost(t, asks))

			h := newClientHost()
			h.onQuestion = func(q uint64, method string, _ []byte) {
				switch method {
				case "elicitation/create":
					assert.Equal(t, EInvalid, CodeOf(Answer(q, []byte(`[]`))), "not an ElicitResult")
					require.NoError(t, Answer(q, []byte(`{"action":"accept","content":{"n":"ada"}}`)))
					assert.Equal(t, EUnknownCall, CodeOf(Answer(q, []byte(`{"action":"decline"}`))), "answered twice")
				case "roots/list":
					require.NoError(t, Answer(q, []byte(`{"roots":[{"uri":"file:///tmp","name":"tmp"}]}`)))
				default:
					t.Errorf("unexpected question %s", method)
				}
			}
			c := connectTo(t, h, s, fmt.Sprintf(`,"revision":%q,"elicitation":true,"roots":true`, rev))
			require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"x"}}`), nil, 2))
			r := h.next(t)
			require.Equal(t, OK, r.rc, r.body)
			assert.Contains(t, r.body, `\"n\":\"ada\"`)
			assert.Contains(t, r.body, `file:///tmp`)
		})
	}
}

func TestClientQuestionRefusedAndCancelled(t *testing.T) {
	_, s := toolServer(t, inputHost(t, `{"who":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}}`))

	questions := make(chan uint64, 10)
	h := newClientHost()
	h.onQuestion = func(q uint64, _ string, _ []byte) { questions <- q }
	c := connectTo(t, h, s, `,"revision":"2025-11-25","elicitation":true`)

	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"x"}}`), nil, 2))
	q := <-questions
	require.NoError(t, AnswerError(q, -32600, "no, thanks"))
	r := h.next(t)
	require.Equal(t, OK, r.rc)
	assert.Contains(t, r.body, "no, thanks", "the tool saw the refusal")

	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"x"}}`), nil, 3))
	q = <-questions
	require.NoError(t, Cancel(c, 3))
	assert.Equal(t, ECancelled, h.next(t).rc)
	select {
	case got := <-h.cancelled:
		assert.Equal(t, q, got)
	case <-time.After(failAfter):
		t.Fatal("no on_question_cancel")
	}
	assert.Equal(t, EUnknownCall, CodeOf(Answer(q, []byte(`{"action":"decline"}`))))
}

func TestClientProgressAndNotifications(t *testing.T) {
	_, s := toolServer(t, func(call uint64, _ uint32, _ uint64, _ []byte) {
		for i := 1; i <= 3; i++ {
			require.NoError(t, Progress(call, []byte(fmt.Sprintf(`{"progress":%d,"total":3}`, i))))
		}
		require.NoError(t, Log(call, []byte(`{"level":"warning","data":"careful"}`)))
		require.NoError(t, CompleteText(call, []byte("done")))
	})

	h := newClientHost()
	c := connectTo(t, h, s, `,"revision":"2025-11-25"`)
	require.NoError(t, Request(c, "logging/setLevel", []byte(`{"level":"debug"}`), nil, 2))
	require.Equal(t, OK, h.next(t).rc)
	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"x"}}`), []byte(`{"progress":true}`), 3))
	require.Equal(t, OK, h.next(t).rc)
	require.Len(t, h.progress, 3, "every progress before the response")
	assert.Equal(t, `3 {"progress":1,"total":3}`, <-h.progress)
	note := <-h.notes
	assert.Equal(t, `notifications/message {"level":"warning","data":"careful"}`, note)

	require.NoError(t, AddTool(s, []byte(`{"name":"other","inputSchema":{"type":"object"}}`), 8))
	select {
	case n := <-h.notes:
		assert.Equal(t, "notifications/tools/list_changed {}", n)
	case <-timeout():
		t.Fatal("no list_changed")
	}
}

func TestClientManyConcurrent(t *testing.T) {
	_, s := echoServer(t)
	h := newClientHost()
	c := connectTo(t, h, s, "")
	const n = 250 // within the server's concurrency and queue (32 + 256)
	for i := range n {
		require.NoError(t, Request(c, "tools/call", []byte(fmt.Sprintf(`{"name":"echo","arguments":{"text":"m%d"}}`, i)), nil, uint64(100+i)))
	}
	seen := map[uint64]bool{}
	for range n {
		r := h.next(t)
		require.Equal(t, OK, r.rc, r.body)
		assert.Contains(t, r.body, fmt.Sprintf(`"text":"m%d"`, r.tag-100))
		seen[r.tag] = true
	}
	assert.Len(t, seen, n)
}

func TestClientListen(t *testing.T) {
	_, s := echoServer(t)
	h := newClientHost()
	c := connectTo(t, h, s, "")
	require.NoError(t, Request(c, "subscriptions/listen", []byte(`{"notifications":{"toolsListChanged":true}}`), nil, 2))
	r := h.next(t)
	require.Equal(t, OK, r.rc, r.body)
	assert.JSONEq(t, `{"notifications":{"toolsListChanged":true}}`, r.body)
	assert.Equal(t, EInvalid, CodeOf(Request(c, "ping", nil, nil, 2)), "the subscription keeps its tag")

	require.NoError(t, AddTool(s, []byte(`{"name":"other","inputSchema":{"type":"object"}}`), 8))
	select {
	case n := <-h.notes:
		assert.Equal(t, "notifications/tools/list_changed {}", n)
	case <-timeout():
		t.Fatal("no list_changed through the subscription")
	}
	require.NoError(t, Cancel(c, 2), "cancelling ends the subscription")
	waitFor(t, "the tag to be free again", func() bool { return CodeOf(Cancel(c, 2)) == EUnknownCall })
	require.NoError(t, Request(c, "ping", nil, nil, 2))
	assert.Equal(t, OK, h.next(t).rc)
	assert.Empty(t, h.responses, "no second on_response for the subscription")
	for len(h.notes) > 0 {
		assert.NotContains(t, <-h.notes, SubscriptionEnded, "the host ended it: nothing to report")
	}
}

func TestClientOfAClosedServer(t *testing.T) {
	server, s := echoServer(t)
	h := newClientHost()
	c := connected(t, h, s, "")
	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"hold"}}`), nil, 2))
	waitFor(t, "the call reaches the server", func() bool { return server.count("call") == 1 })
	require.NoError(t, Close(s))
	r := h.next(t)
	assert.Equal(t, EClosed, r.rc, r.body)
	select {
	case <-h.closed:
	case <-timeout():
		t.Fatal("the client outlived its server")
	}
	assert.Equal(t, EClosed, h.closedRC)
	require.NoError(t, FreeClient(c))
}

// The "capabilities" option is declared as it is, over the booleans; a
// capability it declares needs on_question like its boolean.
func TestClientCapabilities(t *testing.T) {
	_, s := toolServer(t, func(call uint64, _ uint32, _ uint64, _ []byte) {
		info, err := Info(call)
		require.NoError(t, err)
		text, _ := json.Marshal(string(info))
		require.NoError(t, Complete(call, []byte(`{"content":[{"type":"text","text":`+string(text)+`}]}`)))
	})
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			h := newClientHost()
			c := connectTo(t, h, s, `,"revision":"`+rev+`","capabilities":{"elicitation":{"form":{},"url":{}},"experimental":{"x":{}}}`)
			require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"x"}}`), nil, 2))
			r := h.next(t)
			require.Equal(t, OK, r.rc, r.body)
			assert.Contains(t, r.body, `\"elicitation\":{\"form\":{},\"url\":{}}`)
			assert.Contains(t, r.body, `\"experimental\":{\"x\":{}}`)
		})
	}
	quiet := newClientHost()
	quiet.answers = false
	_, err := Connect([]byte(fmt.Sprintf(`{"server":%d,"capabilities":{"sampling":{"tools":{}}}}`, s)), quiet, 1)
	assert.Equal(t, EInvalid, CodeOf(err), "a declared capability needs on_question")
}

// timeout_ms bounds the typed calls that take no call options too (ping
// here), against a legacy server that never answers one.
func TestClientTimeoutOfTypedCalls(t *testing.T) {
	quit := make(chan struct{}) // closed before srv.Close, which waits for handlers
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&msg))
		switch msg.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},`+
				`"serverInfo":{"name":"mute","version":"1"}}}`, msg.ID)
		case "ping": // never answered
			select {
			case <-r.Context().Done():
			case <-quit:
			}
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	defer close(quit)
	h := newClientHost()
	c, err := Connect([]byte(`{"url":"`+srv.URL+`","revision":"2025-11-25"}`), h, 1)
	require.NoError(t, err)
	require.Equal(t, OK, h.next(t).rc)
	require.NoError(t, Request(c, "ping", nil, []byte(`{"timeout_ms":50}`), 2))
	assert.Equal(t, ETimeout, h.next(t).rc)
	closeClient(t, h, c)
}

// A subscription the server ends (here its HTTP stream is cut, the client
// staying connected) is reported with polymcp/subscription_ended, and its
// tag is free again.
func TestClientListenEndedByServer(t *testing.T) {
	inner := echoHandler(t, "cut")
	cut := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "subscriptions/listen" {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			go func() {
				select {
				case <-cut:
				case <-ctx.Done():
				}
				cancel()
			}()
			r = r.WithContext(ctx)
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	h := newClientHost()
	c, err := Connect([]byte(`{"url":"`+ts.URL+`/mcp"}`), h, 1)
	require.NoError(t, err)
	r := h.next(t)
	require.Equal(t, OK, r.rc, r.body)
	require.NoError(t, Request(c, "subscriptions/listen", []byte(`{"notifications":{"toolsListChanged":true}}`), nil, 2))
	r = h.next(t)
	require.Equal(t, OK, r.rc, r.body)
	close(cut)
	select {
	case n := <-h.notes:
		method, params, _ := strings.Cut(n, " ")
		assert.Equal(t, SubscriptionEnded, method)
		var ended subscriptionEnded
		require.NoError(t, json.Unmarshal([]byte(params), &ended))
		assert.Equal(t, uint64(2), ended.Tag)
		assert.Equal(t, EIO, ended.Code, "a cut stream is not a graceful end")
		var e struct{ Message string }
		require.NoError(t, json.Unmarshal(ended.Error, &e))
		assert.NotEmpty(t, e.Message)
	case <-timeout():
		t.Fatal("the end of the subscription was not reported")
	}
	assert.Equal(t, EUnknownCall, CodeOf(Cancel(c, 2)), "the tag is free")
	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"still here"}}`), nil, 2))
	r = h.next(t)
	require.Equal(t, OK, r.rc, r.body)
	assert.Contains(t, r.body, "still here")
	closeClient(t, h, c)
}
