package oauth

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The loopback authorizer returns what the browser brings back, once per
// authorization, and gives up when its context ends.
func TestLoopback(t *testing.T) {
	shown := make(chan string, 2)
	lb, err := NewLoopback(func(u string) { shown <- u })
	require.NoError(t, err)
	defer lb.Close()
	require.True(t, strings.HasPrefix(lb.RedirectURL(), "http://127.0.0.1:"))
	browser := func(query string) {
		resp, err := http.Get(lb.RedirectURL() + "?" + query)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Contains(t, string(body), "you may close this window")
	}
	for _, q := range []string{"code=c1&state=s1", "code=c2&state=s2"} { // a step-up authorizes again
		done := make(chan string, 1)
		go func() {
			u, err := lb.Authorize(context.Background(), "https://as.example/authorize?x="+q)
			assert.NoError(t, err)
			done <- u
		}()
		assert.Equal(t, "https://as.example/authorize?x="+q, <-shown)
		browser(q)
		assert.Equal(t, lb.RedirectURL()+"?"+q, <-done)
	}
	resp, err := http.Get(strings.TrimSuffix(lb.RedirectURL(), "/callback") + "/other")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = lb.Authorize(ctx, "https://as.example/authorize")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
