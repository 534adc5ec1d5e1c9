package oauth

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// Transport is an http.RoundTripper that authorizes the requests it sends
// to one MCP server; see the package doc. Its zero value (with Config set
// before first use) is ready; it must not be copied after first use.
type Transport struct {
	// Base sends the requests. nil: http.DefaultTransport.
	Base   http.RoundTripper
	Config Config

	flow sync.Mutex // one authorization, refresh or restore at a time
	// storeKey is the key of the server's grant in Config.Store, set by
	// the first request (restore) under flow; restored says it was.
	storeKey string
	restored atomic.Bool

	mu     sync.Mutex       // guards what follows
	grants map[string]grant // by issuer: credentials never cross servers
	issuer string           // whose grant is in use

	defaultOnce   sync.Once
	defaultClient *http.Client
}

// grant is what the transport holds at one authorization server.
type grant struct {
	meta     *serverMetadata
	client   client
	resource string   // the resource indicator of the server
	scopes   []string // last asked for
	token    *token
}

// RoundTrip sends req with the current token and, when the server asks
// for authorization, obtains or refreshes one and sends req again. A
// request whose body cannot be replayed (no GetBody) is not retried.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if !t.restored.Load() {
		if err := t.restore(ctx, req.URL); err != nil {
			return nil, err
		}
		t.restored.Store(true)
	}
	refreshed := false
	for n, replay := 0, false; ; replay = true {
		sent := t.accessToken()
		resp, err := t.send(req, sent, replay)
		if err != nil {
			return nil, err
		}
		c, ok := challengeOf(resp)
		if !ok || req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return resp, nil
		}
		discard(resp)
		if !c.stepUp && !refreshed {
			ok, err := t.refresh(ctx, sent)
			if err != nil {
				return nil, err
			}
			if refreshed = ok; ok {
				continue
			}
		}
		switch {
		case n == t.Config.maxAuthorizations():
			return nil, fmt.Errorf("%w: %d for one request", ErrTooManyAuthorizations, n)
		default:
			n++
			if err := t.authorize(ctx, req.URL, c, sent); err != nil {
				return nil, err
			}
		}
	}
}

// send sends a copy of req with the bearer token; replay takes a fresh body.
func (t *Transport) send(req *http.Request, token string, replay bool) (*http.Response, error) {
	r := req.Clone(req.Context())
	if replay && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// discard drains a refusal (bounded) so that its connection is reused.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBodyBytes))
	resp.Body.Close()
}

// accessToken is the token in use, "" before the first authorization.
func (t *Transport) accessToken() string {
	_, g := t.current()
	if g.token == nil {
		return ""
	}
	return g.token.access
}

// renewed reports whether the token changed since rejected was sent: a
// concurrent request already renewed it.
func (t *Transport) renewed(rejected string) bool {
	return t.accessToken() != rejected
}

func (t *Transport) current() (string, grant) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.issuer, t.grants[t.issuer]
}

func (t *Transport) grantOf(issuer string) grant {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.grants[issuer]
}

// save keeps g for issuer and makes it the one in use.
func (t *Transport) save(issuer string, g grant) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.grants == nil {
		t.grants = map[string]grant{}
	}
	t.grants[issuer], t.issuer = g, issuer
}
