package oauth

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fixture is an MCP server at /mcp and its authorization server, in one
// httptest server on 127.0.0.1; the knobs are set before the first request.
type fixture struct {
	srv *httptest.Server

	asPath         string   // the issuer's path ("" for the origin)
	metaLoc        string   // "oauth" (default), "oidc" or "oidc-suffix"
	prmLoc         string   // "header" (default), "inserted" or "root"
	prmResource    string   // "": the server's URL
	prmScopes      []string // scopes_supported of the resource
	issuer         string   // "": the real one
	iss            string   // iss in the redirect: "correct" (default), "omit", "wrong", "slash"
	issAdvertised  bool
	pkce           []string // nil: S256
	authMethods    []string // token_endpoint_auth_methods_supported
	asScopes       []string
	cimd, noDCR    bool
	challengeScope string // scope of the 401 challenge
	needScope      string // a scope without which the server answers 403
	withheld       string // a scope the AS never grants
	refresh        bool   // issue refresh tokens
	pad            int    // bytes of padding in the AS metadata

	mu            sync.Mutex
	paths         []string
	authQueries   []url.Values
	tokenForms    []url.Values
	tokenAuth     []string
	registrations []map[string]any
	bodies        []string
	tokens        map[string][]string // valid access token → scopes
	n             int
}

func newFixture(t *testing.T, knobs func(*fixture)) *fixture {
	f := &fixture{tokens: map[string][]string{}}
	if knobs != nil {
		knobs(f)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) issuerURL() string { return f.srv.URL + f.asPath }

func (f *fixture) prmPath() string {
	switch f.prmLoc {
	case "inserted":
		return "/.well-known/oauth-protected-resource/mcp"
	case "root":
		return "/.well-known/oauth-protected-resource"
	}
	return "/prm.json"
}

func (f *fixture) metaPath() string {
	switch f.metaLoc {
	case "oidc":
		return "/.well-known/openid-configuration" + f.asPath
	case "oidc-suffix":
		return f.asPath + "/.well-known/openid-configuration"
	case "none":
		return "/nowhere"
	}
	return "/.well-known/oauth-authorization-server" + f.asPath
}

func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paths = append(f.paths, r.URL.Path)
	switch r.URL.Path {
	case "/mcp":
		f.serveMCP(w, r)
	case f.prmPath():
		resource := f.prmResource
		if resource == "" {
			resource = f.srv.URL + "/mcp"
		}
		writeJSON(w, map[string]any{"resource": resource, "authorization_servers": []string{f.issuerURL()},
			"scopes_supported": f.prmScopes})
	case f.metaPath():
		f.serveMetadata(w)
	case f.asPath + "/authorize":
		f.serveAuthorize(w, r)
	case f.asPath + "/token":
		f.serveToken(w, r)
	case f.asPath + "/register":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.registrations = append(f.registrations, body)
		writeJSON(w, map[string]any{"client_id": "dcr-client", "client_secret": "dcr-secret"})
	default:
		http.NotFound(w, r)
	}
}

func (f *fixture) serveMCP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.bodies = append(f.bodies, string(b))
	scopes, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	challenge := "Bearer "
	if f.prmLoc == "" || f.prmLoc == "header" {
		challenge += fmt.Sprintf(`resource_metadata="%s%s", `, f.srv.URL, f.prmPath())
	}
	switch {
	case !ok:
		if f.challengeScope != "" {
			challenge += fmt.Sprintf(`scope="%s", `, f.challengeScope)
		}
		w.Header().Set("WWW-Authenticate", challenge+`error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
	case f.needScope != "" && !slices.Contains(scopes, f.needScope):
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`%sscope="%s", error="insufficient_scope"`, challenge, f.needScope))
		w.WriteHeader(http.StatusForbidden)
	default:
		_, _ = io.WriteString(w, "ok")
	}
}

func (f *fixture) serveMetadata(w http.ResponseWriter) {
	issuer, base := f.issuer, f.issuerURL()
	if issuer == "" {
		issuer = base
	}
	m := map[string]any{"issuer": issuer, "authorization_endpoint": base + "/authorize",
		"token_endpoint": base + "/token", "code_challenge_methods_supported": []string{"S256"},
		"authorization_response_iss_parameter_supported": f.issAdvertised,
		"client_id_metadata_document_supported":          f.cimd, "pad": strings.Repeat("x", f.pad)}
	if f.pkce != nil {
		m["code_challenge_methods_supported"] = f.pkce
	}
	if !f.noDCR {
		m["registration_endpoint"] = base + "/register"
	}
	if f.authMethods != nil {
		m["token_endpoint_auth_methods_supported"] = f.authMethods
	}
	if f.asScopes != nil {
		m["scopes_supported"] = f.asScopes
	}
	writeJSON(w, m)
}

func (f *fixture) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.authQueries = append(f.authQueries, q)
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := url.Values{"code": {"code-1"}, "state": {q.Get("state")}}
	switch f.iss {
	case "", "correct":
		v.Set("iss", f.issuerURL())
	case "wrong":
		v.Set("iss", "https://evil.example")
	case "slash":
		v.Set("iss", f.issuerURL()+"/")
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (f *fixture) serveToken(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.tokenForms = append(f.tokenForms, r.PostForm)
	f.tokenAuth = append(f.tokenAuth, r.Header.Get("Authorization"))
	if r.PostForm.Get("grant_type") == "refresh_token" && !strings.HasPrefix(r.PostForm.Get("refresh_token"), "ref-") {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]string{"error": "invalid_grant"})
		return
	}
	f.n++
	tok := fmt.Sprintf("tok-%d", f.n)
	scope := r.PostForm.Get("scope")
	if len(f.authQueries) > 0 {
		scope = f.authQueries[len(f.authQueries)-1].Get("scope")
	}
	f.tokens[tok] = slices.DeleteFunc(strings.Fields(scope), func(s string) bool { return s == f.withheld })
	resp := map[string]any{"access_token": tok, "token_type": "bearer", "expires_in": 3600}
	if f.refresh {
		resp["refresh_token"] = fmt.Sprintf("ref-%d", f.n)
	}
	writeJSON(w, resp)
}

// revoke makes the server refuse every token issued so far.
func (f *fixture) revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.tokens)
}

// record returns a copy of what the fixture saw, under its lock.
func record[T any](f *fixture, of func(*fixture) T) T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return of(f)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// call posts body to the fixture's MCP endpoint through an OAuth
// transport and returns the status.
func (f *fixture) call(tr *Transport, body string) (int, error) {
	resp, err := (&http.Client{Transport: tr}).Post(f.srv.URL+"/mcp", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
