package sse

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NewHTTPClient keeps the connections of a wave of concurrent
// requests for the next (net/http's default kept 2 and dialed the rest
// again), and caps them at DefaultMaxConnsPerHost, queueing the requests
// beyond.
func TestDefaultClientConnections(t *testing.T) {
	var dialed, inflight, most atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := inflight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		inflight.Add(-1)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	client := NewHTTPClient()
	wave := func(n int) {
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := client.Get(srv.URL)
				if assert.NoError(t, err) {
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
	}
	wave(16)
	first := dialed.Load()
	require.LessOrEqual(t, first, int64(16))
	wave(16)
	assert.Equal(t, first, dialed.Load(), "the second wave reuses the first's connections")

	wave(DefaultMaxConnsPerHost + 44)
	assert.LessOrEqual(t, most.Load(), int64(DefaultMaxConnsPerHost), "requests beyond the cap wait")
	assert.LessOrEqual(t, dialed.Load(), int64(DefaultMaxConnsPerHost))
}
