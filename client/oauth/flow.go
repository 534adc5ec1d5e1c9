package oauth

import (
	"context"
	"net/url"
	"slices"
)

// authorize obtains a token for the server after it refused rejected
// with c: discovery, registration when the issuer has no client of ours
// yet, then the grant.
func (t *Transport) authorize(ctx context.Context, server *url.URL, c challenge, rejected string) error {
	t.flow.Lock()
	defer t.flow.Unlock()
	if t.renewed(rejected) {
		return nil
	}
	prm, err := t.discoverResource(ctx, server, c)
	if err != nil {
		return err
	}
	issuer := prm.AuthorizationServers[0]
	m, err := t.discoverServer(ctx, issuer)
	if err != nil {
		return err
	}
	g := t.grantOf(issuer)
	if g.client.id == "" {
		if g.client, err = t.register(ctx, m, issuer); err != nil {
			return err
		}
	}
	g.meta, g.resource = m, prm.Resource
	g.scopes = scopes(c, prm, m, g.scopes, t.Config.Grant == AuthorizationCode)
	if g.token, err = t.obtain(ctx, issuer, g); err != nil {
		return err
	}
	t.save(issuer, g)
	return t.persist(ctx)
}

// obtain runs the configured grant.
func (t *Transport) obtain(ctx context.Context, issuer string, g grant) (*token, error) {
	if t.Config.Grant == ClientCredentials {
		return t.requestToken(ctx, g.meta, g.client, credentialsForm(g.resource, g.scopes))
	}
	code, verifier, err := t.authorizeCode(ctx, g.meta, issuer, g.client, g.resource, g.scopes)
	if err != nil {
		return nil, err
	}
	return t.requestToken(ctx, g.meta, g.client, codeForm(code, verifier, t.Config.redirectURL(), g.resource))
}

// refresh renews the rejected token with its refresh token; false when
// there is none or the server refused it, and a full authorization is due.
// A grant restored from the Store has no server metadata yet: refreshing
// it discovers the issuer's first.
func (t *Transport) refresh(ctx context.Context, rejected string) (bool, error) {
	t.flow.Lock()
	defer t.flow.Unlock()
	if t.renewed(rejected) {
		return true, nil
	}
	issuer, g := t.current()
	if g.token == nil || g.token.refresh == "" {
		return false, nil
	}
	if g.meta == nil {
		m, err := t.discoverServer(ctx, issuer)
		if err != nil {
			return false, nil
		}
		g.meta = m
	}
	tok, err := t.requestToken(ctx, g.meta, g.client, refreshForm(g.token.refresh, g.resource))
	if err != nil {
		return false, nil
	}
	if tok.refresh == "" { // RFC 6749 §6: the old one stays valid
		tok.refresh = g.token.refresh
	}
	g.token = tok
	t.save(issuer, g)
	return true, t.persist(ctx)
}

// scopes applies the spec's scope selection: the challenge's scope, else
// the resource's scopes_supported, else none; a step-up keeps the scopes
// already held. offline_access is added when the authorization server
// offers it and the grant can use a refresh token (SEP-2207).
func scopes(c challenge, prm *resourceMetadata, m *serverMetadata, held []string, refreshable bool) []string {
	out := c.scopes
	if len(out) == 0 {
		out = prm.ScopesSupported
	}
	if c.stepUp {
		out = append(slices.Clone(held), out...)
	}
	if len(out) > 0 && refreshable && slices.Contains(m.ScopesSupported, "offline_access") {
		out = append(slices.Clone(out), "offline_access")
	}
	return dedupe(out)
}

// dedupe drops repeated scopes, keeping the first of each.
func dedupe(scopes []string) []string {
	var out []string
	for _, s := range scopes {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
