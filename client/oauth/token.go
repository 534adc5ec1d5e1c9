package oauth

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// token is what the token endpoint granted.
type token struct{ access, refresh string }

// requestToken posts form to the token endpoint, authenticated as c.
func (t *Transport) requestToken(ctx context.Context, m *serverMetadata, c client, form url.Values) (*token, error) {
	h := http.Header{}
	switch c.method {
	case authBasic: // RFC 6749 §2.3.1: each part form-encoded first
		h.Set("Authorization", "Basic "+basic(url.QueryEscape(c.id), url.QueryEscape(c.secret)))
	case authPost:
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	default:
		form.Set("client_id", c.id)
	}
	var r struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
	}
	err := t.post(ctx, "token", m.TokenEndpoint, "application/x-www-form-urlencoded",
		strings.NewReader(form.Encode()), h, &r)
	switch {
	case err != nil:
		return nil, err
	case r.AccessToken == "":
		return nil, fmt.Errorf("oauth: token response without access_token")
	case !strings.EqualFold(r.TokenType, "Bearer"):
		return nil, fmt.Errorf("oauth: token type %q is not Bearer", r.TokenType)
	}
	return &token{access: r.AccessToken, refresh: r.RefreshToken}, nil
}

// basic is the credentials of an HTTP Basic header.
func basic(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}

func codeForm(code, verifier, redirect, resource string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"redirect_uri": {redirect}, "resource": {resource}}
}

func refreshForm(refresh, resource string) url.Values {
	return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "resource": {resource}}
}

func credentialsForm(resource string, scopes []string) url.Values {
	f := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}}
	if len(scopes) > 0 {
		f.Set("scope", strings.Join(scopes, " "))
	}
	return f
}
