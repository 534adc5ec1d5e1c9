package host

import (
	"strconv"
	"testing"
)

// benchHost answers every call inside on_call, as the C example does, and
// records nothing.
type benchHost struct {
	b      *testing.B
	result []byte
	closed chan struct{}
}

func (h *benchHost) OnCall(call uint64, _ uint32, _ uint64, _ []byte) {
	if err := Complete(call, h.result); err != nil {
		h.b.Error(err)
	}
}
func (h *benchHost) OnCancel(uint64)   {}
func (h *benchHost) OnLog(int, []byte) {}
func (h *benchHost) OnClosed()         { close(h.closed) }

// signal is a session's Sender for the benchmark: it only says a message
// was sent.
type signal chan struct{}

func (s signal) Send([]byte) { s <- struct{}{} }

// BenchmarkToolCallInline is one tools/call echo through a host-owned
// session: the Go half of the C ABI's cost per call (without the cgo
// transitions).
func BenchmarkToolCallInline(b *testing.B) {
	for _, size := range []int{16, 65536} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			text := make([]byte, size)
			for i := range text {
				text[i] = 'a' + byte(i%26)
			}
			h := &benchHost{b: b, result: []byte(`{"content":[{"type":"text","text":"` + string(text) + `"}]}`),
				closed: make(chan struct{})}
			srv, err := NewServer(nil, h)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = Free(srv); <-h.closed }()
			if err := AddTool(srv, []byte(echoTool), 7); err != nil {
				b.Fatal(err)
			}
			sent := make(signal, 1)
			ss, err := OpenSession(srv, nil, sent)
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range []string{initialize, initialized} {
				if err := Dispatch(ss, []byte(m)); err != nil {
					b.Fatal(err)
				}
			}
			<-sent // the initialize result
			msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + string(text) + `"}}}`)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := Dispatch(ss, msg); err != nil {
					b.Fatal(err)
				}
				<-sent
			}
		})
	}
}

// quietClientHost is a client host that only hands each response on.
type quietClientHost struct{ responses chan Code }

func (h quietClientHost) OnResponse(_ uint64, rc Code, _ []byte) { h.responses <- rc }
func (quietClientHost) OnNotification(string, []byte)            {}
func (quietClientHost) OnProgress(uint64, []byte)                {}
func (quietClientHost) OnQuestion(uint64, string, []byte)        {}
func (quietClientHost) OnQuestionCancel(uint64)                  {}
func (quietClientHost) OnClosed(Code, string)                    {}
func (quietClientHost) Answers() bool                            { return false }

// BenchmarkClientCallEcho is one tools/call of the C ABI's client to an
// in-process echo server: the Go half of a binding's client cost per
// call, both ends in this process.
func BenchmarkClientCallEcho(b *testing.B) {
	for _, size := range []int{16, 65536} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			text := make([]byte, size)
			for i := range text {
				text[i] = 'a' + byte(i%26)
			}
			_, s := toolServer(b, func(call uint64, _ uint32, _ uint64, _ []byte) {
				_ = CompleteText(call, text)
			})
			h := quietClientHost{responses: make(chan Code, 1)}
			c, err := Connect([]byte(`{"server":`+strconv.FormatUint(s, 10)+`}`), h, 0)
			if err != nil {
				b.Fatal(err)
			}
			if rc := <-h.responses; rc != OK {
				b.Fatal(rc)
			}
			params := []byte(`{"name":"echo","arguments":{"text":"` + string(text) + `"}}`)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := Request(c, "tools/call", params, nil, uint64(i+1)); err != nil {
					b.Fatal(err)
				}
				if rc := <-h.responses; rc != OK {
					b.Fatal(rc)
				}
			}
			b.StopTimer()
			_ = CloseClient(c)
		})
	}
}
