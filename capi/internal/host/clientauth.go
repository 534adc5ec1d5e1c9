package host

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/polymcp/polymcp/client/oauth"
	"github.com/polymcp/polymcp/core/jsonrpc"
)

// OAuthConfig is the "oauth" option of polymcp_client_connect: OAuth 2.1
// for an HTTP server that asks for it (client/oauth does the flow).
type OAuthConfig struct {
	ClientID          string `json:"client_id"`
	ClientSecret      string `json:"client_secret"`
	Issuer            string `json:"issuer"`
	ClientMetadataURL string `json:"client_metadata_url"`
	ClientName        string `json:"client_name"`
	RedirectURL       string `json:"redirect_url"`
	Grant             string `json:"grant"` // "authorization_code" (default) or "client_credentials"
	// TokenStore is the file the registration and tokens are kept in
	// (oauth.FileStore); "" keeps them for the client's life only.
	TokenStore string `json:"token_store"`
}

func (o *OAuthConfig) check(answers bool) error {
	switch o.Grant {
	case "", "authorization_code":
		if !answers {
			return errorf(EInvalid, "options: oauth's authorization_code grant needs on_question (oauth/authorize)")
		}
	case "client_credentials":
		if o.ClientID == "" {
			return errorf(EInvalid, "options: oauth's client_credentials grant needs client_id")
		}
	default:
		return errorf(EInvalid, "options: oauth.grant %q is not authorization_code or client_credentials", o.Grant)
	}
	return nil
}

// authorizeQuestion is the params of the oauth/authorize question; its
// answer may carry the redirect the user's browser came back to.
type authorizeQuestion struct {
	URL         string `json:"url"`
	RedirectURL string `json:"redirectUrl"`
}

type authorizeAnswer struct {
	RedirectURL string `json:"redirectUrl"`
}

// authorization is the one under way on a client's loopback listener.
type authorization struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// oauthTransport is the HTTP transport that authorizes c's requests.
// Without a redirect_url of the host's, the redirect comes back to a
// loopback listener of c's own (RFC 8252), which c closes at its end, and
// the host only shows the user the URL.
func (c *Client) oauthTransport(o *OAuthConfig) (*oauth.Transport, error) {
	cfg := oauth.Config{ClientMetadataURL: o.ClientMetadataURL, ClientName: o.ClientName, RedirectURL: o.RedirectURL}
	if o.TokenStore != "" {
		cfg.Store = fileStore(o.TokenStore)
	}
	if o.ClientID != "" {
		cfg.Client = &oauth.Credentials{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Issuer: o.Issuer}
	}
	switch {
	case o.Grant == "client_credentials":
		cfg.Grant = oauth.ClientCredentials
	case o.RedirectURL != "":
		cfg.Authorize = func(ctx context.Context, authURL string) (string, error) {
			a, err := ask[authorizeAnswer](ctx, c, "oauth/authorize", authorizeQuestion{authURL, o.RedirectURL})
			if err != nil {
				return "", refused(err)
			}
			if a.RedirectURL == "" {
				return "", errors.New("oauth: the host's answer to oauth/authorize has no redirectUrl")
			}
			return a.RedirectURL, nil
		}
	default:
		var current atomic.Pointer[authorization]
		lb, err := oauth.NewLoopback(func(authURL string) { c.showAuthorization(current.Load(), authURL) })
		if err != nil {
			return nil, err
		}
		c.loopback = lb
		cfg.RedirectURL = lb.RedirectURL()
		cfg.Authorize = func(ctx context.Context, authURL string) (string, error) {
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			current.Store(&authorization{ctx: ctx, cancel: cancel})
			defer current.Store(nil)
			redirect, err := lb.Authorize(ctx, authURL)
			var r *refusal
			if err != nil && errors.As(context.Cause(ctx), &r) {
				return "", r // the host's refusal says it all
			}
			return redirect, err
		}
	}
	return &oauth.Transport{Config: cfg}, nil
}

// showAuthorization asks the host to show the user authURL while the
// loopback listener waits for the redirect; a host that refuses ends the
// authorization with its error.
func (c *Client) showAuthorization(a *authorization, authURL string) {
	if a == nil {
		return
	}
	go func() {
		if _, err := ask[authorizeAnswer](a.ctx, c, "oauth/authorize", authorizeQuestion{authURL, c.loopback.RedirectURL()}); err != nil {
			a.cancel(refused(err))
		}
	}()
}

// refusal is the host's error answer to oauth/authorize, as an error of
// the transport's, so that it does not pass for the server's JSON-RPC
// error.
type refusal struct{ msg string }

func (r *refusal) Error() string { return "the host refused the authorization: " + r.msg }

func refused(err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return &refusal{je.Message}
	}
	return err
}

// fileStores are the token stores of the process by path: clients that
// share a file share its FileStore, whose saves are serialized (two would
// each rewrite the file from what they read, and one client's grant could
// be lost).
var fileStores sync.Map // path → *oauth.FileStore

func fileStore(path string) *oauth.FileStore {
	s, _ := fileStores.LoadOrStore(path, &oauth.FileStore{Path: path})
	return s.(*oauth.FileStore)
}
