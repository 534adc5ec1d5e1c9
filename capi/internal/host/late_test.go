package host

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdioFixture serves f's server on pipes; calls go to onCall's host.
type stdioFixture struct {
	*fixture
	in    *os.File
	lines *bufio.Scanner
}

func newStdioFixture(t *testing.T, options string, onCall func(call uint64, kind uint32, tag uint64, params []byte)) *stdioFixture {
	t.Helper()
	f := newFixture(t, options, onCall)
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { inW.Close(); inR.Close(); outR.Close(); outW.Close() })
	require.NoError(t, ServeStdio(f.server, fmt.Appendf(nil, `{"in_fd":%d,"out_fd":%d}`, inR.Fd(), outW.Fd())))
	sf := &stdioFixture{fixture: f, in: inW, lines: bufio.NewScanner(outR)}
	sf.send(t, initialize)
	sf.next(t)
	return sf
}

func (f *stdioFixture) send(t *testing.T, line string) {
	t.Helper()
	_, err := fmt.Fprintln(f.in, line)
	require.NoError(t, err)
}

func (f *stdioFixture) next(t *testing.T) string {
	t.Helper()
	require.True(t, f.lines.Scan(), "an answer on stdout")
	return f.lines.Text()
}

// On stdio a call the host does not answer inside on_call is answered by
// the thread that completes it, however it completes (a result, a text, a
// failure, a completion's result); nothing waits for it meanwhile.
func TestStdioAnswersFromTheHostsThread(t *testing.T) {
	calls := make(chan uint64, 8)
	f := newStdioFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) { calls <- call })
	require.NoError(t, AddPrompt(f.server, []byte(`{"name":"p","arguments":[{"name":"who"}]}`), 2))
	require.NoError(t, SetCompleter(f.server, []byte(`{"type":"ref/prompt","name":"p"}`), 3))
	f.next(t) // the prompt's list_changed
	tests := []struct {
		name, send string
		answer     func(call uint64) error
		want       string
	}{
		{"result", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
			func(c uint64) error { return Complete(c, []byte(`{"content":[{"type":"text","text":"one"}]}`)) },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"one"}]}}`},
		{"text", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
			func(c uint64) error { return CompleteText(c, []byte("two")) },
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"two"}]}}`},
		{"failure", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`,
			func(c uint64) error { return Fail(c, 0, "broken", nil) },
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"broken"}],"isError":true}}`},
		{"completion", `{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"who","value":"m"}}}`,
			func(c uint64) error { return Complete(c, []byte(`{"completion":{"values":["me","mine"]}}`)) },
			`{"jsonrpc":"2.0","id":4,"result":{"completion":{"values":["me","mine"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.send(t, tt.send)
			var call uint64
			select {
			case call = <-calls:
			case <-timeout():
				require.FailNow(t, "no on_call")
			}
			done := make(chan error, 1)
			go func() { done <- tt.answer(call) }()
			require.NoError(t, <-done)
			assert.JSONEq(t, tt.want, f.next(t))
			assert.Equal(t, EUnknownCall, CodeOf(CompleteText(call, []byte("again"))), "answered once")
		})
	}
}

// A call waiting for the host on stdio still ends by its deadline or the
// client's cancel: the host gets on_cancel, its late answer is refused
// and nothing more is written for the call.
func TestStdioLateCallEnds(t *testing.T) {
	tests := []struct {
		name, options string
		end           string // sent after on_call
		want          string // "" for no answer
	}{
		{"deadline", `{"request_timeout_ms":30}`, "",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"request timed out after 30ms","data":{"reason":"timeout"}}}`},
		{"cancel", "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := make(chan uint64, 2)
			f := newStdioFixture(t, tt.options, func(call uint64, _ uint32, _ uint64, params []byte) {
				if string(params) == `{"name":"echo","arguments":{"text":"now"},"revision":"2025-06-18"}` {
					_ = CompleteText(call, []byte("now"))
					return
				}
				calls <- call
			})
			f.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"late"}}}`)
			call := <-calls
			if tt.end != "" {
				f.send(t, tt.end)
			}
			waitFor(t, "on_cancel", func() bool { return f.host.count("cancel") == 1 })
			assert.Equal(t, EUnknownCall, CodeOf(CompleteText(call, []byte("late"))))
			if tt.want != "" {
				assert.JSONEq(t, tt.want, f.next(t))
			}
			// The next line is the next call's answer: nothing came for the
			// ended one.
			f.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"now"}}}`)
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"now"}]}}`, f.next(t))
			assert.Zero(t, CurrentStats().Calls)
		})
	}
}

// The end of stdin cancels a call waiting for the host on stdio: on_cancel
// comes, the late answer is refused and the server goes idle.
func TestStdioEOFCancelsLateCall(t *testing.T) {
	calls := make(chan uint64, 1)
	f := newStdioFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) { calls <- call })
	f.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"late"}}}`)
	call := <-calls
	require.NoError(t, f.in.Close())
	waitFor(t, "on_cancel", func() bool { return f.host.count("cancel") == 1 })
	assert.Equal(t, EUnknownCall, CodeOf(CompleteText(call, []byte("late"))))
	require.NoError(t, Wait(f.server, -1))
	assert.Zero(t, CurrentStats().Calls)
}
