// Package oauth is the OAuth 2.1 side of polymcp's client: an
// http.RoundTripper that authorizes requests to an MCP server as the MCP
// authorization spec (2025-06-18 to 2026-07-28) asks.
//
// Plug a *Transport into the MCP conn's HTTP client, e.g.
//
//	hc := &http.Client{Transport: &oauth.Transport{Config: cfg}}
//	conn, err := streamhttp.Dial(url, &streamhttp.ClientOptions{HTTPClient: hc})
//
// On a 401 from the server the transport reads the WWW-Authenticate
// challenge, fetches the protected-resource metadata (RFC 9728) and the
// authorization server's metadata (RFC 8414 or OpenID discovery), obtains
// client credentials (pre-registered, a Client ID Metadata Document URL,
// or Dynamic Client Registration), runs the authorization-code flow with
// PKCE S256, state, the resource indicator (RFC 8707) and the iss check of
// RFC 9207, and sends the request again with the bearer token. A 403
// insufficient_scope asks for the union of the scopes held and challenged.
// Client registrations and tokens are kept per issuer and never presented
// to another authorization server. They last as long as the Transport,
// unless Config.Store keeps them: with a FileStore, the next process to
// connect to the server starts with the stored token, refreshes it when
// the server refuses it, and asks the user again only when that fails.
//
// Config.Authorize is where the user consents: a real application opens
// authURL in a browser and returns the URL its redirect endpoint received.
// The default follows no browser: it GETs authURL and takes the Location
// of the redirect, which suits only authorization servers that answer at
// once (test servers, the conformance runner's).
//
// Every URL of the flow must be HTTPS, except on loopback hosts
// (localhost, 127.0.0.0/8, ::1).
package oauth
