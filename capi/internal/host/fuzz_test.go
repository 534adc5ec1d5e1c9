package host

import (
	"sync"
	"testing"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

// quietHost is a host that ignores every callback.
type quietHost struct{}

func (quietHost) OnCall(uint64, uint32, uint64, []byte) {}
func (quietHost) OnCancel(uint64)                       {}
func (quietHost) OnLog(int, []byte)                     {}
func (quietHost) OnClosed()                             {}

var fuzzServer = sync.OnceValue(func() uint64 {
	h, err := NewServer(nil, quietHost{})
	if err != nil {
		panic(err)
	}
	return h
})

// FuzzHostJSON feeds arbitrary bytes to every JSON a host hands the
// library: server options, catalogue definitions, a completer's ref and
// each kind of result. Nothing may panic, whatever is refused is EInvalid,
// and a result that is accepted must encode again.
func FuzzHostJSON(f *testing.F) {
	for _, seed := range []string{
		`{"name":"s","version":"1","limits":{"max_concurrency":4}}`,
		echoTool,
		`{"uri":"file:///a","name":"a","mimeType":"text/plain"}`,
		`{"uriTemplate":"file:///x/{id}","name":"x"}`,
		`{"name":"p","arguments":[{"name":"who","required":true}]}`,
		`{"type":"ref/prompt","name":"p"}`,
		`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1},"isError":false}`,
		`{"contents":[{"uri":"file:///a","blob":"AAAA"}]}`,
		`{"messages":[{"role":"user","content":{"type":"image","data":"AA","mimeType":"image/png"}}]}`,
		`{"completion":{"values":["a"],"total":1,"hasMore":false}}`,
		`{"inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1e400}}},"name":"t"}`,
		`{"content":[{"type":"resource","resource":{"uri":"x","text":"\ud800"}}]}`,
		`[]`, `{`, `{"name":1}`, "\xff",
	} {
		f.Add([]byte(seed))
	}
	var tag uint64
	f.Fuzz(func(t *testing.T, data []byte) {
		srv := fuzzServer()
		if h, err := NewServer(data, quietHost{}); err == nil {
			_ = Free(h)
		} else if CodeOf(err) != EInvalid {
			t.Fatalf("options refused with %d: %v", CodeOf(err), err)
		}
		for _, add := range []func(uint64, []byte, uint64) error{AddTool, AddResource, AddResourceTemplate, AddPrompt, SetCompleter} {
			tag++
			if err := add(srv, data, tag); err == nil {
				if err := Remove(srv, tag); err != nil {
					t.Fatalf("remove of an added definition: %v", err)
				}
			} else if CodeOf(err) != EInvalid {
				t.Fatalf("definition refused with %d: %v", CodeOf(err), err)
			}
		}
		for _, kind := range []uint32{KindTool, KindResource, KindPrompt, KindCompletion} {
			res, err := decodeResult(kind, append([]byte(nil), data...))
			if err != nil {
				if CodeOf(err) != EInvalid {
					t.Fatalf("result refused with %d: %v", CodeOf(err), err)
				}
				continue
			}
			if _, err := jsonrpc.Marshal(res); err != nil {
				t.Fatalf("an accepted result does not encode: %v", err)
			}
		}
	})
}
