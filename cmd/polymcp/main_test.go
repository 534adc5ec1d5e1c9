package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/examples/everything"
	"github.com/polymcp/polymcp/internal/wire"
)

func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no command", nil, 2, "", "Usage:"},
		{"help", []string{"help"}, 0, "polymcp everything", ""},
		{"version", []string{"version"}, 0, "protocol revisions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28", ""},
		{"unknown command", []string{"serve"}, 2, "", `unknown command "serve"`},
		{"stray argument", []string{"everything", "extra"}, 2, "", "unexpected argument extra"},
		{"unknown flag", []string{"everything", "--nope"}, 2, "", "flag provided but not defined"},
		{"help of everything", []string{"everything", "-h"}, 0, "--http HOST:PORT", ""},
		{"help of demo", []string{"demo", "--help"}, 0, "--server", ""},
		{"list without a server", []string{"list"}, 2, "", "name the server: --http URL"},
		{"two servers", []string{"call", "--http", "http://127.0.0.1:1/mcp", "echo", "--", "x"}, 2, "", "not both"},
		{"call without a tool", []string{"call", "--", "x"}, 2, "", "usage: polymcp call"},
		{"call with bad JSON", []string{"call", "echo", "{", "--", "x"}, 2, "", "the arguments are not JSON"},
		{"read without a URI", []string{"read", "--", "x"}, 2, "", "usage: polymcp read"},
		{"help of call", []string{"call", "-h"}, 0, "polymcp call", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, tc.code, run(context.Background(), tc.args, &out, &errOut))
			assert.Contains(t, out.String(), tc.stdout)
			assert.Contains(t, errOut.String(), tc.stderr)
		})
	}
}

// builtDir holds the binary built, once, for the tests that run it.
var builtDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

var built = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "polymcp-cmd-test")
	if err != nil {
		return "", err
	}
	builtDir = dir
	bin := filepath.Join(dir, "polymcp")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	return bin, build.Run()
})

func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := built()
	require.NoError(t, err)
	return bin
}

// serveHTTP starts "polymcp everything --http 127.0.0.1:0" and returns its
// URL; the server is stopped when the test ends.
func serveHTTP(t *testing.T, bin string) string {
	t.Helper()
	url, stop, err := wire.StartHTTP(bin, "everything")
	require.NoError(t, err)
	t.Cleanup(stop)
	return url
}

// TestDemo builds the command and runs the demo end to end, over stdio
// (the binary serves itself) and over Streamable HTTP: polymcp's client
// calls the everything example in both eras.
func TestDemo(t *testing.T) {
	bin := binary(t)
	want := []string{
		"polymcp-everything 0.1.0 speaks 2025-11-25",
		`← "hello, polymcp"`,
		"progress 200/200",
		`← "slept"`,
		`"This is the content of the static text resource."`,
		`"Prompt with arguments: arg1='hello', arg2='world'"`,
		`← "LLM response: Hello from the client's model"`,
		"polymcp-everything 0.1.0 speaks 2026-07-28",
		`← "stateless hello"`,
		`the server asks the user: "Who is calling?"`,
		`demo@example.com`,
	}
	t.Run("stdio", func(t *testing.T) {
		out, err := exec.Command(bin, "demo").CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, w := range append(want, "the server exited with status 0") {
			assert.Contains(t, string(out), w)
		}
	})
	t.Run("http", func(t *testing.T) {
		out, err := exec.Command(bin, "demo", "--http", serveHTTP(t, bin)).CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, w := range want {
			assert.Contains(t, string(out), w)
		}
	})
}

// TestClientCommands runs list, call and read against the everything
// example over stdio and HTTP, in the negotiated and a pinned revision.
func TestClientCommands(t *testing.T) {
	bin := binary(t)
	url := serveHTTP(t, bin)
	sseURL := strings.TrimSuffix(url, "/mcp") + "/sse" // HTTP+SSE only: the client falls back
	for i, server := range [][]string{{"--http", url}, {"--http", sseURL}, {"--", bin, "everything"}} {
		for _, rev := range []string{"", "2024-11-05"} {
			t.Run([]string{"http", "http+sse", "stdio"}[i]+"/"+rev, func(t *testing.T) {
				run := func(code int, args ...string) string {
					t.Helper()
					full := append([]string{args[0], "--revision=" + rev}, args[1:]...)
					if server[0] == "--http" {
						full = append(full[:2], append(server, full[2:]...)...)
					} else {
						full = append(full, server...)
					}
					cmd := exec.Command(bin, full...)
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					out, err := cmd.Output()
					got := 0
					var exit *exec.ExitError
					if errors.As(err, &exit) {
						got = exit.ExitCode()
					} else {
						require.NoError(t, err)
					}
					require.Equal(t, code, got, "polymcp %v: %s%s", full, out, stderr.Bytes())
					return string(out)
				}
				assert.Contains(t, run(0, "list"), "tool      echo ")
				assert.Contains(t, run(0, "list"), "resource  test://static-text")
				assert.Equal(t, "héllo\n", run(0, "call", "echo", `{"text":"héllo"}`))
				assert.Contains(t, run(0, "call", "--json", "echo", `{"text":"x"}`), `"text": "x"`)
				assert.Contains(t, run(1, "call", "test_error_handling"), "intentionally returns an error")
				assert.Equal(t, "This is the content of the static text resource.\n", run(0, "read", "test://static-text"))
				assert.Contains(t, run(0, "call", "sleep", `{"ms":40}`), "… progress 40/40")
				run(1, "read", "test://nothing")
			})
		}
	}
}

// --header reaches the server on every request (a bearer token, say), and
// --oauth leaves a server that asks for no authorization as it was.
func TestClientHeaders(t *testing.T) {
	bin := binary(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // --oauth's default store
	srv := everything.New(nil)
	defer srv.Close()
	h := srv.HTTPHandler(nil)
	guarded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer guarded.Close()
	open := httptest.NewServer(h)
	defer open.Close()
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	out, err := run("call", "--http", guarded.URL+"/mcp", "--header", "Authorization: Bearer s3cret", "echo", `{"text":"let in"}`)
	require.NoError(t, err, out)
	assert.Equal(t, "let in\n", out)
	out, err = run("call", "--http", guarded.URL+"/mcp", "echo", `{"text":"kept out"}`)
	assert.Error(t, err)
	assert.Contains(t, out, "401")
	out, err = run("call", "--oauth", "--http", open.URL+"/mcp", "echo", `{"text":"no auth asked"}`)
	require.NoError(t, err, out)
	assert.Equal(t, "no auth asked\n", out)
	out, err = run("call", "--header", "no colon", "--http", open.URL+"/mcp", "echo")
	assert.Error(t, err)
	assert.Contains(t, out, `a header is "Name: value"`)

	// --oauth-store: the token a past run stored goes with the first request.
	store := filepath.Join(t.TempDir(), "oauth.json")
	grant := fmt.Sprintf(`{%q: {"version": 1, "grant": "authorization_code", "issuer": "http://127.0.0.1/as",
		"resource": %[1]q, "client_id": "c", "client_auth": "none", "access_token": "s3cret"}}`, guarded.URL+"/mcp")
	require.NoError(t, os.WriteFile(store, []byte(grant), 0o600))
	out, err = run("call", "--oauth", "--oauth-store", store, "--http", guarded.URL+"/mcp", "echo", `{"text":"stored"}`)
	require.NoError(t, err, out)
	assert.Equal(t, "stored\n", out)
}
