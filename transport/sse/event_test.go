package sse

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendEvent(t *testing.T) {
	cases := []struct {
		name, id, event, data, want string
	}{
		{"message", "", "message", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"},
		{"id and data", "s-1", "", `{}`, "id: s-1\ndata: {}\n\n"},
		{"empty data", "", "", "", "data:\n\n"},
		{"LF in data", "", "", "a\nb", "data: a\ndata: b\n\n"},
		{"CR in data", "", "", "a\rb", "data: a\ndata: b\n\n"},
		{"CRLF in data", "", "", "a\r\nb", "data: a\ndata: b\n\n"},
		{"LF CR is two breaks", "", "", "a\n\rb", "data: a\ndata:\ndata: b\n\n"},
		{"forged event in data", "", "message", "x\n\nevent: endpoint\ndata: /evil",
			"event: message\ndata: x\ndata:\ndata: event: endpoint\ndata: data: /evil\n\n"},
		{"trailing break", "", "", "a\n", "data: a\ndata:\n\n"},
		{"leading space kept", "", "", " a", "data:  a\n\n"},
		{"CR LF in id", "1\r\nevent: x", "", "d", "id: 1event: x\ndata: d\n\n"},
		{"CR in event", "", "message\rdata: evil", "d", "event: messagedata: evil\ndata: d\n\n"},
		{"id of only breaks is left out", "\r\n", "\n", "d", "data: d\n\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendEvent([]byte("prefix"), tc.id, tc.event, []byte(tc.data))
			assert.Equal(t, "prefix"+tc.want, string(got))
			events, _ := parseSSE(tc.want)
			require.Len(t, events, 1)
			assert.Equal(t, normalizeBreaks(tc.data), events[0].Data)
		})
	}
}

func TestAppendPriming(t *testing.T) {
	cases := []struct {
		name  string
		id    string
		retry time.Duration
		want  string
	}{
		{"no retry", "s-0000000000000001", 0, "id: s-0000000000000001\ndata:\n\n"},
		{"retry", "s-1", 2500 * time.Millisecond, "id: s-1\nretry: 2500\ndata:\n\n"},
		{"sub-millisecond retry rounds up", "s-1", time.Microsecond, "id: s-1\nretry: 1\ndata:\n\n"},
		{"line break in id", "s-1\nretry: 0", 0, "id: s-1retry: 0\ndata:\n\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(AppendPriming(nil, tc.id, tc.retry))
			assert.Equal(t, tc.want, got)
			events, _ := parseSSE(got)
			require.Len(t, events, 1)
			assert.Equal(t, "", events[0].Data)
			assert.Equal(t, clean(tc.id), events[0].ID)
		})
	}
}

func TestAppendComment(t *testing.T) {
	cases := []struct{ text, want string }{
		{"keepalive", ": keepalive\n\n"},
		{"", ":\n\n"},
		{"a\r\ndata: x\n", ": adata: x\n\n"},
	}
	for _, tc := range cases {
		got := string(AppendComment(nil, tc.text))
		assert.Equal(t, tc.want, got)
		events, comments := parseSSE(got)
		assert.Empty(t, events, "a comment dispatches nothing")
		assert.Equal(t, 1, comments)
	}
}

func TestHeader(t *testing.T) {
	h := Header()
	assert.Equal(t, "text/event-stream", h.Get("Content-Type"))
	assert.Equal(t, "no-cache", h.Get("Cache-Control"))
	assert.Equal(t, "no", h.Get("X-Accel-Buffering"))
	h.Set("Content-Type", "x")
	assert.Equal(t, "text/event-stream", Header().Get("Content-Type"), "each call returns a fresh map")
}

// normalizeBreaks is what an SSE client reads back: every break as LF.
func normalizeBreaks(s string) string {
	return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
}

func FuzzAppendEvent(f *testing.F) {
	seeds := []struct{ id, event, data string }{
		{"", "message", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"s-0000000000000001", "", "{}"},
		{"", "", ""},
		{"1\r\n", "endpoint\r", "a\r\nb\rc\nd\n\n"},
		{"\x00", ":", "\n\nevent: x\ndata: y\n\n"},
		{" ", " message", " data"},
		{"", "", "\r"},
	}
	for _, s := range seeds {
		f.Add(s.id, s.event, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, id, event string, data []byte) {
		out := string(AppendEvent(nil, id, event, data))
		events, comments := parseSSE(out)
		require.Len(t, events, 1, "%q", out)
		assert.Zero(t, comments)
		got := events[0]
		assert.Equal(t, normalizeBreaks(string(data)), got.Data)
		assert.Equal(t, clean(event), got.Event)
		if wantID := clean(id); !strings.Contains(wantID, "\x00") {
			assert.Equal(t, wantID, got.ID)
		}
	})
}
