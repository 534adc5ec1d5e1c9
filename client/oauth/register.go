package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
)

// Token endpoint authentication methods (RFC 7591 §2).
const (
	authBasic = "client_secret_basic"
	authPost  = "client_secret_post"
	authNone  = "none"
)

// client is the transport's identity at one authorization server.
type client struct {
	id, secret string
	method     string // how it authenticates at the token endpoint
}

// register obtains a client at the authorization server issuer, in the
// spec's order: pre-registered, Client ID Metadata Document, Dynamic
// Client Registration.
func (t *Transport) register(ctx context.Context, m *serverMetadata, issuer string) (client, error) {
	cfg := &t.Config
	switch {
	case cfg.Client != nil && (cfg.Client.Issuer == "" || cfg.Client.Issuer == issuer):
		secret := cfg.Client.ClientSecret
		return client{id: cfg.Client.ClientID, secret: secret, method: authMethod(m, secret != "")}, nil
	case cfg.ClientMetadataURL != "" && m.ClientIDMetadataDocumentSupported:
		return client{id: cfg.ClientMetadataURL, method: authNone}, nil
	case m.RegistrationEndpoint != "" && cfg.Grant == AuthorizationCode:
		return t.registerDynamically(ctx, m)
	}
	return client{}, fmt.Errorf("%w at %s", ErrNoRegistration, issuer)
}

// registerDynamically registers by RFC 7591. application_type, which the
// 2026-07-28 revision requires, is ignored by older servers.
func (t *Transport) registerDynamically(ctx context.Context, m *serverMetadata) (client, error) {
	redirect := t.Config.redirectURL()
	body, err := json.Marshal(map[string]any{
		"client_name":                t.Config.clientName(),
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": authMethod(m, true),
		"application_type":           applicationType(redirect),
	})
	if err != nil {
		return client{}, err
	}
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := t.post(ctx, "registration", m.RegistrationEndpoint, "application/json", bytes.NewReader(body), nil, &r); err != nil {
		return client{}, err
	}
	if r.ClientID == "" {
		return client{}, fmt.Errorf("oauth: registration returned no client_id")
	}
	if r.Method == "" {
		r.Method = authMethod(m, r.ClientSecret != "")
	}
	return client{id: r.ClientID, secret: r.ClientSecret, method: r.Method}, nil
}

// authMethod picks the token endpoint authentication the server supports:
// a secret goes by Basic, else by POST; without one, or when the server
// takes neither, the client is public. RFC 8414's default is Basic.
func authMethod(m *serverMetadata, hasSecret bool) string {
	supported := m.TokenEndpointAuthMethodsSupported
	if len(supported) == 0 {
		supported = []string{authBasic}
	}
	for _, method := range []string{authBasic, authPost} {
		if hasSecret && slices.Contains(supported, method) {
			return method
		}
	}
	return authNone
}

// applicationType is "native" for redirects to the device itself, "web"
// for the others (OpenID Connect Registration §2).
func applicationType(redirect string) string {
	u, err := url.Parse(redirect)
	if err == nil && (u.Scheme != "http" && u.Scheme != "https" || isLoopback(u.Hostname())) {
		return "native"
	}
	return "web"
}
