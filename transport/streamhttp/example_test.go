package streamhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/polymcp/polymcp/mcp"
)

// A server on a free loopback port, called once at 2026-07-28.
func ExampleListen() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	defer srv.Close()
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(_ context.Context, _ *mcp.Request, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		})
	l, err := srv.ListenHTTP(context.Background(), "", nil)
	if err != nil {
		panic(err)
	}
	defer l.Shutdown(context.Background())

	req, _ := http.NewRequest(http.MethodPost, l.URL(), strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "echo")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Println(string(body))
	// Output:
	// 200 application/json
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"content":[{"type":"text","text":"hello"}]}}
}
