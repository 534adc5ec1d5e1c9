package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// authorizeCode runs the front channel of the authorization-code flow and
// returns the code and its PKCE verifier.
func (t *Transport) authorizeCode(ctx context.Context, m *serverMetadata, issuer string, c client,
	resource string, scopes []string) (code, verifier string, err error) {
	u, err := checkURL(m.AuthorizationEndpoint)
	if err != nil {
		return "", "", err
	}
	verifier, state := randomString(), randomString()
	sum := sha256.Sum256([]byte(verifier))
	q := u.Query()
	q.Set("response_type", "code")
	q.Set("client_id", c.id)
	q.Set("redirect_uri", t.Config.redirectURL())
	q.Set("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:]))
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	q.Set("resource", resource)
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	u.RawQuery = q.Encode()
	authorize := t.Config.Authorize
	if authorize == nil {
		authorize = t.followRedirect
	}
	redirect, err := authorize(ctx, u.String())
	if err != nil {
		return "", "", fmt.Errorf("oauth: authorization: %w", err)
	}
	code, err = checkResponse(redirect, state, issuer, m.IssParameterSupported)
	return code, verifier, err
}

// checkResponse validates the authorization response in redirect (RFC
// 9207 first: an error from the wrong issuer is not acted on) and
// returns its code.
func checkResponse(redirect, state, issuer string, issPromised bool) (string, error) {
	u, err := url.Parse(redirect)
	if err != nil {
		return "", fmt.Errorf("oauth: authorization response: %w", err)
	}
	q := u.Query()
	switch iss, sent := q["iss"]; {
	case sent && (len(iss) != 1 || iss[0] != issuer):
		return "", fmt.Errorf("%w: authorization response from %q, expected %q", ErrIssuerMismatch, iss, issuer)
	case !sent && issPromised:
		return "", fmt.Errorf("%w: authorization response without the iss %q promised", ErrIssuerMismatch, issuer)
	}
	if q.Get("state") != state {
		return "", ErrStateMismatch
	}
	if e := q.Get("error"); e != "" {
		return "", &ResponseError{Endpoint: "authorization", Code: e, Description: q.Get("error_description")}
	}
	if q.Get("code") == "" {
		return "", fmt.Errorf("oauth: authorization response without a code")
	}
	return q.Get("code"), nil
}

// followRedirect is the default Config.Authorize: no user, the
// authorization server's first redirect is its answer.
func (t *Transport) followRedirect(ctx context.Context, authURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", err
	}
	hc := *t.httpClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if resp.StatusCode/100 != 3 || err != nil {
		return "", fmt.Errorf("the authorization endpoint answered HTTP %d without a redirect", resp.StatusCode)
	}
	return loc.String(), nil
}

// randomString is 256 random bits, base64url: a PKCE verifier or a state.
func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}
