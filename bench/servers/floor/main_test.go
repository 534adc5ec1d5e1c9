package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestServe(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi \"x\"\n"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("z", 3<<20) + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"nope"}`,
		`not json`,
	}, "\n")
	var out bytes.Buffer
	if err := serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18",`,
		`{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"hi \"x\"\n"}]}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"zzz`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%.500s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %.120s, want prefix %s", i, lines[i], w)
		}
	}
	if n := len(lines[2]); n < 3<<20 {
		t.Errorf("long answer has %d bytes", n)
	}
}
