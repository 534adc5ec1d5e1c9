package oauth

import (
	"context"
	"net/http"
	"time"
)

// Grant is the OAuth grant the transport uses to obtain tokens.
type Grant int

const (
	// AuthorizationCode asks the user, through Config.Authorize (the default).
	AuthorizationCode Grant = iota
	// ClientCredentials asks for a token with Config.Client alone, for
	// machine clients (the MCP client-credentials extension).
	ClientCredentials
)

// Defaults of Config's zero fields.
const (
	DefaultRedirectURL       = "http://127.0.0.1/callback"
	DefaultClientName        = "polymcp"
	DefaultTimeout           = 30 * time.Second
	DefaultMaxAuthorizations = 3
	// MaxRedirects bounds the redirects the default HTTP client follows.
	MaxRedirects = 3
	// MaxBodyBytes bounds every metadata, registration and token response.
	MaxBodyBytes = 1 << 20
)

// Credentials are a client registered in advance with an authorization
// server.
type Credentials struct {
	ClientID     string
	ClientSecret string // "" for a public client
	// Issuer is the authorization server the client is registered with;
	// the credentials are never sent to another. "" accepts any.
	Issuer string
}

// Config tells the transport who the client is and how far to go.
type Config struct {
	// Client is a pre-registered client, preferred to any registration.
	Client *Credentials
	// ClientMetadataURL is the HTTPS URL of the client's Client ID
	// Metadata Document, used as client_id when the authorization server
	// advertises client_id_metadata_document_supported.
	ClientMetadataURL string
	// ClientName is the client_name of Dynamic Client Registration.
	ClientName string
	// RedirectURL is the redirect_uri of the authorization requests.
	RedirectURL string
	// Grant selects the flow; ClientCredentials needs Client.
	Grant Grant
	// Authorize shows authURL to the user and returns the URL the
	// authorization server redirected back to. nil: see the package doc.
	Authorize func(ctx context.Context, authURL string) (redirectURL string, err error)
	// HTTPClient talks to the metadata endpoints and the authorization
	// server. nil: a client with DefaultTimeout that follows MaxRedirects
	// redirects, each to an allowed URL.
	HTTPClient *http.Client
	// MaxAuthorizations bounds the authorizations (and step-ups) one
	// request may trigger.
	MaxAuthorizations int
	// Store keeps the client registration and tokens beyond the
	// Transport, under the URL of the first request it sends (the MCP
	// server's): a Transport with the same Store starts with them. A
	// Store that fails to load or save fails the request. nil: they last
	// as long as the Transport.
	Store Store
}

func (c *Config) redirectURL() string {
	if c.RedirectURL != "" {
		return c.RedirectURL
	}
	return DefaultRedirectURL
}

func (c *Config) clientName() string {
	if c.ClientName != "" {
		return c.ClientName
	}
	return DefaultClientName
}

func (c *Config) maxAuthorizations() int {
	if c.MaxAuthorizations > 0 {
		return c.MaxAuthorizations
	}
	return DefaultMaxAuthorizations
}
