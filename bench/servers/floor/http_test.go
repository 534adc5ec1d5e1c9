package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(handle))
	defer srv.Close()
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi \"x\""}}}`, 200,
			`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi \"x\""}]}}` + "\n"},
		{`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"_meta":{"k":1},"name":"echo","arguments":{"text":"` + strings.Repeat("y", 70000) + `"}}}`, 200,
			`{"jsonrpc":"2.0","id":"s","result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 70000) + `"}]}}` + "\n"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ``},
		{`{"jsonrpc":"2.0","id":2,"method":"nope"}`, 200, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found"}}` + "\n"},
		{`not json`, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n"},
	} {
		resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || string(got) != tc.want {
			t.Errorf("%.60s: %d %.120s, want %d %.120s", tc.body, resp.StatusCode, got, tc.status, tc.want)
		}
		if tc.want != "" && resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%.60s: Content-Type %q", tc.body, resp.Header.Get("Content-Type"))
		}
	}
}
