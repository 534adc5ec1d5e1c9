package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Loopback is an Authorize for command-line and desktop programs, as RFC
// 8252 (OAuth for native apps) describes: it listens on a loopback port,
// shows the user the authorization URL, and returns the redirect the
// user's browser brings back to it. Use its RedirectURL as
// Config.RedirectURL and its Authorize as Config.Authorize, and Close it
// when the client is done.
type Loopback struct {
	srv      *http.Server
	redirect string
	show     func(authURL string)
	got      chan string
}

// NewLoopback listens on 127.0.0.1 (a free port); show is given each
// authorization URL (print it, open a browser).
func NewLoopback(show func(authURL string)) (*Loopback, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	lb := &Loopback{redirect: "http://" + l.Addr().String() + "/callback", show: show, got: make(chan string, 1)}
	lb.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(lb.callback)}
	go func() { _ = lb.srv.Serve(l) }()
	return lb, nil
}

// RedirectURL is the redirect_uri to register and authorize with.
func (lb *Loopback) RedirectURL() string { return lb.redirect }

// Close stops listening.
func (lb *Loopback) Close() error { return lb.srv.Close() }

// callback takes the browser's redirect and answers it with a short page.
func (lb *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "Authorization received: you may close this window.")
	select {
	case lb.got <- lb.redirect + "?" + r.URL.RawQuery:
	default: // one is waiting to be taken already (a reload)
	}
}

// Authorize implements Config.Authorize: it shows authURL and waits,
// within ctx, for the browser's request to RedirectURL.
func (lb *Loopback) Authorize(ctx context.Context, authURL string) (string, error) {
	select {
	case <-lb.got: // stale: from an earlier authorization
	default:
	}
	lb.show(authURL)
	select {
	case u := <-lb.got:
		return u, nil
	case <-ctx.Done():
		return "", errors.Join(errors.New("oauth: no authorization came back to "+lb.redirect), context.Cause(ctx))
	}
}
