package streamhttp_test

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/examples/everything"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// The tools of TestClientParamHeaders' server: route annotates four
// arguments (one nested); the other two carry invalid annotations.
const (
	routeTool = `{"name":"route","inputSchema":{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},` +
		`"verbose":{"type":"boolean","x-mcp-header":"Verbose"},` +
		`"opts":{"type":"object","properties":{"fast":{"type":"boolean","x-mcp-header":"Fast"}}},` +
		`"note":{"type":"string"},"score":{"type":"number"}}}}`
	numberTool = `{"name":"bad_number","inputSchema":{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}}}}`
	itemsTool  = `{"name":"bad_items","inputSchema":{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string","x-mcp-header":"Id"}}}}}`
	toolsList  = `{"tools":[` + routeTool + `,` + numberTool + `,` + itemsTool + `],"nextCursor":"c2"}`
)

// paramHeaders returns the Mcp-Param-* headers of h.
func paramHeaders(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		if strings.HasPrefix(k, "Mcp-Param-") {
			out[k] = v
		}
	}
	return out
}

// TestClientParamHeaders: on 2026-07-28 the conn drops the tools with
// invalid x-mcp-header annotations from the tools/list answers it carries
// and mirrors the annotated arguments of tools/call into Mcp-Param
// headers; the legacy shape does neither.
func TestClientParamHeaders(t *testing.T) {
	calls := make(chan http.Header, 1)
	ts := serveHTTP(t, func(w http.ResponseWriter, r *http.Request) {
		m, _ := readRPC(t, r)
		if m.Method == "tools/list" {
			reply(w, 200, "application/json", `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+toolsList+`}`)
			return
		}
		calls <- paramHeaders(r.Header)
		reply(w, 200, "application/json", `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
	})
	log := &lockedLog{}
	c := dial(t, ts, &streamhttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(log, nil))})
	call := func(t *testing.T, id int, args, meta string) http.Header {
		t.Helper()
		sendMsg(t, c, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"route","arguments":`+args+meta+`}}`)
		recvMsg(t, c)
		select {
		case h := <-calls:
			return h
		case <-time.After(bound):
			t.Fatal("no tools/call reached the server")
			return nil
		}
	}
	const modern = `,` + meta
	route := `{"region":"us-west1","priority":42,"verbose":false,"opts":{"fast":true},"note":"n","score":1.5}`

	assert.Empty(t, call(t, 1, route, modern), "a tool never listed has no known annotations")

	sendMsg(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":`+toolsList+`}`, recvMsg(t, c), "legacy answers pass as they are")
	sendMsg(t, c, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{`+meta+`}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"nextCursor":"c2","tools":[`+routeTool+`]}}`, recvMsg(t, c))
	assert.Contains(t, log.String(), `level=WARN msg="streamhttp: dropped a tool with an invalid x-mcp-header from tools/list" tool=bad_number`)
	assert.Contains(t, log.String(), `tool=bad_items why="x-mcp-header of property ids: it is not on a property reached through properties alone"`)

	cases := []struct {
		name, args string
		want       http.Header
	}{
		{"every kind", route, http.Header{"Mcp-Param-Region": {"us-west1"}, "Mcp-Param-Priority": {"42"},
			"Mcp-Param-Verbose": {"false"}, "Mcp-Param-Fast": {"true"}}},
		{"base64 forms, null omitted, integral number", `{"region":"Hello, 世界","priority":7.0,"verbose":null}`,
			http.Header{"Mcp-Param-Region": {"=?base64?SGVsbG8sIOS4lueVjA==?="}, "Mcp-Param-Priority": {"7"}}},
		{"surrounding spaces", `{"region":" padded ","opts":{"fast":null}}`, http.Header{"Mcp-Param-Region": {"=?base64?IHBhZGRlZCA=?="}}},
		{"control character, empty", `{"region":"a\r\nb","note":""}`, http.Header{"Mcp-Param-Region": {"=?base64?YQ0KYg==?="}}},
		{"no arguments", `{}`, http.Header{}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, call(t, 10+i, tc.args, modern))
		})
	}
	assert.Empty(t, call(t, 4, route, ""), "legacy tools/call carries no Mcp-Param")
}

// TestClientParamHeadersEndToEnd: package client, over Dial, calls the
// everything server's test_custom_header, whose region argument the server
// requires in Mcp-Param-Region on 2026-07-28 (-32020 without it).
func TestClientParamHeadersEndToEnd(t *testing.T) {
	srv := everything.New(nil)
	t.Cleanup(srv.Close)
	l, err := srv.ListenHTTP(context.Background(), "127.0.0.1:0", nil)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	for _, rev := range []string{spec.Rev20260728, spec.Rev20251125} {
		t.Run(rev, func(t *testing.T) {
			conn, err := streamhttp.Dial(l.URL(), nil)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			c, err := client.Connect(ctx, conn, &client.Options{Revision: rev})
			require.NoError(t, err)
			defer c.Close()
			_, err = c.ListTools(ctx)
			require.NoError(t, err)
			for _, region := range []string{"eu-west", "Zürich ", ""} {
				r, err := c.CallTool(ctx, "test_custom_header", map[string]any{"region": region})
				require.NoError(t, err)
				require.Len(t, r.Content, 1)
				assert.Equal(t, "Region: "+region, *r.Content[0].Text)
			}
		})
	}
}
