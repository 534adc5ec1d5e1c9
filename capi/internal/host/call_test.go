package host

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func complete(t *testing.T, call uint64, result string) {
	t.Helper()
	require.NoError(t, Complete(call, []byte(result)))
}

func TestCallCompletedInline(t *testing.T) {
	f := newFixture(t, "", func(call uint64, kind uint32, tag uint64, params []byte) {
		require.NoError(t, Complete(call, []byte(`{"content":[{"type":"text","text":"hi"}]}`)))
	})
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"k":"v"}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`, f.in.next(t))
	calls := f.host.snapshot()
	require.Equal(t, "call", calls[0].name)
	assert.Equal(t, KindTool, calls[0].kind)
	assert.Equal(t, uint64(7), calls[0].tag)
	assert.JSONEq(t, `{"name":"echo","arguments":{"text":"hi"},"revision":"2025-06-18","_meta":{"k":"v"}}`, calls[0].data)
}

func TestCallAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(call uint64) error
		want   string
	}{
		{"result", func(c uint64) error { return Complete(c, []byte(` {"content":[],"isError":true} `)) },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`},
		{"text", func(c uint64) error { return CompleteText(c, []byte("tab\t \"q\" \\ é ✓ \x00 end")) },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"tab\t \"q\" \\ \u00e9 \u2713 \u0000 end"}]}}`},
		{"empty text", func(c uint64) error { return CompleteText(c, nil) },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":""}]}}`},
		{"tool failure", func(c uint64) error { return Fail(c, 0, "disk full", nil) },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"disk full"}],"isError":true}}`},
		{"protocol error", func(c uint64) error { return Fail(c, -32602, "no such file", nil) },
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no such file"}}`},
		{"protocol error with data", func(c uint64) error {
			return Fail(c, -32602, "outside the root", []byte(` {"field":"path","roots":["/srv"]} `))
		}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"outside the root","data":{"field":"path","roots":["/srv"]}}}`},
		{"scalar data", func(c uint64) error { return Fail(c, -32000, "busy", []byte(`"retry later"`)) },
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"busy","data":"retry later"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := make(chan uint64, 1)
			f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) { calls <- call })
			f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
			require.NoError(t, tc.answer(<-calls)) // from this goroutine, not the handler's
			assert.JSONEq(t, tc.want, f.in.next(t))
		})
	}
}

func TestCallErrors(t *testing.T) {
	calls := make(chan uint64, 2)
	f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) { calls <- call })
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	c := <-calls

	for _, bad := range []string{``, `[]`, `{"content":`, `{"content":"no"}`, `nul`} {
		assert.Equal(t, EInvalid, CodeOf(Complete(c, []byte(bad))), "result %q", bad)
	}
	for _, bad := range []string{"\xff", "ok \xed\xa0\x80 surrogate", "cut \xe2\x9c"} {
		assert.Equal(t, EInvalid, CodeOf(CompleteText(c, []byte(bad))), "text %q", bad)
	}
	assert.Equal(t, EInvalid, CodeOf(Progress(c, []byte(`{"total":3}`))))
	for _, bad := range []string{`{"a":`, `nul`, `[1,]`} {
		assert.Equal(t, EInvalid, CodeOf(Fail(c, -32602, "bad", []byte(bad))), "data %q", bad)
	}
	assert.Equal(t, EInvalid, CodeOf(Fail(c, 0, "a tool failure is a result", []byte(`{}`))))
	assert.Equal(t, EBadHandle, CodeOf(Complete(0, []byte(`{}`))))
	assert.Equal(t, EBadHandle, CodeOf(Complete(f.server, []byte(`{}`))), "a server handle is not a call")
	assert.Equal(t, EBadHandle, CodeOf(Complete(uint64(kindCall)<<kindShift|seqMask, []byte(`{}`))), "never issued")

	complete(t, c, `{"content":[]}`) // still pending after the bad attempts
	f.in.next(t)
	assert.Equal(t, EUnknownCall, CodeOf(Complete(c, []byte(`{"content":[]}`))), "twice")
	assert.Equal(t, EUnknownCall, CodeOf(Fail(c, 0, "late", nil)))
	assert.Equal(t, EUnknownCall, CodeOf(Progress(c, []byte(`{"progress":1}`))))
	_, err := Info(c)
	assert.Equal(t, EUnknownCall, CodeOf(err))

	// Completing after the client cancelled.
	f.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	c = <-calls
	f.call(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	waitFor(t, "on_cancel", func() bool { return f.host.count("cancel") == 1 })
	assert.Equal(t, EUnknownCall, CodeOf(Complete(c, []byte(`{"content":[]}`))))
}

func TestCallInfoAndProgress(t *testing.T) {
	calls := make(chan uint64, 1)
	f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) { calls <- call })
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":"p"}}}`)
	c := <-calls
	info, err := Info(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"method":"tools/call","revision":"2025-06-18","_meta":{"progressToken":"p"},"clientInfo":{"name":"t","version":"1"},"clientCapabilities":{}}`, string(info))
	require.NoError(t, Progress(c, []byte(`{"progress":1,"total":2,"message":"half"}`)))
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2,"message":"half"}}`, f.in.next(t))
	assert.Equal(t, EInvalid, CodeOf(Progress(c, []byte(`{"progress":1}`))), "progress must increase")
	complete(t, c, `{"content":[]}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, f.in.next(t))
}

// TestManyHostThreads answers 10,000 calls from 8 goroutines standing in
// for host threads, each call answered exactly once.
func TestManyHostThreads(t *testing.T) {
	const n, workers = 10000, 8
	work := make(chan uint64, n)
	f := newFixture(t, `{"max_queue":20000,"max_concurrency":64}`, func(call uint64, _ uint32, _ uint64, _ []byte) {
		work <- call
	})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range work {
				if err := Complete(c, []byte(`{"content":[]}`)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := 1; i <= n; i++ {
		f.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, i))
	}
	seen := map[string]bool{}
	for range n {
		m := f.in.next(t)
		require.True(t, strings.Contains(m, `"result":{"content":[]}`), m)
		require.False(t, seen[m], "answered twice: %s", m)
		seen[m] = true
	}
	close(work)
	wg.Wait()
	assert.Equal(t, n, f.host.count("call"))
}

// TestCompleteRacesCancel answers each call from a host thread at the
// moment the client cancels it. Each call has exactly one outcome: the
// host's answer is taken (and on_cancel never comes) or the call is
// cancelled (and the answer is refused with EUnknownCall); no handler is
// left waiting.
func TestCompleteRacesCancel(t *testing.T) {
	const n = 2000
	type pending struct {
		call uint64
		id   string // the request's, which its text argument carries
	}
	work := make(chan pending, n)
	f := newFixture(t, `{"max_queue":4000,"max_concurrency":64}`, func(call uint64, _ uint32, _ uint64, params []byte) {
		var p struct {
			Arguments struct{ Text string } `json:"arguments"`
		}
		require.NoError(t, json.Unmarshal(params, &p))
		work <- pending{call, p.Arguments.Text}
	})
	var taken, refused atomic.Int64
	var wg, cancels sync.WaitGroup
	wg.Go(func() {
		for p := range work {
			cancel := func() {
				if err := Dispatch(f.session, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+p.id+`}}`)); err != nil {
					t.Error(err)
				}
			}
			// Odd calls are cancelled first, the handler waking as the
			// answer comes; even ones are answered as the cancel arrives.
			if p.id[len(p.id)-1]%2 == 1 {
				cancel()
			} else {
				cancels.Go(cancel)
			}
			switch err := Complete(p.call, []byte(`{"content":[]}`)); {
			case err == nil:
				taken.Add(1)
			case CodeOf(err) == EUnknownCall:
				refused.Add(1)
			default:
				t.Error(err)
			}
		}
	})
	for i := 1; i <= n; i++ {
		f.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%d"}}}`, i, i))
	}
	waitFor(t, "every call answered or cancelled", func() bool { return taken.Load()+refused.Load() == n })
	close(work)
	wg.Wait()
	cancels.Wait()
	waitFor(t, "no live calls", func() bool { return CurrentStats().Calls == 0 })
	assert.Equal(t, int(refused.Load()), f.host.count("cancel"), "on_cancel exactly for the calls whose answer was refused")
	t.Logf("%d answers taken, %d refused after a cancel", taken.Load(), refused.Load())
}
