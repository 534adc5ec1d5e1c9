package host

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/internal/gcdefault"
)

func TestNewServerOptions(t *testing.T) {
	for _, tc := range []struct {
		options string
		code    Code
	}{
		{``, OK},
		{`{"name":"n","version":"1","title":"T","instructions":"i","revisions":["2025-06-18","2026-07-28"],"max_concurrency":4,"max_queue":-1,"request_timeout_ms":-1,"page_size":10}`, OK},
		{`{"nmae":"typo"}`, EInvalid},
		{`{"name":1}`, EInvalid},
		{`{} {}`, EInvalid},
		{`{`, EInvalid},
		{`{"max_queue":-2}`, EInvalid},
		{`{"max_concurrency":-1}`, EInvalid},
		{`{"revisions":["1999-01-01"]}`, EInvalid},
	} {
		t.Run(tc.options, func(t *testing.T) {
			h := newFakeHost(nil)
			s, err := NewServer([]byte(tc.options), h)
			require.Equal(t, tc.code, CodeOf(err), "%v", err)
			if err == nil {
				require.NoError(t, Free(s))
				<-h.closed
			}
		})
	}
}

func TestServerHandles(t *testing.T) {
	h := newFakeHost(nil)
	s, err := NewServer(nil, h)
	require.NoError(t, err)
	require.NoError(t, Close(s))
	require.NoError(t, Close(s), "close is idempotent")
	require.NoError(t, Wait(s, -1))
	assert.Equal(t, EClosed, CodeOf(AddTool(s, []byte(echoTool), 1)))
	assert.Equal(t, EClosed, CodeOf(ServeStdio(s, nil)))
	_, err = OpenSession(s, nil, make(inbox, 1))
	assert.Equal(t, EClosed, CodeOf(err))
	require.NoError(t, Free(s))
	for name, err := range map[string]error{
		"double free":     Free(s),
		"close freed":     Close(s),
		"wait freed":      Wait(s, 0),
		"add to freed":    AddTool(s, []byte(echoTool), 1),
		"zero":            Close(0),
		"never issued":    Close(uint64(kindServer)<<kindShift | seqMask),
		"a call handle":   Close(uint64(kindCall)<<kindShift | 1),
		"session as serv": Remove(uint64(kindSession)<<kindShift|1, 1),
	} {
		assert.Equal(t, EBadHandle, CodeOf(err), name)
	}
	assert.Equal(t, []event{{name: "closed"}}, h.snapshot())
}

func TestCatalogueTags(t *testing.T) {
	f := newFixture(t, "", nil)
	s := f.server
	assert.Equal(t, EInvalid, CodeOf(AddTool(s, []byte(`{"name":"other"}`), 7)), "tag 7 names echo")
	assert.Equal(t, EInvalid, CodeOf(AddTool(s, []byte(`{"name":"bad name!"}`), 8)))
	assert.Equal(t, EInvalid, CodeOf(AddTool(s, []byte(`{"name":"x","inputSchema":{"type":"string"}}`), 8)))
	assert.Equal(t, EInvalid, CodeOf(AddTool(s, []byte(`["echo"]`), 8)))
	assert.Equal(t, EInvalid, CodeOf(AddResource(s, []byte(`{"uri":"no scheme","name":"r"}`), 8)))
	assert.Equal(t, EInvalid, CodeOf(AddResourceTemplate(s, []byte(`{"uriTemplate":"file:///{","name":"t"}`), 8)))
	assert.Equal(t, EInvalid, CodeOf(AddPrompt(s, []byte(`{"name":""}`), 8)))
	assert.Equal(t, EInvalid, CodeOf(SetCompleter(s, []byte(`{"type":"ref/prompt","name":"missing"}`), 8)))
	assert.Equal(t, EInvalid, CodeOf(Remove(s, 8)), "nothing has tag 8")

	require.NoError(t, AddTool(s, []byte(`{"name":"echo"}`), 9), "replacing echo moves it to tag 9")
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, f.in.next(t))
	assert.Equal(t, EInvalid, CodeOf(Remove(s, 7)), "tag 7 was dropped with the replaced tool")
	require.NoError(t, Remove(s, 9))
	assert.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, f.in.next(t))
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, f.in.next(t))

	assert.Equal(t, EInvalid, CodeOf(Notify(s, "notifications/tools/list_changed", nil)))
	assert.Equal(t, EInvalid, CodeOf(Notify(s, "notifications/resources/updated", []byte(`{}`))))
	assert.Equal(t, EInvalid, CodeOf(Notify(s, "notifications/message", []byte(`{}`))))
	require.NoError(t, Notify(s, "notifications/resources/updated", []byte(`{"uri":"file:///a"}`)))
}

func TestOtherKinds(t *testing.T) {
	var answers = map[uint32]string{
		KindResource:   `{"contents":[{"uri":"file:///x/1","text":"one"}]}`,
		KindPrompt:     `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`,
		KindCompletion: `{"completion":{"values":["a","b"]}}`,
	}
	f := newFixture(t, "", func(call uint64, kind uint32, _ uint64, _ []byte) {
		assert.Equal(t, EInvalid, CodeOf(CompleteText(call, []byte("text"))), "a text result is a tool's only")
		require.NoError(t, Complete(call, []byte(answers[kind])))
	})
	s := f.server
	require.NoError(t, AddResourceTemplate(s, []byte(`{"uriTemplate":"file:///x/{id}","name":"x"}`), 1))
	require.NoError(t, AddPrompt(s, []byte(`{"name":"p","arguments":[{"name":"who"}]}`), 2))
	require.NoError(t, SetCompleter(s, []byte(`{"type":"ref/prompt","name":"p"}`), 3))
	for range 2 {
		f.in.next(t) // list_changed of the template and the prompt
	}
	for _, tc := range []struct{ send, params, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///x/1"}}`,
			`{"uri":"file:///x/1","variables":{"id":"1"},"revision":"2025-06-18"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///x/1","text":"one"}]}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"p","arguments":{"who":"me"}}}`,
			`{"name":"p","arguments":{"who":"me"},"revision":"2025-06-18"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"who","value":"m"}}}`,
			`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"who","value":"m"},"revision":"2025-06-18"}`,
			`{"jsonrpc":"2.0","id":3,"result":{"completion":{"values":["a","b"]}}}`},
	} {
		f.call(t, tc.send)
		assert.JSONEq(t, tc.want, f.in.next(t))
		ev := f.host.snapshot()
		assert.JSONEq(t, tc.params, ev[len(ev)-1].data)
	}
}

func TestResourceNotFound(t *testing.T) {
	f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) {
		assert.Equal(t, EInvalid, CodeOf(Fail(call, -32002, "nothing there", []byte(`{"uri":"mine"}`))),
			"a not-found's data is the revision's")
		require.NoError(t, Fail(call, -32002, "nothing there", nil))
	})
	require.NoError(t, AddResourceTemplate(f.server, []byte(`{"uriTemplate":"file:///x/{id}","name":"x"}`), 1))
	f.in.next(t)
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///x/9"}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"resource not found: file:///x/9","data":{"uri":"file:///x/9"}}}`, f.in.next(t))
}

// A handler failure (code 0) of a prompt is -32603, which may carry data.
func TestPromptFailureWithData(t *testing.T) {
	f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) {
		require.NoError(t, Fail(call, 0, "template missing", []byte(`{"template":"greeting"}`)))
	})
	require.NoError(t, AddPrompt(f.server, []byte(`{"name":"p"}`), 2))
	f.in.next(t)
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p"}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"template missing","data":{"template":"greeting"}}}`, f.in.next(t))
}

// TestCloseWithCallsInFlight: every pending call gets on_cancel, then
// on_closed comes last and nothing follows (checked by the fixture).
func TestCloseWithCallsInFlight(t *testing.T) {
	const n = 20
	f := newFixture(t, "", nil)
	for i := 1; i <= n; i++ {
		f.call(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, i))
	}
	waitFor(t, "every on_call", func() bool { return f.host.count("call") == n })
	require.NoError(t, Close(f.server))
	require.NoError(t, Wait(f.server, -1))
	assert.Equal(t, n, f.host.count("cancel"))
	ev := f.host.snapshot()
	assert.Equal(t, "closed", ev[len(ev)-1].name)
	assert.Equal(t, EClosed, CodeOf(Dispatch(f.session, []byte(initialize))), "sessions close with the server")
	assert.Zero(t, CurrentStats().Calls)
}

func TestDeadline(t *testing.T) {
	f := newFixture(t, `{"request_timeout_ms":50}`, nil)
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out after 50ms","data":{"reason":"timeout"}}}`, f.in.next(t))
	waitFor(t, "on_cancel", func() bool { return f.host.count("cancel") == 1 })
}

func TestWaitTimeout(t *testing.T) {
	f := newFixture(t, "", nil)
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	defer inR.Close()
	out, err := os.Create(os.DevNull)
	require.NoError(t, err)
	defer out.Close()
	require.NoError(t, ServeStdio(f.server, fmt.Appendf(nil, `{"in_fd":%d,"out_fd":%d}`, inR.Fd(), out.Fd())))
	assert.Equal(t, ETimeout, CodeOf(Wait(f.server, 0)))
	assert.Equal(t, ETimeout, CodeOf(Wait(f.server, 10)))
	require.NoError(t, inW.Close()) // end of input
	require.NoError(t, Wait(f.server, -1))
}

// Over stdio, a call the host answers inside on_call is answered on the
// output. With "pump", nothing reads until the host pumps, and on_call
// comes inside PumpStdio, on the pumping goroutine.
func TestServeStdio(t *testing.T) {
	for _, pump := range []bool{false, true} {
		t.Run(fmt.Sprintf("pump=%v", pump), func(t *testing.T) {
			var onCallers sync.Map // goroutine ids on_call ran on
			f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) {
				onCallers.Store(goid(), true)
				require.NoError(t, Complete(call, []byte(`{"content":[{"type":"text","text":"pong"}]}`)))
			})
			inR, inW, err := os.Pipe()
			require.NoError(t, err)
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			defer inR.Close()
			defer outR.Close()
			defer outW.Close()
			assert.Equal(t, EIO, CodeOf(ServeStdio(f.server, []byte(`{"in_fd":9999}`))))
			assert.Equal(t, EInvalid, CodeOf(ServeStdio(f.server, []byte(`{"in_fd":-1}`))))
			_, err = PumpStdio(f.server)
			assert.Equal(t, EInvalid, CodeOf(err), "no stdio served with pump")
			require.NoError(t, ServeStdio(f.server, fmt.Appendf(nil, `{"in_fd":%d,"out_fd":%d,"pump":%v}`, inR.Fd(), outW.Fd(), pump)))
			fmt.Fprintln(inW, initialize)
			fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ping"}}}`)
			if pump {
				more, err := PumpStdio(f.server)
				require.NoError(t, err)
				assert.False(t, more, "two lines are less than a burst")
			}
			lines := bufio.NewScanner(outR)
			require.True(t, lines.Scan())
			require.True(t, lines.Scan())
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"pong"}]}}`, lines.Text())
			_, onPumper := onCallers.Load(goid())
			assert.Equal(t, pump, onPumper, "on_call ran inside PumpStdio")
			require.NoError(t, inW.Close())
			if pump {
				_, err = PumpStdio(f.server)
				assert.Equal(t, EClosed, CodeOf(err), "end of input")
			}
			require.NoError(t, Wait(f.server, -1))
		})
	}
}

// goid is the calling goroutine's id, from its stack header.
func goid() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	return strings.Fields(string(b))[1]
}

func TestSessionClose(t *testing.T) {
	f := newFixture(t, "", nil)
	f.call(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	waitFor(t, "on_call", func() bool { return f.host.count("call") == 1 })
	require.NoError(t, CloseSession(f.session))
	waitFor(t, "on_cancel", func() bool { return f.host.count("cancel") == 1 })
	assert.Equal(t, EBadHandle, CodeOf(CloseSession(f.session)), "double close")
	assert.Equal(t, EClosed, CodeOf(Dispatch(f.session, []byte(initialize))))
	_, err := OpenSession(f.server, []byte(`{"revison":"x"}`), make(inbox, 1))
	assert.Equal(t, EInvalid, CodeOf(err))
}

func TestConfigureCollector(t *testing.T) {
	_, gogc := os.LookupEnv("GOGC")
	if !gogc {
		assert.True(t, gcdefault.Scaling(), "the library's default scales with the live heap")
	}
	before := debug.SetGCPercent(-1)
	debug.SetGCPercent(before)
	limit := debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(before)
		debug.SetMemoryLimit(limit)
		if !gogc {
			gcdefault.ApplyScaled() // as init left it, for the next run (-count)
		}
	}()

	for _, bad := range []string{`{"gc_percent":0}`, `{"gc_percent":-2}`, `{"memory_limit_bytes":0}`, `{"gc_percent":"high"}`} {
		assert.Equal(t, EInvalid, CodeOf(Configure([]byte(bad))), bad)
	}
	require.NoError(t, Configure([]byte(`{"gc_percent":350,"memory_limit_bytes":536870912}`)))
	assert.False(t, gcdefault.Scaling(), "a host's setting ends the scaling")
	assert.Equal(t, 350, debug.SetGCPercent(350))
	assert.Equal(t, int64(536870912), debug.SetMemoryLimit(-1))
}

func TestConfigureAndLog(t *testing.T) {
	defer func() { require.NoError(t, Configure([]byte(`{"log_level":"warn"}`))) }()
	for _, bad := range []string{`{"log_level":"loud"}`, `{"max_procs":-1}`, `{"level":"info"}`} {
		assert.Equal(t, EInvalid, CodeOf(Configure([]byte(bad))), bad)
	}
	require.NoError(t, Configure([]byte(`{"log_level":"debug","max_procs":0}`)))
	f := newFixture(t, "", nil)
	s, err := lookupServer(f.server)
	require.NoError(t, err)
	s.log.With("a", 1).WithGroup("g").Info("hello world", "k", "two words")
	ev := f.host.snapshot()
	assert.Equal(t, event{name: "log", data: `0 hello world a=1 g.k="two words"`}, ev[len(ev)-1])
}
