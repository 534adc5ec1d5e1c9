package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// lateInbox is an inbox that takes late answers (transport.Deferrable).
type lateInbox struct{ *inbox }

func (lateInbox) TakesLateAnswers() {}

var _ transport.Deferrable = lateInbox{}

// deferred is one handler invocation that asked to answer later.
type deferred struct {
	ctx   context.Context
	later router.Later
	ok    bool
}

// deferFixture adds handlers that defer their answer and hand it to the
// test: a tool (with an output schema), a resource, a prompt.
func deferFixture(t *testing.T, opts executor.Options) (*fixture, chan deferred) {
	f := newFixture(t, opts)
	got := make(chan deferred, 16)
	// answerNow answers inside the handler, after deferring: the answer
	// then races the handler's return.
	tool := func(ctx context.Context, req *router.Request, args json.RawMessage) (*spec.CallToolResult, error) {
		l, ok := req.Defer()
		if !ok {
			return &spec.CallToolResult{StructuredContent: map[string]any{"n": 0}}, nil
		}
		if string(args) == `{"now":true}` {
			l.Answer(&spec.CallToolResult{StructuredContent: map[string]any{"n": 1}}, nil)
			return nil, router.ErrDeferred
		}
		got <- deferred{ctx, l, ok}
		return nil, router.ErrDeferred
	}
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	in := json.RawMessage(`{"type":"object","properties":{"now":{"type":"boolean"}}}`)
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "later", InputSchema: in, OutputSchema: out}, tool))
	require.NoError(t, f.router.AddTool(spec.Tool{Name: "liar"},
		func(context.Context, *router.Request, json.RawMessage) (*spec.CallToolResult, error) {
			return nil, router.ErrDeferred // without Defer
		}))
	require.NoError(t, f.router.AddResource(spec.Resource{URI: "test://later", Name: "later"},
		func(ctx context.Context, req *router.Request, _ string, _ map[string]string) (*spec.ReadResourceResult, error) {
			l, ok := req.Defer()
			got <- deferred{ctx, l, ok}
			return nil, router.ErrDeferred
		}))
	require.NoError(t, f.router.AddPrompt(spec.Prompt{Name: "later"},
		func(ctx context.Context, req *router.Request, _ map[string]string) (*spec.GetPromptResult, error) {
			l, ok := req.Defer()
			got <- deferred{ctx, l, ok}
			return nil, router.ErrDeferred
		}))
	return f, got
}

func nextDeferred(t *testing.T, got <-chan deferred) deferred {
	t.Helper()
	select {
	case d := <-got:
		require.True(t, d.ok, "the request took a late answer")
		return d
	case <-time.After(5 * time.Second):
		require.FailNow(t, "the handler did not run")
		return deferred{}
	}
}

// A deferred answer given from another goroutine is shaped as a returned
// one would be (the output schema checked, defaults filled in, errors
// turned into results or JSON-RPC errors) and sent once.
func TestDeferredAnswers(t *testing.T) {
	tests := []struct {
		name   string
		req    string
		answer func(l router.Later)
		want   string
	}{
		{"tool result checked against its output schema",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later"}}`,
			func(l router.Later) {
				l.Answer(&spec.CallToolResult{StructuredContent: map[string]any{"n": 7}}, nil)
			},
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":7}"}],"structuredContent":{"n":7}}}`},
		{"tool result breaking its output schema",
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"later"}}`,
			func(l router.Later) { l.Answer(&spec.CallToolResult{StructuredContent: map[string]any{"n": "x"}}, nil) },
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"output does not match outputSchema: argument \"/n\": must be integer (type)"}],"isError":true}}`},
		{"tool error is an isError result",
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"later"}}`,
			func(l router.Later) { l.Answer(nil, errors.New("disk full")) },
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"disk full"}],"isError":true}}`},
		{"resource without contents",
			`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://later"}}`,
			func(l router.Later) { l.Answer(nil, nil) },
			`{"jsonrpc":"2.0","id":4,"result":{"contents":[]}}`},
		{"prompt failing",
			`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"later"}}`,
			func(l router.Later) { l.Answer(nil, errors.New("no template")) },
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"no template"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, got := deferFixture(t, executor.Options{})
			s, in := initialized(t, f)
			late := lateInbox{in}
			s.deliverString(tt.req, late)
			d := nextDeferred(t, got)
			in.none(t, 20*time.Millisecond)
			go tt.answer(d.later)
			assert.JSONEq(t, tt.want, in.next(t))
			in.none(t, 20*time.Millisecond)
		})
	}
}

// An answer given inside the handler, before it returns ErrDeferred, is
// sent once.
func TestDeferredAnsweredBeforeReturn(t *testing.T) {
	f, _ := deferFixture(t, executor.Options{MaxConcurrency: 1})
	s, in := initialized(t, f)
	for id := range 3 { // the slot is free again each time
		s.deliverString(`{"jsonrpc":"2.0","id":`+string(rune('1'+id))+`,"method":"tools/call","params":{"name":"later","arguments":{"now":true}}}`, lateInbox{in})
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":`+string(rune('1'+id))+`,"result":{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}}`, in.next(t))
	}
	in.none(t, 20*time.Millisecond)
}

// A reply that does not take late answers does not let the handler defer;
// a handler returning ErrDeferred without asking fails its call.
func TestDeferRefused(t *testing.T) {
	f, _ := deferFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later"}}`, in)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":0}"}],"structuredContent":{"n":0}}}`, in.next(t))
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"liar"}}`, lateInbox{in})
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"polymcp: the handler deferred its answer without asking the request first"}}`, in.next(t))
}

// A deferred call keeps its concurrency slot until answered.
func TestDeferredCallHoldsItsSlot(t *testing.T) {
	f, got := deferFixture(t, executor.Options{MaxConcurrency: 1, MaxQueue: -1})
	s, in := initialized(t, f)
	late := lateInbox{in}
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later"}}`, late)
	d := nextDeferred(t, got)
	s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, late)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"server overloaded: too many requests in flight; retry later","data":{"reason":"overloaded"}}}`, in.next(t))
	d.later.Answer(&spec.CallToolResult{StructuredContent: map[string]any{"n": 1}}, nil)
	assert.Contains(t, in.next(t), `"id":1`)
	// The slot is given up just after the answer is sent, as by a handler
	// returning.
	assert.Eventually(t, func() bool { return f.exec.Stats() == executor.Stats{} }, 5*time.Second, time.Millisecond)
	s.deliverString(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"y"}}}`, late)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"y"}]}}`, in.next(t))
}

// A deferred call ended by the client's cancel, or answered at its
// deadline, has its context ended at once; the late answer is dropped
// (never a second message, nor one for the cancelled call) and frees the
// slot.
func TestDeferredCallEnds(t *testing.T) {
	tests := []struct {
		name  string
		opts  executor.Options
		end   func(s *Session)
		want  string // "" : nothing is sent
		cause error  // what OnEnd is told
	}{
		{"cancelled", executor.Options{MaxConcurrency: 1}, func(s *Session) {
			s.deliverString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, newInbox())
		}, "", errCancelledByClient},
		{"timeout", executor.Options{MaxConcurrency: 1, Timeout: 30 * time.Millisecond}, func(*Session) {},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out after 30ms","data":{"reason":"timeout"}}}`,
			executor.ErrTimeout},
		{"session closed", executor.Options{MaxConcurrency: 1}, func(s *Session) { s.Close() }, "", errSessionClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, got := deferFixture(t, tt.opts)
			s, in := initialized(t, f)
			late := lateInbox{in}
			s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later"}}`, late)
			d := nextDeferred(t, got)
			told := make(chan error, 2)
			d.later.OnEnd(func(cause error) { told <- cause })
			tt.end(s)
			select {
			case <-d.ctx.Done():
			case <-time.After(5 * time.Second):
				require.FailNow(t, "the deferred call's context did not end")
			}
			select {
			case cause := <-told:
				assert.ErrorIs(t, cause, tt.cause)
			case <-time.After(5 * time.Second):
				require.FailNow(t, "OnEnd was not told")
			}
			late2 := make(chan error, 1)
			d.later.OnEnd(func(cause error) { late2 <- cause })
			assert.ErrorIs(t, <-late2, tt.cause, "OnEnd after the end is told at once")
			if tt.want != "" {
				assert.JSONEq(t, tt.want, in.next(t))
			}
			d.later.Answer(&spec.CallToolResult{StructuredContent: map[string]any{"n": 1}}, nil)
			in.none(t, 30*time.Millisecond)
			assert.Eventually(t, func() bool { return f.exec.Stats() == executor.Stats{} }, 5*time.Second, time.Millisecond)
			if tt.name == "session closed" {
				return
			}
			s.deliverString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, late)
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}`, in.next(t))
			assert.Empty(t, told, "told once")
		})
	}
}

// An answered deferred call's OnEnd is never told, not even when its
// session closes afterwards.
func TestDeferredOnEndAfterAnswer(t *testing.T) {
	f, got := deferFixture(t, executor.Options{})
	s, in := initialized(t, f)
	s.deliverString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later"}}`, lateInbox{in})
	d := nextDeferred(t, got)
	told := make(chan error, 1)
	d.later.OnEnd(func(cause error) { told <- cause })
	d.later.Answer(&spec.CallToolResult{StructuredContent: map[string]any{"n": 1}}, nil)
	in.next(t)
	s.Close()
	d.later.OnEnd(func(cause error) { told <- cause })
	select {
	case cause := <-told:
		t.Fatalf("OnEnd told %v after the answer", cause)
	case <-time.After(30 * time.Millisecond):
	}
}
