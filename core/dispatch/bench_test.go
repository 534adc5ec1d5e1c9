package dispatch

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/transport"
)

// signal is a sink that hands each message's length to the benchmark.
type signal chan int

func (s signal) Send(msg []byte) error { s <- len(msg); return nil }

// BenchmarkCallEcho measures one tools/call echo at a time through a
// Session (admission, method table, executor, encoding), without a
// transport: each Deliver waits for its answer. Every call has its own id.
func BenchmarkCallEcho(b *testing.B) {
	for _, era := range []struct {
		name, meta string
		init       bool
	}{{"legacy", "", true}, {"modern", modernMeta + ",", false}} {
		for _, size := range []int{16, 64 << 10} {
			b.Run(era.name+"/"+strconv.Itoa(size), func(b *testing.B) {
				f := newFixture(b, executor.Options{})
				s, _ := f.session(transport.Info{Name: "bench"})
				sink := make(signal, 1)
				if era.init {
					s.Deliver(context.Background(), []byte(initMsg), sink)
					<-sink
				}
				tail := `,"method":"tools/call","params":{` + era.meta + `"name":"echo","arguments":{"text":"` + strings.Repeat("t", size) + `"}}}`
				var frame []byte
				b.ReportAllocs()
				b.SetBytes(int64(size))
				b.ResetTimer()
				for i := range b.N {
					frame = append(append(frame[:0], `{"jsonrpc":"2.0","id":`...), strconv.Itoa(i+1)...)
					frame = append(frame, tail...)
					s.Deliver(context.Background(), frame, sink)
					if n := <-sink; n < size {
						b.Fatalf("answer of %d bytes", n)
					}
				}
			})
		}
	}
}

// inlineSink is a synchronous Inliner sink, as stdio's reader is: the
// handler runs inside Deliver and the answer is sent before it returns.
type inlineSink struct{ n int }

func (s *inlineSink) Send(msg []byte) error { s.n = len(msg); return nil }
func (*inlineSink) CopiesMessages()         {}
func (*inlineSink) Inline(bool)             {}

// BenchmarkCallEchoInline is BenchmarkCallEcho delivered the way stdio's
// reader delivers: the handler runs inline, on the benchmark's goroutine,
// so the figure is the core's own work per call, without goroutine
// switches.
func BenchmarkCallEchoInline(b *testing.B) {
	f := newFixture(b, executor.Options{})
	sink := &inlineSink{}
	s, _ := f.session(transport.Info{Name: "bench"})
	s.Deliver(context.Background(), []byte(initMsg), sink)
	const tail = `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"0123456789abcdef"}}}`
	var frame []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		frame = append(append(frame[:0], `{"jsonrpc":"2.0","id":`...), strconv.Itoa(i+1)...)
		frame = append(frame, tail...)
		s.Deliver(context.Background(), bytes.Clone(frame), sink)
		if sink.n < 16 {
			b.Fatalf("answer of %d bytes", sink.n)
		}
	}
}
