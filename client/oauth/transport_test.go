package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiscoveryVariants(t *testing.T) {
	tests := []struct {
		name    string
		knobs   func(*fixture)
		fetched []string // the metadata paths asked, in order
	}{
		{"challenge names the metadata", nil,
			[]string{"/prm.json", "/.well-known/oauth-authorization-server"}},
		{"path-inserted resource metadata", func(f *fixture) { f.prmLoc = "inserted" },
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"}},
		{"root resource metadata", func(f *fixture) { f.prmLoc, f.prmResource = "root", "" },
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
				"/.well-known/oauth-authorization-server"}},
		{"OpenID discovery", func(f *fixture) { f.metaLoc = "oidc" },
			[]string{"/prm.json", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"issuer with a path, RFC 8414", func(f *fixture) { f.asPath = "/tenant" },
			[]string{"/prm.json", "/.well-known/oauth-authorization-server/tenant"}},
		{"issuer with a path, OpenID inserted", func(f *fixture) { f.asPath, f.metaLoc = "/tenant", "oidc" },
			[]string{"/prm.json", "/.well-known/oauth-authorization-server/tenant", "/.well-known/openid-configuration/tenant"}},
		{"issuer with a path, OpenID appended", func(f *fixture) { f.asPath, f.metaLoc = "/tenant", "oidc-suffix" },
			[]string{"/prm.json", "/.well-known/oauth-authorization-server/tenant",
				"/.well-known/openid-configuration/tenant", "/tenant/.well-known/openid-configuration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.knobs)
			status, err := f.call(&Transport{}, "{}")
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, status)
			var fetched []string
			for _, p := range record(f, func(f *fixture) []string { return f.paths }) {
				if strings.Contains(p, ".well-known") || p == "/prm.json" {
					fetched = append(fetched, p)
				}
			}
			assert.Equal(t, tt.fetched, fetched)
		})
	}
}

func TestAuthorizationRequest(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.call(&Transport{}, "{}")
	require.NoError(t, err)
	q := record(f, func(f *fixture) url.Values { return f.authQueries[0] })
	form := record(f, func(f *fixture) url.Values { return f.tokenForms[0] })

	sum := sha256.Sum256([]byte(form.Get("code_verifier")))
	assert.Equal(t, base64.RawURLEncoding.EncodeToString(sum[:]), q.Get("code_challenge"))
	assert.Equal(t, "S256", q.Get("code_challenge_method"))
	assert.NotEmpty(t, q.Get("state"))
	assert.Equal(t, f.srv.URL+"/mcp", q.Get("resource"))
	assert.Equal(t, f.srv.URL+"/mcp", form.Get("resource"))
	assert.Equal(t, "authorization_code", form.Get("grant_type"))
	assert.Equal(t, "code-1", form.Get("code"))
	assert.Equal(t, DefaultRedirectURL, form.Get("redirect_uri"))
}

func TestScopeSelection(t *testing.T) {
	tests := []struct {
		name  string
		knobs func(*fixture)
		scope string
	}{
		{"from the challenge", func(f *fixture) { f.challengeScope, f.prmScopes = "a b", []string{"c"} }, "a b"},
		{"from scopes_supported", func(f *fixture) { f.prmScopes = []string{"c", "d"} }, "c d"},
		{"none defined", nil, ""},
		{"offline_access when offered", func(f *fixture) {
			f.challengeScope, f.asScopes = "a", []string{"a", "offline_access"}
		}, "a offline_access"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.knobs)
			_, err := f.call(&Transport{}, "{}")
			require.NoError(t, err)
			q := record(f, func(f *fixture) url.Values { return f.authQueries[0] })
			assert.Equal(t, tt.scope, q.Get("scope"))
		})
	}
}

func TestIssuerChecks(t *testing.T) {
	tests := []struct {
		name       string
		iss        string
		advertised bool
		err        error
	}{
		{"advertised and correct", "correct", true, nil},
		{"neither advertised nor sent", "omit", false, nil},
		{"advertised but missing", "omit", true, ErrIssuerMismatch},
		{"wrong", "wrong", true, ErrIssuerMismatch},
		{"wrong though not advertised", "wrong", false, ErrIssuerMismatch},
		{"not normalized", "slash", true, ErrIssuerMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(f *fixture) { f.iss, f.issAdvertised = tt.iss, tt.advertised })
			_, err := f.call(&Transport{}, "{}")
			if tt.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.err)
			assert.Empty(t, record(f, func(f *fixture) []url.Values { return f.tokenForms }), "no code redeemed")
		})
	}
}

func TestRefusedMetadata(t *testing.T) {
	tests := []struct {
		name  string
		knobs func(*fixture)
		err   error
	}{
		{"metadata of another issuer", func(f *fixture) { f.issuer = "https://attacker.example" }, ErrIssuerMismatch},
		{"resource of another server", func(f *fixture) { f.prmResource = "https://evil.example/mcp" }, ErrResourceMismatch},
		{"no PKCE", func(f *fixture) { f.pkce = []string{"plain"} }, ErrNoPKCE},
		{"no registration", func(f *fixture) { f.noDCR = true }, ErrNoRegistration},
		{"metadata too large", func(f *fixture) { f.pad = MaxBodyBytes }, ErrTooLarge},
		{"no metadata", func(f *fixture) { f.prmLoc = "inserted"; f.asPath = "/elsewhere"; f.metaLoc = "none" }, ErrNoMetadata},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.knobs)
			_, err := f.call(&Transport{}, "{}")
			require.ErrorIs(t, err, tt.err)
			assert.Empty(t, record(f, func(f *fixture) []url.Values { return f.authQueries }), "never authorized")
		})
	}
}

func TestRegistration(t *testing.T) {
	tests := []struct {
		name     string
		knobs    func(*fixture)
		config   func(*fixture) Config
		clientID string
		dcr      bool
	}{
		{"pre-registered", nil, func(f *fixture) Config {
			return Config{Client: &Credentials{ClientID: "pre", ClientSecret: "s", Issuer: f.issuerURL()}}
		}, "pre", false},
		{"pre-registered elsewhere", nil, func(*fixture) Config {
			return Config{Client: &Credentials{ClientID: "pre", Issuer: "https://other.example"}}
		}, "dcr-client", true},
		{"client ID metadata document", func(f *fixture) { f.cimd = true }, func(*fixture) Config {
			return Config{ClientMetadataURL: "https://client.example/meta.json"}
		}, "https://client.example/meta.json", false},
		{"metadata document not supported", nil, func(*fixture) Config {
			return Config{ClientMetadataURL: "https://client.example/meta.json"}
		}, "dcr-client", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.knobs)
			_, err := f.call(&Transport{Config: tt.config(f)}, "{}")
			require.NoError(t, err)
			q := record(f, func(f *fixture) url.Values { return f.authQueries[0] })
			assert.Equal(t, tt.clientID, q.Get("client_id"))
			regs := record(f, func(f *fixture) []map[string]any { return f.registrations })
			if !tt.dcr {
				assert.Empty(t, regs)
				return
			}
			require.Len(t, regs, 1)
			assert.Equal(t, "native", regs[0]["application_type"])
			assert.Equal(t, []any{"authorization_code", "refresh_token"}, regs[0]["grant_types"])
		})
	}
}

func TestTokenEndpointAuthMethods(t *testing.T) {
	tests := []struct {
		methods    []string
		header     bool
		bodySecret bool
	}{
		{nil, true, false}, // RFC 8414's default
		{[]string{"client_secret_basic"}, true, false},
		{[]string{"client_secret_post"}, false, true},
		{[]string{"none"}, false, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.methods, ","), func(t *testing.T) {
			f := newFixture(t, func(f *fixture) { f.authMethods = tt.methods })
			_, err := f.call(&Transport{}, "{}")
			require.NoError(t, err)
			form := record(f, func(f *fixture) url.Values { return f.tokenForms[0] })
			auth := record(f, func(f *fixture) string { return f.tokenAuth[0] })
			if tt.header {
				assert.Equal(t, "Basic "+basic("dcr-client", "dcr-secret"), auth)
			} else {
				assert.Empty(t, auth)
				assert.Equal(t, "dcr-client", form.Get("client_id"))
			}
			assert.Equal(t, tt.bodySecret, form.Has("client_secret"))
		})
	}
}

func TestStepUp(t *testing.T) {
	f := newFixture(t, func(f *fixture) { f.challengeScope, f.needScope = "read", "write" })
	status, err := f.call(&Transport{}, "{}")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	qs := record(f, func(f *fixture) []url.Values { return f.authQueries })
	require.Len(t, qs, 2)
	assert.Equal(t, "read", qs[0].Get("scope"))
	assert.Equal(t, "read write", qs[1].Get("scope"), "the union of held and challenged scopes")
}

func TestAuthorizationLimit(t *testing.T) {
	f := newFixture(t, func(f *fixture) { f.needScope, f.withheld = "admin", "admin" })
	_, err := f.call(&Transport{Config: Config{MaxAuthorizations: 2}}, "{}")
	require.ErrorIs(t, err, ErrTooManyAuthorizations)
	assert.Len(t, record(f, func(f *fixture) []url.Values { return f.authQueries }), 2)
}

func TestRefresh(t *testing.T) {
	f := newFixture(t, func(f *fixture) { f.refresh = true })
	tr := &Transport{}
	_, err := f.call(tr, "{}")
	require.NoError(t, err)
	f.revoke()
	form := refreshedThrough(t, f, tr)
	assert.Equal(t, f.srv.URL+"/mcp", form.Get("resource"))
	assert.Len(t, record(f, func(f *fixture) []url.Values { return f.authQueries }), 1, "no second authorization")
}

func TestBodyReplayed(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.call(&Transport{}, `{"jsonrpc":"2.0"}`)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0"}`}, record(f, func(f *fixture) []string { return f.bodies }))
}

func TestAuthorizeHook(t *testing.T) {
	f := newFixture(t, nil)
	denied := errors.New("user closed the browser")
	tr := &Transport{Config: Config{Authorize: func(_ context.Context, authURL string) (string, error) {
		assert.True(t, strings.HasPrefix(authURL, f.srv.URL+"/authorize?"))
		return "", denied
	}}}
	_, err := f.call(tr, "{}")
	require.ErrorIs(t, err, denied)
}

func TestClientCredentials(t *testing.T) {
	f := newFixture(t, func(f *fixture) { f.prmScopes = []string{"m2m"} })
	tr := &Transport{Config: Config{Grant: ClientCredentials, Client: &Credentials{ClientID: "svc", ClientSecret: "pw"}}}
	status, err := f.call(tr, "{}")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	form := record(f, func(f *fixture) url.Values { return f.tokenForms[0] })
	assert.Equal(t, "client_credentials", form.Get("grant_type"))
	assert.Equal(t, "m2m", form.Get("scope"))
	assert.Empty(t, record(f, func(f *fixture) []url.Values { return f.authQueries }))
}

// refreshedThrough calls the fixture, whose first token was revoked,
// through tr, checks that the token was refreshed with the first refresh
// token, and returns the refresh's form.
func refreshedThrough(t *testing.T, f *fixture, tr *Transport) url.Values {
	t.Helper()
	status, err := f.call(tr, "{}")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	forms := record(f, func(f *fixture) []url.Values { return f.tokenForms })
	require.Len(t, forms, 2)
	assert.Equal(t, "refresh_token", forms[1].Get("grant_type"))
	assert.Equal(t, "ref-1", forms[1].Get("refresh_token"))
	return forms[1]
}
