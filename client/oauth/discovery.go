package oauth

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// resourceMetadata is RFC 9728 protected-resource metadata.
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is RFC 8414 authorization-server metadata (or its
// OpenID Connect Discovery equivalent).
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
}

// discoverResource finds the metadata of server: at the challenge's
// resource_metadata, else at the path-inserted then the root well-known
// location. Its resource must cover server.
func (t *Transport) discoverResource(ctx context.Context, server *url.URL, c challenge) (*resourceMetadata, error) {
	var locations []string
	switch {
	case c.resourceMetadata != "":
		locations = []string{c.resourceMetadata}
	case hasPath(server):
		locations = []string{wellKnown(server, "oauth-protected-resource"),
			wellKnown(&url.URL{Scheme: server.Scheme, Host: server.Host}, "oauth-protected-resource")}
	default:
		locations = []string{wellKnown(server, "oauth-protected-resource")}
	}
	var m resourceMetadata
	if err := t.first(ctx, locations, &m); err != nil {
		return nil, fmt.Errorf("protected resource metadata: %w", err)
	}
	if !covers(m.Resource, server) {
		return nil, fmt.Errorf("%w: %q for %s", ErrResourceMismatch, m.Resource, server.Redacted())
	}
	if len(m.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("%w: no authorization_servers in the protected resource metadata", ErrNoMetadata)
	}
	return &m, nil
}

// discoverServer finds the metadata of the authorization server issuer
// in the spec's order, and checks that it is issuer's and offers PKCE.
func (t *Transport) discoverServer(ctx context.Context, issuer string) (*serverMetadata, error) {
	u, err := checkURL(issuer)
	if err != nil {
		return nil, err
	}
	locations := []string{wellKnown(u, "oauth-authorization-server"), wellKnown(u, "openid-configuration")}
	if hasPath(u) {
		locations = append(locations, u.Scheme+"://"+u.Host+trimmedPath(u)+"/.well-known/openid-configuration")
	}
	var m serverMetadata
	if err := t.first(ctx, locations, &m); err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if m.Issuer != issuer { // RFC 8414 §3.3: identical, no normalization
		return nil, fmt.Errorf("%w: metadata of %q names %q", ErrIssuerMismatch, issuer, m.Issuer)
	}
	if !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return nil, ErrNoPKCE
	}
	return &m, nil
}

// first decodes the first of locations that exists into v.
func (t *Transport) first(ctx context.Context, locations []string, v any) error {
	for _, loc := range locations {
		found, err := t.get(ctx, loc, v)
		if err != nil || found {
			return err
		}
	}
	return fmt.Errorf("%w at %s", ErrNoMetadata, strings.Join(locations, ", "))
}

// wellKnown is u's well-known URL for suffix, u's path appended.
func wellKnown(u *url.URL, suffix string) string {
	return u.Scheme + "://" + u.Host + "/.well-known/" + suffix + trimmedPath(u)
}

func trimmedPath(u *url.URL) string { return strings.TrimSuffix(u.EscapedPath(), "/") }

func hasPath(u *url.URL) bool { return trimmedPath(u) != "" }

// covers reports whether the resource identifier resource names server:
// the same origin, and a path that is server's or a parent of it.
func covers(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || !strings.EqualFold(r.Scheme, server.Scheme) ||
		!strings.EqualFold(r.Host, server.Host) {
		return false
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(server.Path, "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}
