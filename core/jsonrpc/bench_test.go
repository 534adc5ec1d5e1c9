package jsonrpc

import "testing"

// toolsCall is a typical tools/call request (about 150 bytes).
var toolsCall = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris","units":"metric"},"_meta":{"progressToken":"p-42"}}}`)

func BenchmarkDecodeToolsCall(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(toolsCall)))
	for b.Loop() {
		msg, err := Decode(toolsCall, Limits{})
		if err != nil || msg.Kind != KindRequest {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeStringID(b *testing.B) {
	in := []byte(`{"jsonrpc":"2.0","id":"req-7f3a","method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris","units":"metric"}}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Decode(in, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendResponse(b *testing.B) {
	result := []byte(`{"content":[{"type":"text","text":"Paris: 18°C, light rain"}],"isError":false}`)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		buf = AppendResponse(buf[:0], IntID(42), result)
	}
}

func BenchmarkAppendASCII(b *testing.B) {
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	b.SetBytes(int64(len(toolsCall)))
	for b.Loop() {
		buf = AppendASCII(buf[:0], toolsCall)
	}
}
