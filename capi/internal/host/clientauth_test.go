package host

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/mcp"
)

// guardedServer is an MCP server (an echo tool) behind OAuth 2.1: /mcp
// answers 401 with a challenge until a request carries the token its own
// authorization server issues, after registration, authorization and a
// code exchange. It returns the server's URL.
func guardedServer(t *testing.T) string {
	guarded := echoHandler(t, "guarded")
	var base string
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-1" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		guarded.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize",
			"token_endpoint": base + "/token", "registration_endpoint": base + "/register",
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"client_id": "registered"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		back, err := url.Parse(r.URL.Query().Get("redirect_uri"))
		require.NoError(t, err)
		back.RawQuery = url.Values{"code": {"code-1"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"access_token": "tok-1", "token_type": "bearer", "expires_in": 3600})
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	base = ts.URL
	return ts.URL + "/mcp"
}

// echoHandler is the Streamable HTTP handler of a Go MCP server named
// name with an echo tool, closed with the test.
func echoHandler(t *testing.T, name string) http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	t.Cleanup(srv.Close)
	return srv.HTTPHandler(nil)
}

// connectAndEcho connects a client with opts, checks that it echoes text,
// and closes it.
func connectAndEcho(t *testing.T, h *clientHost, opts []byte, text string) {
	t.Helper()
	c, err := Connect(opts, h, 1)
	require.NoError(t, err)
	r := h.next(t)
	require.Equal(t, OK, r.rc, r.body)
	require.NoError(t, Request(c, "tools/call", []byte(`{"name":"echo","arguments":{"text":"`+text+`"}}`), nil, 2))
	r = h.next(t)
	require.Equal(t, OK, r.rc, r.body)
	assert.Contains(t, r.body, `"text":"`+text+`"`)
	closeClient(t, h, c)
}

// TestClientOAuth: the "oauth" option authorizes a connection to a
// server that asks for it; the host shows the user the URL (here, a
// "browser" that follows the redirects) and, with a redirect_url of its
// own, hands back where the browser came back to.
func TestClientOAuth(t *testing.T) {
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		name, oauth string
		browse      func(t *testing.T, q uint64, p authorizeQuestion)
	}{
		{"loopback", `{}`, func(t *testing.T, q uint64, p authorizeQuestion) {
			require.NoError(t, Answer(q, []byte(`{}`)))
			resp, err := http.Get(p.URL) // the browser, redirected to the loopback listener
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		}},
		{"the host's redirect", `{"redirect_url":"https://app.example/callback"}`, func(t *testing.T, q uint64, p authorizeQuestion) {
			assert.Equal(t, "https://app.example/callback", p.RedirectURL)
			resp, err := noRedirects.Get(p.URL)
			require.NoError(t, err)
			resp.Body.Close()
			back, _ := json.Marshal(authorizeAnswer{RedirectURL: resp.Header.Get("Location")})
			require.NoError(t, Answer(q, back))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := guardedServer(t)
			h := newClientHost()
			asked := 0
			h.onQuestion = func(q uint64, method string, params []byte) {
				require.Equal(t, "oauth/authorize", method)
				asked++
				var p authorizeQuestion
				require.NoError(t, json.Unmarshal(params, &p))
				go tc.browse(t, q, p)
			}
			connectAndEcho(t, h, []byte(`{"url":"`+target+`","oauth":`+tc.oauth+`}`), "let in")
			assert.Equal(t, 1, asked, "one authorization serves the connection")
		})
	}
}

func TestClientOAuthRefused(t *testing.T) {
	target := guardedServer(t)
	h := newClientHost()
	h.onQuestion = func(q uint64, _ string, _ []byte) { require.NoError(t, AnswerError(q, 0, "the user said no")) }
	c, err := Connect([]byte(`{"url":"`+target+`","oauth":{}}`), h, 1)
	require.NoError(t, err)
	r := h.next(t)
	assert.Equal(t, EIO, r.rc)
	assert.Contains(t, r.body, "the host refused the authorization: the user said no")
	assert.NotContains(t, r.body, "no authorization came back", "the refusal alone")
	assert.Equal(t, 1, strings.Count(r.body, "oauth:"), r.body)
	<-h.closed
	require.NoError(t, FreeClient(c))

	for _, opts := range []string{`{"server":1,"oauth":{}}`, `{"url":"http://x","oauth":{"grant":"implicit"}}`,
		`{"url":"http://x","oauth":{"grant":"client_credentials"}}`} {
		_, err := Connect([]byte(opts), h, 1)
		assert.Equal(t, EInvalid, CodeOf(err), opts)
	}
	quiet := newClientHost()
	quiet.answers = false
	_, err = Connect([]byte(`{"url":"http://x","oauth":{}}`), quiet, 1)
	assert.Equal(t, EInvalid, CodeOf(err), "authorization_code needs on_question")
}

// TestClientOAuthTokenStore: with "token_store", a second connection to
// the server starts with the token the first stored, and asks nothing.
func TestClientOAuthTokenStore(t *testing.T) {
	target := guardedServer(t)
	store := filepath.Join(t.TempDir(), "oauth.json")
	asked := 0
	for range 2 {
		h := newClientHost()
		h.onQuestion = func(q uint64, method string, params []byte) {
			asked++
			var p authorizeQuestion
			require.NoError(t, json.Unmarshal(params, &p))
			require.NoError(t, Answer(q, []byte(`{}`)))
			go func() {
				resp, err := http.Get(p.URL)
				if err == nil {
					resp.Body.Close()
				}
			}()
		}
		opts, err := json.Marshal(map[string]any{"url": target, "oauth": map[string]any{"token_store": store}})
		require.NoError(t, err)
		connectAndEcho(t, h, opts, "kept")
	}
	assert.Equal(t, 1, asked, "the second connection used the stored token")
	info, err := os.Stat(store)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}
