package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// The client's wire, as literal messages: a scripted server reads what the
// client sends and answers with literal JSON, so the client's encoder is
// checked against the protocol, not against polymcp's own decoder.

const waitFor = 5 * time.Second

// script is a transport.ClientConn whose server side is the test.
type script struct {
	t     *testing.T
	sent  chan []byte
	inbox chan any // []byte or error
	once  sync.Once
	done  chan struct{}
}

func newScript(t *testing.T) *script {
	return &script{t: t, sent: make(chan []byte, 16), inbox: make(chan any, 16), done: make(chan struct{})}
}

func (s *script) Send(_ context.Context, msg []byte) error {
	select {
	case <-s.done:
		return transport.ErrClosed
	default:
	}
	s.sent <- append([]byte(nil), msg...)
	return nil
}

func (s *script) Recv(ctx context.Context) ([]byte, error) {
	select {
	case m := <-s.inbox:
		if err, ok := m.(error); ok {
			return nil, err
		}
		return m.([]byte), nil
	case <-s.done:
		return nil, transport.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *script) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// expect checks the next message the client sends, byte for byte.
func (s *script) expect(want string) {
	s.t.Helper()
	select {
	case got := <-s.sent:
		assert.Equal(s.t, want, string(got))
	case <-time.After(waitFor):
		s.t.Fatalf("the client sent nothing; want %s", want)
	}
}

// quiet checks that the client sends nothing for a while.
func (s *script) quiet() {
	s.t.Helper()
	select {
	case got := <-s.sent:
		s.t.Errorf("the client sent %s", got)
	case <-time.After(50 * time.Millisecond):
	}
}

func (s *script) say(msg string) { s.inbox <- []byte(msg) }

// connecting runs Connect in the background; wait returns its outcome.
func connecting(s *script, o *Options) (wait func() (*Client, error)) {
	type out struct {
		c   *Client
		err error
	}
	ch := make(chan out, 1)
	go func() {
		c, err := Connect(context.Background(), s, o)
		ch <- out{c, err}
	}()
	return func() (*Client, error) {
		select {
		case o := <-ch:
			if o.c != nil {
				s.t.Cleanup(func() { o.c.Close() })
			}
			return o.c, o.err
		case <-time.After(waitFor):
			s.t.Fatal("Connect did not return")
			return nil, nil
		}
	}
}

const (
	discover1 = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	discovered1 = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],` +
		`"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"9"}}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func initializeMsg(id, rev string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"capabilities":{},` +
		`"clientInfo":{"name":"polymcp-client","version":"0.1.0"},"protocolVersion":"` + rev + `"}}`
}

func initResult(id, rev string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"` + rev + `","capabilities":{"tools":{}},` +
		`"serverInfo":{"name":"legacy","version":"1"},"instructions":"be nice"}}`
}

// modern connects a client that settles on 2026-07-28.
func modern(t *testing.T, o *Options, caps string) (*script, *Client) {
	s := newScript(t)
	wait := connecting(s, o)
	s.expect(strings.Replace(discover1, `clientCapabilities":{}`, `clientCapabilities":`+caps, 1))
	s.say(discovered1)
	c, err := wait()
	require.NoError(t, err)
	return s, c
}

// legacy connects a client pinned to 2025-11-25.
func legacy(t *testing.T, o *Options, caps string) (*script, *Client) {
	s := newScript(t)
	if o == nil {
		o = &Options{}
	}
	o.Revision = spec.Rev20251125
	wait := connecting(s, o)
	s.expect(strings.Replace(initializeMsg("1", spec.Rev20251125), `"capabilities":{}`, `"capabilities":`+caps, 1))
	s.say(initResult("1", spec.Rev20251125))
	s.expect(initialized)
	c, err := wait()
	require.NoError(t, err)
	return s, c
}

// Versioning (2026-07-28 basic/versioning): a modern answer keeps the
// client modern; anything else falls back to initialize.
func TestNegotiate(t *testing.T) {
	t.Run("modern", func(t *testing.T) {
		_, c := modern(t, nil, "{}")
		assert.Equal(t, spec.Rev20260728, c.Revision())
		assert.Equal(t, spec.Implementation{Name: "srv", Version: "9"}, c.ServerInfo())
		assert.NotNil(t, c.ServerCapabilities().Tools)
	})
	fallbacks := []struct{ name, answer string }{
		{"method not found", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
		{"invalid params", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"not initialized"}}`},
	}
	for _, tc := range fallbacks {
		t.Run(tc.name, func(t *testing.T) {
			s := newScript(t)
			wait := connecting(s, nil)
			s.expect(discover1)
			s.say(tc.answer)
			s.expect(initializeMsg("2", spec.Rev20251125))
			s.say(initResult("2", spec.Rev20250618))
			s.expect(initialized)
			c, err := wait()
			require.NoError(t, err)
			assert.Equal(t, spec.Rev20250618, c.Revision())
			assert.Equal(t, "be nice", c.Instructions())
			assert.Equal(t, "legacy", c.ServerInfo().Name)
		})
	}
	t.Run("silent server", func(t *testing.T) {
		s := newScript(t)
		wait := connecting(s, &Options{ProbeTimeout: 20 * time.Millisecond})
		s.expect(discover1)
		s.expect(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"context deadline exceeded"}}`)
		s.expect(initializeMsg("2", spec.Rev20251125))
		s.say(initResult("2", spec.Rev20251125))
		s.expect(initialized)
		_, err := wait()
		require.NoError(t, err)
	})
	t.Run("-32022 naming a legacy revision", func(t *testing.T) {
		s := newScript(t)
		wait := connecting(s, nil)
		s.expect(discover1)
		s.say(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2025-03-26"],"requested":"2026-07-28"}}}`)
		s.expect(initializeMsg("2", spec.Rev20250326))
		s.say(initResult("2", spec.Rev20250326))
		s.expect(initialized)
		c, err := wait()
		require.NoError(t, err)
		assert.Equal(t, spec.Rev20250326, c.Revision())
	})
	t.Run("discover naming a legacy revision only", func(t *testing.T) {
		s := newScript(t)
		wait := connecting(s, nil)
		s.expect(discover1)
		s.say(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-06-18","2027-01-01"],"capabilities":{}}}`)
		s.expect(initializeMsg("2", spec.Rev20250618))
		s.say(initResult("2", spec.Rev20250618))
		s.expect(initialized)
		_, err := wait()
		require.NoError(t, err)
	})
	t.Run("discover naming nothing we speak", func(t *testing.T) {
		s := newScript(t)
		wait := connecting(s, nil)
		s.expect(discover1)
		s.say(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2027-01-01"],"capabilities":{}}}`)
		_, err := wait()
		var uv *UnsupportedVersionError
		require.ErrorAs(t, err, &uv)
	})
	t.Run("-32022 naming nothing we speak", func(t *testing.T) {
		s := newScript(t)
		wait := connecting(s, nil)
		s.expect(discover1)
		s.say(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2027-01-01"],"requested":"2026-07-28"}}}`)
		_, err := wait()
		var uv *UnsupportedVersionError
		require.ErrorAs(t, err, &uv)
		assert.Equal(t, []string{"2027-01-01"}, uv.Supported)
	})
	t.Run("initialize answered with a revision we do not speak", func(t *testing.T) {
		s := newScript(t)
		wait := connecting(s, &Options{Revision: spec.Rev20250618})
		s.expect(initializeMsg("1", spec.Rev20250618))
		s.say(initResult("1", "2030-01-01"))
		_, err := wait()
		var uv *UnsupportedVersionError
		require.ErrorAs(t, err, &uv)
	})
	t.Run("unknown pinned revision", func(t *testing.T) {
		_, err := Connect(context.Background(), newScript(t), &Options{Revision: "2020-01-01"})
		assert.ErrorContains(t, err, "unknown revision")
	})
}

// callAsync runs f in the background; wait returns its error.
func callAsync(t *testing.T, f func() error) (wait func() error) {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return func() error {
		select {
		case err := <-ch:
			return err
		case <-time.After(waitFor):
			t.Fatal("the call did not return")
			return nil
		}
	}
}

// Every 2026-07-28 request carries the _meta keys (basic/index §_meta);
// progress is asked for with a progressToken and routed to the call.
func TestModernRequest(t *testing.T) {
	s, c := modern(t, nil, "{}")
	var got []float64
	var r *spec.CallToolResult
	wait := callAsync(t, func() (err error) {
		r, err = c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"},
			WithProgress(func(p spec.ProgressParams) { got = append(got, p.Progress) }),
			WithMeta(spec.Meta{"com.example/trace": "t1"}))
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"com.example/trace":"t1",` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"progress-2"},"arguments":{"text":"hi"},"name":"echo"}}`)
	s.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-2","progress":1,"total":2}}`)
	s.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":9}}`)
	s.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-2","progress":2,"total":2}}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}}`)
	require.NoError(t, wait())
	assert.Equal(t, []float64{1, 2}, got)
	assert.Equal(t, "hi", *r.Content[0].Text)

	require.NoError(t, c.SetLogLevel(context.Background(), "warning"))
	wait = callAsync(t, func() error { _, err := c.ReadResource(context.Background(), "test://x"); return err })
	s.expect(`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/logLevel":"warning",` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"uri":"test://x"}}`)
	s.say(`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"test://x"}}}`)
	assert.ErrorContains(t, wait(), "Resource not found")

	assert.ErrorIs(t, c.Subscribe(context.Background(), "test://x"), errNoSubscribe)
	wait = callAsync(t, func() error { return c.Ping(context.Background()) })
	s.expect(`{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/logLevel":"warning",` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	s.say(`{"jsonrpc":"2.0","id":5,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`)
	require.NoError(t, wait())
}

// An input_required result (SEP-2322) is answered with the handlers and
// the request retried with a fresh id, the inputResponses and the
// requestState echoed unchanged; a result without requestState gets none.
func TestInputRequired(t *testing.T) {
	s, c := modern(t, &Options{
		Elicitation: func(_ context.Context, p *spec.ElicitParams) (*spec.ElicitResult, error) {
			return &spec.ElicitResult{Action: "accept", Content: map[string]any{"ok": p.Message == "sure?"}}, nil
		},
	}, `{"elicitation":{}}`)
	meta := `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":` +
		`{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	var r *spec.CallToolResult
	wait := callAsync(t, func() (err error) {
		r, err = c.CallTool(context.Background(), "deploy", nil)
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"deploy"}}`)
	s.say(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create",` +
		`"params":{"message":"sure?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}},"requestState":"s\u00e9aled=="}}`)
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + meta + `,"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},` +
		`"name":"deploy","requestState":"séaled=="}}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"again":{"method":"ping"}}}}`)
	s.expect(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{` + meta + `,"inputResponses":{"again":{}},"name":"deploy"}}`)
	s.say(`{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"deployed"}]}}`)
	require.NoError(t, wait())
	assert.Equal(t, "deployed", *r.Content[0].Text)

	wait = callAsync(t, func() error { _, err := c.CallTool(context.Background(), "roots", nil); return err })
	s.expect(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + meta + `,"name":"roots"}}`)
	s.say(`{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}}`)
	assert.ErrorContains(t, wait(), `answering input "r" (roots/list)`)
}

// Cancellation (basic/utilities/cancellation): the server is told, and an
// answer arriving after is dropped.
func TestCancel(t *testing.T) {
	s, c := legacy(t, nil, "{}")
	ctx, cancel := context.WithCancel(context.Background())
	wait := callAsync(t, func() error { _, err := c.CallTool(ctx, "sleep", nil); return err })
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep"}}`)
	cancel()
	assert.ErrorIs(t, wait(), context.Canceled)
	s.expect(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"context canceled"}}`)
	s.say(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`) // too late: dropped

	wait = callAsync(t, func() error { return c.Ping(context.Background()) })
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	require.NoError(t, wait())
}

// The server's questions on the legacy revisions (client/sampling,
// client/elicitation, client/roots, basic/utilities/ping) are answered
// with the handlers; one the server withdraws gets no answer.
func TestQuestions(t *testing.T) {
	release := make(chan struct{})
	s, _ := legacy(t, &Options{
		Sampling: func(_ context.Context, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
			return &spec.CreateMessageResult{Role: "assistant", Model: "m", Content: []byte(`{"type":"text","text":"ok"}`)}, nil
		},
		Elicitation: func(ctx context.Context, _ *spec.ElicitParams) (*spec.ElicitResult, error) {
			<-ctx.Done()
			close(release)
			return &spec.ElicitResult{Action: "cancel"}, nil
		},
	}, `{"sampling":{},"elicitation":{}}`)
	s.say(`{"jsonrpc":"2.0","id":"q1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`)
	s.expect(`{"jsonrpc":"2.0","id":"q1","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}`)
	s.say(`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`)
	s.expect(`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"method not found: roots/list"}}`)
	s.say(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	s.expect(`{"jsonrpc":"2.0","id":8,"result":{}}`)
	s.say(`{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"messages":"nope"}}`)
	s.expect(`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"params.messages must be an array (got a string)"}}`)

	s.say(`{"jsonrpc":"2.0","id":10,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`)
	s.say(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}`)
	<-release
	s.quiet()
}

// A question over MaxQuestions is refused at once.
func TestTooManyQuestions(t *testing.T) {
	release := make(chan struct{})
	s, _ := legacy(t, &Options{MaxQuestions: 1, Roots: func(ctx context.Context) ([]spec.Root, error) {
		<-release
		return nil, nil
	}}, `{"roots":{"listChanged":true}}`)
	s.say(`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)
	s.say(`{"jsonrpc":"2.0","id":2,"method":"roots/list"}`)
	s.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"too many requests in flight"}}`)
	close(release)
	s.expect(`{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`)
}

// Notifications reach their callbacks in order.
func TestNotifications(t *testing.T) {
	var mu sync.Mutex
	var got []string
	note := func(s string) {
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
	}
	s, c := legacy(t, &Options{
		OnLog:              func(p spec.LoggingMessageParams) { note("log " + string(p.Level) + " " + p.Logger) },
		OnToolsChanged:     func() { note("tools") },
		OnPromptsChanged:   func() { note("prompts") },
		OnResourcesChanged: func() { note("resources") },
		OnResourceUpdated:  func(uri string) { note("updated " + uri) },
	}, "{}")
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"db","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`,
		`{"jsonrpc":"2.0","method":"notifications/unknown"}`,
		`not json`,
	} {
		s.say(m)
	}
	// A request after them is answered after they were handled.
	wait := callAsync(t, func() error { return c.SetLogLevel(context.Background(), "debug") })
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`)
	s.say(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	require.NoError(t, wait())
	mu.Lock()
	assert.Equal(t, []string{"log error db", "tools", "prompts", "resources", "updated test://a"}, got)
	mu.Unlock()
	assert.ErrorContains(t, c.SetLogLevel(context.Background(), "loud"), "unknown log level")
}

// List methods follow nextCursor (server/utilities/pagination) and refuse
// a cursor given twice.
func TestPages(t *testing.T) {
	s, c := legacy(t, nil, "{}")
	var tools []spec.Tool
	wait := callAsync(t, func() (err error) { tools, err = c.ListTools(context.Background()); return err })
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	s.say(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c1"}}`)
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c1"}}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}`)
	require.NoError(t, wait())
	require.Len(t, tools, 2)
	assert.Equal(t, "b", tools[1].Name)

	wait = callAsync(t, func() error { _, err := c.ListPrompts(context.Background()); return err })
	s.expect(`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`)
	s.say(`{"jsonrpc":"2.0","id":4,"result":{"prompts":[],"nextCursor":"x"}}`)
	s.expect(`{"jsonrpc":"2.0","id":5,"method":"prompts/list","params":{"cursor":"x"}}`)
	s.say(`{"jsonrpc":"2.0","id":5,"result":{"prompts":[],"nextCursor":"x"}}`)
	assert.ErrorContains(t, wait(), `gave cursor "x" twice`)

	var done *spec.Completion
	wait = callAsync(t, func() (err error) {
		done, err = c.Complete(context.Background(), spec.CompleteRef{Type: "ref/prompt", Name: "greet"},
			spec.CompleteArgument{Name: "city", Value: "Pa"}, map[string]string{"country": "FR"})
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"argument":{"name":"city","value":"Pa"},` +
		`"context":{"arguments":{"country":"FR"}},"ref":{"type":"ref/prompt","name":"greet"}}}`)
	s.say(`{"jsonrpc":"2.0","id":6,"result":{"completion":{"values":["Paris"],"total":1,"hasMore":false}}}`)
	require.NoError(t, wait())
	assert.Equal(t, []string{"Paris"}, done.Values)
}

// A request the transport failed is that call's error only; the end of
// the connection fails every call.
func TestTransportFailures(t *testing.T) {
	s, c := legacy(t, nil, "{}")
	boom := errors.New("502 from a proxy")
	wait := callAsync(t, func() error { return c.Ping(context.Background()) })
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	s.inbox <- &transport.RequestError{ID: []byte("2"), Err: boom}
	assert.ErrorIs(t, wait(), boom)

	wait = callAsync(t, func() error { return c.Ping(context.Background()) })
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	require.NoError(t, wait())

	wait = callAsync(t, func() error { _, err := c.ListTools(context.Background()); return err })
	s.expect(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	s.say(`{"jsonrpc":"2.0","id":4,"result":{"tools":7}}`)
	assert.ErrorContains(t, wait(), "bad tools/list result")

	wait = callAsync(t, func() error { return c.Ping(context.Background()) })
	s.expect(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	s.Close()
	assert.ErrorIs(t, wait(), ErrClosed)
	<-c.Done()
	assert.ErrorIs(t, c.Err(), ErrClosed)
	assert.ErrorIs(t, c.Ping(context.Background()), ErrClosed)
}

// subscriptions/listen (2026-07-28 basic/patterns/subscriptions): the
// acknowledgement, matched by its subscriptionId, ends Listen; the
// subscription's notifications reach the callbacks; Close cancels it, and
// its late notifications are dropped.
func TestListenWire(t *testing.T) {
	updated := make(chan string, 1)
	s, c := modern(t, &Options{OnResourceUpdated: func(uri string) { updated <- uri }}, "{}")
	var sub *Subscription
	wait := callAsync(t, func() (err error) {
		sub, err = c.Listen(context.Background(), ListenFilter{ResourcesListChanged: true, ResourceSubscriptions: []string{"test://a"}})
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},` +
		`"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["test://a"]}}}`)
	s.say(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":["test://a"]},` +
		`"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`)
	require.NoError(t, wait())
	assert.Equal(t, ListenFilter{ResourceSubscriptions: []string{"test://a"}}, sub.Honoured)
	s.say(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`)
	assert.Equal(t, "test://a", <-updated)
	sub.Close()
	s.expect(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"subscription closed"}}`)
	assert.ErrorIs(t, sub.Err(), context.Canceled)
	// What the closed subscription still gets, sent before the server saw
	// the cancel, is dropped; a notification naming none still arrives
	// (notifications are handled in order).
	s.say(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://late","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`)
	s.say(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://unnamed"}}`)
	assert.Equal(t, "test://unnamed", <-updated)

	// A server that ends a subscription gracefully answers the request.
	wait = callAsync(t, func() (err error) {
		sub, err = c.Listen(context.Background(), ListenFilter{ToolsListChanged: true})
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},` +
		`"notifications":{"toolsListChanged":true}}}`)
	s.say(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}`)
	require.NoError(t, wait())
	s.say(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}`)
	<-sub.Done()
	assert.NoError(t, sub.Err())

	// A server without subscriptions refuses the request.
	wait = callAsync(t, func() error { _, err := c.Listen(context.Background(), ListenFilter{}); return err })
	s.expect(`{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},` +
		`"notifications":{}}}`)
	s.say(`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}`)
	assert.ErrorContains(t, wait(), "Method not found")
}

// A tool's result is checked against the outputSchema ListTools saw
// (server/tools#output-schema: clients SHOULD validate structured results).
func TestOutputSchema(t *testing.T) {
	for _, skip := range []bool{false, true} {
		s, c := legacy(t, &Options{SkipOutputValidation: skip}, "{}")
		wait := callAsync(t, func() error { _, err := c.ListTools(context.Background()); return err })
		s.expect(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		s.say(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"weather","inputSchema":{"type":"object"},` +
			`"outputSchema":{"type":"object","properties":{"temp":{"type":"integer"}},"required":["temp"]}},{"name":"plain","inputSchema":{"type":"object"}}]}}`)
		require.NoError(t, wait())
		id := 3
		call := func(tool, result string) error {
			wait := callAsync(t, func() error { _, err := c.CallTool(context.Background(), tool, nil); return err })
			s.expect(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `"}}`)
			s.say(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":` + result + `}`)
			id++
			return wait()
		}
		require.NoError(t, call("weather", `{"content":[],"structuredContent":{"temp":20}}`))
		require.NoError(t, call("weather", `{"content":[{"type":"text","text":"down"}],"isError":true}`))
		require.NoError(t, call("plain", `{"content":[]}`))
		for _, bad := range []string{`{"content":[],"structuredContent":{"temp":20.5}}`, `{"content":[]}`} {
			err := call("weather", bad)
			if skip {
				assert.NoError(t, err)
				continue
			}
			var oe *OutputError
			require.ErrorAs(t, err, &oe, bad)
			assert.Equal(t, "weather", oe.Tool)
		}
	}
}

// Request carries any method (and does the input rounds of the three that
// may ask); RootsChanged is the legacy notification.
func TestRequestAndRootsChanged(t *testing.T) {
	s, c := legacy(t, &Options{Roots: func(context.Context) ([]spec.Root, error) { return nil, nil }}, `{"roots":{"listChanged":true}}`)
	var got json.RawMessage
	wait := callAsync(t, func() (err error) {
		got, err = c.Request(context.Background(), "tasks/get", map[string]any{"taskId": "t1", "n": int64(9007199254740993)})
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"n":9007199254740993,"taskId":"t1"}}`)
	s.say(`{"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"working"}}`)
	require.NoError(t, wait())
	assert.JSONEq(t, `{"taskId":"t1","status":"working"}`, string(got))
	_, err := c.Request(context.Background(), "x", []int{1})
	assert.ErrorContains(t, err, "must be a JSON object")

	require.NoError(t, c.RootsChanged(context.Background()))
	s.expect(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)

	_, m := modern(t, nil, "{}")
	assert.ErrorContains(t, m.RootsChanged(context.Background()), "2026-07-28 has no")
}

// WithTimeout bounds one call; ResetTimeoutOnProgress keeps a call alive
// while it reports progress.
func TestTimeouts(t *testing.T) {
	s, c := legacy(t, &Options{ResetTimeoutOnProgress: true}, "{}")
	start := time.Now()
	wait := callAsync(t, func() error {
		_, err := c.CallTool(context.Background(), "slow", nil, WithTimeout(50*time.Millisecond))
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
	assert.ErrorIs(t, wait(), context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
	s.expect(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"context deadline exceeded"}}`)

	wait = callAsync(t, func() error {
		_, err := c.CallTool(context.Background(), "busy", nil, WithTimeout(150*time.Millisecond),
			WithProgress(func(spec.ProgressParams) {}))
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":"progress-3"},"name":"busy"}}`)
	for i := range 5 { // 5 × 60 ms: twice the timeout, reset at each step
		time.Sleep(60 * time.Millisecond)
		s.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-3","progress":` + strconv.Itoa(i+1) + `}}`)
	}
	s.say(`{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`)
	require.NoError(t, wait())
}

// A -32020 to tools/call (a header the server finds at odds with the body)
// makes the client list the tools again and retry once
// (server/tools#x-mcp-header).
func TestHeaderMismatchRetry(t *testing.T) {
	s, c := modern(t, nil, "{}")
	mismatch := `{"jsonrpc":"2.0","id":%d,"error":{"code":-32020,"message":"header mismatch"}}`
	wait := callAsync(t, func() error {
		_, err := c.CallTool(context.Background(), "geo", map[string]string{"region": "eu"})
		return err
	})
	call := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
			`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},` +
			`"arguments":{"region":"eu"},"name":"geo"}}`
	}
	s.expect(call(2))
	s.say(fmt.Sprintf(mismatch, 2))
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"geo","inputSchema":{"type":"object"}}]}}`)
	s.expect(call(4))
	s.say(fmt.Sprintf(mismatch, 4))
	var je *jsonrpc.Error
	require.ErrorAs(t, wait(), &je, "a second mismatch is the call's error")
	assert.EqualValues(t, -32020, je.Code)
}

// Raw JSON a caller puts in _meta is compacted and checked before it goes
// on the wire: a newline in it would break stdio's framing.
func TestMetaRawJSON(t *testing.T) {
	s, c := legacy(t, nil, "{}")
	wait := callAsync(t, func() error {
		return c.Ping(context.Background())
	})
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	s.say(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	require.NoError(t, wait())
	wait = callAsync(t, func() error {
		_, err := c.ReadResource(context.Background(), "test://a", WithMeta(spec.Meta{"com.example/x": json.RawMessage("{\n \"a\": 1\n}")}))
		return err
	})
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"_meta":{"com.example/x":{"a":1}},"uri":"test://a"}}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":{"contents":[]}}`)
	require.NoError(t, wait())
	_, err := c.ReadResource(context.Background(), "test://a", WithMeta(spec.Meta{"com.example/x": json.RawMessage("{bad")}))
	assert.ErrorContains(t, err, `_meta "com.example/x"`)
}

// The tasks extension (SEP-2663) as literal messages: the handle, polling,
// a question answered by tasks/update, the result; a context that ends
// cancels the task.
func TestTaskWire(t *testing.T) {
	caps := `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	s, c := modern(t, &Options{Tasks: true, Elicitation: func(context.Context, *spec.ElicitParams) (*spec.ElicitResult, error) {
		return &spec.ElicitResult{Action: "accept"}, nil
	}}, caps)
	meta := `"_meta":{"io.modelcontextprotocol/clientCapabilities":` + caps + `,"io.modelcontextprotocol/clientInfo":` +
		`{"name":"polymcp-client","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	task := func(status, extra string) string {
		return `{"resultType":"complete","taskId":"t1","status":"` + status + `","createdAt":"x","lastUpdatedAt":"x","ttlMs":1000,"pollIntervalMs":1` + extra + `}`
	}
	var r *spec.CallToolResult
	wait := callAsync(t, func() (err error) { r, err = c.CallTool(context.Background(), "job", nil); return err })
	s.expect(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"job"}}`)
	s.say(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":1000,"pollIntervalMs":1}}`)
	s.expect(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{` + meta + `,"taskId":"t1"}}`)
	s.say(`{"jsonrpc":"2.0","id":3,"result":` + task("input_required", `,"inputRequests":{"ok":{"method":"elicitation/create","params":{"message":"?"}}}`) + `}`)
	s.expect(`{"jsonrpc":"2.0","id":4,"method":"tasks/update","params":{` + meta + `,"inputResponses":{"ok":{"action":"accept"}},"taskId":"t1"}}`)
	s.say(`{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete"}}`)
	s.expect(`{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{` + meta + `,"taskId":"t1"}}`)
	s.say(`{"jsonrpc":"2.0","id":5,"result":` + task("completed", `,"result":{"content":[{"type":"text","text":"done"}]}`) + `}`)
	require.NoError(t, wait())
	assert.Equal(t, "done", *r.Content[0].Text)

	ctx, cancel := context.WithCancel(context.Background())
	wait = callAsync(t, func() error { _, err := c.CallTool(ctx, "job", nil); return err })
	s.expect(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{` + meta + `,"name":"job"}}`)
	s.say(`{"jsonrpc":"2.0","id":6,"result":{"resultType":"task","taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":1000,"pollIntervalMs":1}}`)
	s.expect(`{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{` + meta + `,"taskId":"t1"}}`)
	cancel() // while polling: the poll is abandoned, and the task cancelled
	s.expect(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"context canceled"}}`)
	s.expect(`{"jsonrpc":"2.0","id":8,"method":"tasks/cancel","params":{` + meta + `,"taskId":"t1"}}`)
	s.say(`{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete"}}`)
	assert.ErrorIs(t, wait(), context.Canceled)

	wait = callAsync(t, func() error { _, err := c.CallTool(context.Background(), "job", nil); return err })
	s.expect(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{` + meta + `,"name":"job"}}`)
	s.say(`{"jsonrpc":"2.0","id":9,"result":` + strings.Replace(task("failed", `,"error":{"code":-32603,"message":"boom"}`), `"complete"`, `"task"`, 1) + `}`)
	assert.ErrorContains(t, wait(), "boom")
}
