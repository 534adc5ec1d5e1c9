package everything_test

import (
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/examples/everything"
	"github.com/polymcp/polymcp/internal/wire"
	"github.com/polymcp/polymcp/transport/stdio"
)

// TestWire replays every transcript under testdata/wire/<revision>/ over
// the in-process transport and over stdio against the real binary: both
// must give exactly the transcript's answers, and every message either
// sends must validate against the revision's official schema.
func TestWire(t *testing.T) {
	transcripts, err := wire.LoadDir("testdata/wire")
	require.NoError(t, err)
	require.NotEmpty(t, transcripts)
	schemas := loadSchemas(t)
	for _, tr := range transcripts {
		t.Run(tr.Revision+"/"+tr.Name, func(t *testing.T) {
			t.Parallel()
			t.Run("memory", func(t *testing.T) {
				srv := everything.New(nil)
				defer srv.Close()
				c := srv.Connect()
				defer c.Close()
				require.NoError(t, wire.Play(context.Background(), c, tr, validator(t, schemas, tr)))
			})
			t.Run("http", func(t *testing.T) {
				if why, ok := notOverHTTP[tr.Revision+"/"+tr.Name]; ok {
					t.Skip(why)
				}
				url := serveHTTP(t)
				c, err := wire.DialHTTP(t.Context(), url, tr.Revision)
				require.NoError(t, err)
				defer c.Close()
				require.NoError(t, wire.Play(t.Context(), c, tr, validator(t, schemas, tr)))
			})
			t.Run("stdio", func(t *testing.T) {
				p := spawn(t)
				err := wire.Play(context.Background(), wire.Process(p), tr, validator(t, schemas, tr))
				require.NoError(t, err, "stderr:\n%s", p.Stderr())
				assert.Equal(t, 0, stop(t, p), "exit status; stderr:\n%s", p.Stderr())
			})
		})
	}
}

// serveHTTP serves a fresh everything fixture on 127.0.0.1 (port 0) until
// the test ends and returns its URL.
func serveHTTP(t *testing.T) string {
	t.Helper()
	srv := everything.New(nil)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := srv.ListenHTTP(ctx, "127.0.0.1:0", nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l.URL()
}

// notOverHTTP lists the transcripts whose answers cannot be the same over
// HTTP, and why; every other transcript must give identical answers on
// Streamable HTTP (and on HTTP+SSE for 2024-11-05).
var notOverHTTP = func() map[string]string {
	m := map[string]string{
		"2026-07-28/admission": "on HTTP the MCP-Protocol-Version header picks the era: a request naming a legacy revision needs a session (HTTP 400), where stdio answers -32022",
		"2026-07-28/discover":  "on HTTP the header says 2026-07-28, so a request without _meta is told protocolVersion is required; stdio, which may still initialize, says the session is not initialized",
		"2026-07-28/jsonrpc":   "on HTTP the header names the revision that refuses a batch; stdio refuses it before any revision is known",
		"2026-07-28/cancellation": "a stateless request is cancelled by closing its HTTP stream (streamhttp's TestModernDisconnectCancels), " +
			"not by notifications/cancelled in another POST",
		"2026-07-28/listen": "subscriptions/listen ends when its HTTP stream closes, not by notifications/cancelled in another POST",
	}
	for _, rev := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		m[rev+"/ping_before_initialize"] = "a request before initialize has no session: HTTP 400 (basic/transports#session-management), where stdio answers ping"
		m[rev+"/lifecycle"] = "on HTTP initialize begins a new session, so a second initialize is answered, not refused as on stdio's one session"
		m[rev+"/jsonrpc"] = "a malformed notification POST gets HTTP 400 with a JSON-RPC error (basic/transports: 202 if accepted, else 4xx), where stdio drops it"
	}
	return m
}()

// loadSchemas returns the official schemas, or nil (after a skipped
// "schema" subtest saying why) when the folder is not beside the repository.
func loadSchemas(t *testing.T) *wire.Schemas {
	dir, err := wire.FindSchemaDir()
	if errors.Is(err, wire.ErrNoSchemas) {
		t.Run("schema", func(t *testing.T) {
			t.Skipf("%v: answers are checked, schema validation is skipped", err)
		})
		return nil
	}
	require.NoError(t, err)
	return wire.LoadSchemas(dir)
}

func validator(t *testing.T, s *wire.Schemas, tr *wire.Transcript) *wire.Validator {
	if s == nil {
		return nil
	}
	v, err := s.Validator(tr.Revision)
	require.NoError(t, err)
	return v
}

// fixture replaces "polymcp everything" as the stdio server of TestWire, so
// the same transcripts hold the Python, Node and C fixtures to the same
// rules: go test ./examples/everything -run 'TestWire/.*/.*/stdio' \
// -fixture 'python3 -m polymcp.everything'.
var fixture = flag.String("fixture", "", "command line of the stdio server the transcripts are replayed against (default: polymcp everything)")

// spawn starts the stdio fixture; the process is killed at the end of the
// test if it is still running.
func spawn(t *testing.T) *stdio.Process {
	t.Helper()
	name, args := polymcpBin, []string{"everything"}
	if fields := strings.Fields(*fixture); len(fields) > 0 {
		name, args = fields[0], fields[1:]
	}
	p, err := stdio.Spawn(context.Background(), name, args...)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p
}

// stopTimeout bounds a clean exit after stdin closes (a failure bound).
const stopTimeout = 20 * time.Second

// stop closes the server's stdin and returns its exit status.
func stop(t *testing.T, p *stdio.Process) int {
	t.Helper()
	require.NoError(t, p.CloseStdin())
	select {
	case <-p.Exited():
	case <-time.After(stopTimeout):
		t.Fatalf("the server did not exit within %s of stdin closing", stopTimeout)
	}
	code, err := p.Wait()
	require.NoError(t, err)
	return code
}
