package everything_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCustomHeaderTool posts 2026-07-28 calls of test_custom_header, whose
// region argument is an x-mcp-header: the Mcp-Param-Region header must
// carry the body's value (literally or as =?base64?…?=), else the request
// is refused with HTTP 400 and -32020 before the tool runs.
func TestCustomHeaderTool(t *testing.T) {
	url := serveHTTP(t)

	const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_custom_header","arguments":{"region":"eu-west"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	const answered = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"polymcp-everything","title":"polymcp everything","version":"0.1.0"}},` +
		`"content":[{"type":"text","text":"Region: eu-west"}]}}`
	ptr := func(s string) *string { return &s }
	for _, tc := range []struct {
		name   string
		header *string // Mcp-Param-Region; nil leaves it out
		status int
		want   string // the whole answer, or "" to check the error code only
	}{
		{"literal", ptr("eu-west"), http.StatusOK, answered},
		{"surrounding whitespace", ptr("  eu-west "), http.StatusOK, answered},
		{"base64", ptr("=?base64?ZXUtd2VzdA==?=" /* eu-west */), http.StatusOK, answered},
		{"other value", ptr("us-east"), http.StatusBadRequest, ""},
		{"bad base64", ptr("=?base64?ZXUtd2VzdA?=" /* no padding */), http.StatusBadRequest, ""},
		{"missing", nil, http.StatusBadRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "test_custom_header")
			if tc.header != nil {
				req.Header.Set("Mcp-Param-Region", *tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode, "%s", got)
			if tc.want != "" {
				assert.JSONEq(t, tc.want, string(got))
				return
			}
			var e struct {
				ID    int
				Error struct{ Code int }
			}
			require.NoError(t, json.Unmarshal(got, &e), "%s", got)
			assert.Equal(t, 1, e.ID)
			assert.Equal(t, -32020, e.Error.Code, "HeaderMismatch; %s", got)
		})
	}
}
