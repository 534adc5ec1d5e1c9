package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A second Transport with the Store of a first sends the stored token
// from its first request: no 401, no registration, no authorization.
func TestStoreReusesAuthorization(t *testing.T) {
	f := newFixture(t, nil)
	store := &MemoryStore{}
	_, err := f.call(&Transport{Config: Config{Store: store}}, "{}")
	require.NoError(t, err)
	seen := record(f, func(f *fixture) int { return len(f.paths) })

	status, err := f.call(&Transport{Config: Config{Store: store}}, "{}")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, []string{"/mcp"}, record(f, func(f *fixture) []string { return f.paths[seen:] }),
		"the stored token went with the first request")
	assert.Len(t, record(f, func(f *fixture) []map[string]any { return f.registrations }), 1)
	assert.Len(t, record(f, func(f *fixture) []url.Values { return f.authQueries }), 1)

	raw, err := store.Load(context.Background(), f.srv.URL+"/mcp")
	require.NoError(t, err)
	var s storedGrant
	require.NoError(t, json.Unmarshal(raw, &s))
	assert.Equal(t, storedGrant{Version: 1, Grant: "authorization_code", Issuer: f.issuerURL(), Resource: f.srv.URL + "/mcp",
		ClientID: "dcr-client", ClientSecret: "dcr-secret", ClientAuth: authBasic, AccessToken: "tok-1"}, s)
}

// A stored token the server no longer takes is refreshed with the stored
// refresh token (the issuer's metadata discovered first), and the new
// tokens are stored.
func TestStoreRefreshes(t *testing.T) {
	f := newFixture(t, func(f *fixture) { f.refresh = true })
	store := &MemoryStore{}
	_, err := f.call(&Transport{Config: Config{Store: store}}, "{}")
	require.NoError(t, err)
	f.revoke()

	refreshedThrough(t, f, &Transport{Config: Config{Store: store}})
	assert.Equal(t, "dcr-client", clientOf(record(f, func(f *fixture) string { return f.tokenAuth[1] })),
		"the stored registration authenticates the refresh")
	assert.Len(t, record(f, func(f *fixture) []url.Values { return f.authQueries }), 1, "no second authorization")

	raw, err := store.Load(context.Background(), f.srv.URL+"/mcp")
	require.NoError(t, err)
	var s storedGrant
	require.NoError(t, json.Unmarshal(raw, &s))
	assert.Equal(t, "tok-2", s.AccessToken)
	assert.Equal(t, "ref-2", s.RefreshToken)
}

// clientOf returns the client id of a Basic Authorization header, "" for none.
func clientOf(header string) string {
	r := http.Request{Header: http.Header{"Authorization": {header}}}
	id, _, _ := r.BasicAuth()
	return id
}

// A stored grant is ignored when it was made for another pre-registered
// client or another grant type, and when it is not a grant at all.
func TestStoreIgnoresStaleGrants(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored storedGrant
	}{
		{"other client", storedGrant{Version: 1, Grant: "authorization_code", ClientID: "old", AccessToken: "x"}},
		{"other grant", storedGrant{Version: 1, Grant: "client_credentials", ClientID: "app", AccessToken: "x"}},
		{"other version", storedGrant{Version: 9, Grant: "authorization_code", ClientID: "app", AccessToken: "x"}},
		{"no token", storedGrant{Version: 1, Grant: "authorization_code", ClientID: "app"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			tc.stored.Issuer = f.issuerURL()
			raw, err := json.Marshal(tc.stored)
			require.NoError(t, err)
			store := &MemoryStore{}
			require.NoError(t, store.Save(context.Background(), f.srv.URL+"/mcp", raw))
			status, err := f.call(&Transport{Config: Config{Store: store, Client: &Credentials{ClientID: "app"}}}, "{}")
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, status)
			assert.Len(t, record(f, func(f *fixture) []url.Values { return f.authQueries }), 1)
			assert.Equal(t, "app", record(f, func(f *fixture) url.Values { return f.authQueries[0] }).Get("client_id"))
		})
	}
}

type failingStore struct{ load, save error }

func (s failingStore) Load(context.Context, string) ([]byte, error) { return nil, s.load }
func (s failingStore) Save(context.Context, string, []byte) error   { return s.save }

// A Store that fails fails the request, naming what it was doing.
func TestStoreErrors(t *testing.T) {
	f := newFixture(t, nil)
	broken := errors.New("disk on fire")
	_, err := f.call(&Transport{Config: Config{Store: failingStore{load: broken}}}, "{}")
	require.ErrorIs(t, err, broken)
	assert.ErrorContains(t, err, "loading the stored authorization of "+f.srv.URL+"/mcp")
	assert.Empty(t, record(f, func(f *fixture) []string { return f.paths }), "nothing sent")

	_, err = f.call(&Transport{Config: Config{Store: failingStore{save: broken}}}, "{}")
	require.ErrorIs(t, err, broken)
	assert.ErrorContains(t, err, "saving the authorization of")
}

func TestFileStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state", "tokens.json")
	s := &FileStore{Path: path}
	v, err := s.Load(ctx, "k")
	require.NoError(t, err)
	assert.Nil(t, v, "a missing file holds nothing")

	require.NoError(t, s.Save(ctx, "https://a.example/mcp", []byte(`{"n":1}`)))
	require.NoError(t, s.Save(ctx, "https://b.example/mcp", []byte(`{"n":2}`)))
	require.NoError(t, s.Save(ctx, "https://a.example/mcp", []byte(`{"n":3}`)))
	require.Error(t, s.Save(ctx, "k", []byte(`not json`)))

	other := &FileStore{Path: path} // as another process would read it
	v, err = other.Load(ctx, "https://a.example/mcp")
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":3}`, string(v))
	v, err = other.Load(ctx, "https://b.example/mcp")
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":2}`, string(v))

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	dir, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dir.Mode().Perm())
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")

	require.NoError(t, os.WriteFile(path, []byte("{garbage"), 0o600))
	_, err = other.Load(ctx, "k")
	assert.ErrorContains(t, err, path)
}

// Two processes' worth of Transports over one FileStore: the second
// authorizes nothing.
func TestFileStoreAcrossTransports(t *testing.T) {
	f := newFixture(t, nil)
	path := filepath.Join(t.TempDir(), "tokens.json")
	_, err := f.call(&Transport{Config: Config{Store: &FileStore{Path: path}}}, "{}")
	require.NoError(t, err)
	status, err := f.call(&Transport{Config: Config{Store: &FileStore{Path: path}}}, "{}")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.Len(t, record(f, func(f *fixture) []url.Values { return f.authQueries }), 1)
}

func TestStoreKey(t *testing.T) {
	u, err := url.Parse("HTTPS://user:pw@MCP.Example:8443/a/mcp?x=1#frag")
	require.NoError(t, err)
	assert.Equal(t, "https://mcp.example:8443/a/mcp", storeKey(u))
}
