package oauth

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBearerParams(t *testing.T) {
	tests := []struct {
		header []string
		want   map[string]string
	}{
		{[]string{`Bearer resource_metadata="https://x/prm", scope="a b"`},
			map[string]string{"resource_metadata": "https://x/prm", "scope": "a b"}},
		{[]string{`Basic realm="r"`, `bearer error=insufficient_scope,scope="q\"x"`},
			map[string]string{"error": "insufficient_scope", "scope": `q"x`}},
		{[]string{`Bearer realm="r", DPoP algs="ES256"`}, map[string]string{"realm": "r"}},
		{[]string{`Bearer`}, map[string]string{}},
		{[]string{`Basic realm="r"`}, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, bearerParams(tt.header), tt.header)
	}
}

func TestChallengeOf(t *testing.T) {
	tests := []struct {
		status int
		header string
		ok     bool
		stepUp bool
	}{
		{http.StatusUnauthorized, "", true, false},
		{http.StatusForbidden, `Bearer error="insufficient_scope", scope="w"`, true, true},
		{http.StatusForbidden, `Bearer error="invalid_token"`, false, true},
		{http.StatusOK, "", false, false},
	}
	for _, tt := range tests {
		resp := &http.Response{StatusCode: tt.status, Header: http.Header{"Www-Authenticate": {tt.header}}}
		c, ok := challengeOf(resp)
		assert.Equal(t, tt.ok, ok, tt.header)
		assert.Equal(t, tt.stepUp, c.stepUp, tt.header)
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://as.example/token", true},
		{"http://localhost:9000/token", true},
		{"http://127.0.0.1/token", true},
		{"http://[::1]:80/token", true},
		{"http://as.example/token", false},
		{"ftp://as.example/", false},
		{"/relative", false},
		{"https:///nohost", false},
	}
	for _, tt := range tests {
		_, err := checkURL(tt.url)
		if tt.ok {
			assert.NoError(t, err, tt.url)
		} else {
			assert.ErrorIs(t, err, ErrInsecureURL, tt.url)
		}
	}
}

func TestCovers(t *testing.T) {
	server := mustParse(t, "http://127.0.0.1:8080/api/mcp")
	for resource, want := range map[string]bool{
		"http://127.0.0.1:8080/api/mcp":  true,
		"http://127.0.0.1:8080/api":      true,
		"http://127.0.0.1:8080":          true,
		"http://127.0.0.1:8080/ap":       false,
		"http://127.0.0.1:8081/api/mcp":  false,
		"https://127.0.0.1:8080/api/mcp": false,
		"http://127.0.0.1:8080/api#frag": false,
	} {
		assert.Equal(t, want, covers(resource, server), resource)
	}
}

func TestRedirectLimit(t *testing.T) {
	hc := defaultHTTPClient()
	var via []*http.Request
	for range MaxRedirects {
		via = append(via, &http.Request{})
	}
	next := &http.Request{URL: mustParse(t, "https://as.example/")}
	assert.NoError(t, hc.CheckRedirect(next, via))
	assert.Error(t, hc.CheckRedirect(next, append(via, &http.Request{})))
	next.URL = mustParse(t, "http://as.example/")
	assert.ErrorIs(t, hc.CheckRedirect(next, via[:1]), ErrInsecureURL)
}

func TestApplicationType(t *testing.T) {
	assert.Equal(t, "native", applicationType("http://127.0.0.1:3000/cb"))
	assert.Equal(t, "native", applicationType("com.example.app:/cb"))
	assert.Equal(t, "web", applicationType("https://app.example/cb"))
}

func mustParse(t *testing.T, raw string) *url.URL {
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

func TestResponseErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  ResponseError
		want string
	}{
		{ResponseError{Endpoint: "token", Status: 400, Code: "invalid_grant", Description: "expired"},
			"oauth: token endpoint: invalid_grant (HTTP 400): expired"},
		{ResponseError{Endpoint: "authorization", Code: "access_denied"}, "oauth: authorization endpoint: access_denied"},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}
