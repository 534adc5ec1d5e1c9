package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A Store keeps what authorizing at a server obtained — the client
// registration and the tokens — beyond one Transport, so that the next
// connection to that server (in another process, with FileStore) starts
// with them and refreshes them, rather than asking the user again.
//
// Values hold secrets (access and refresh tokens, a registered client's
// secret): a Store must keep them from other users.
type Store interface {
	// Load returns the value Save last stored under key, or nil, nil
	// when there is none.
	Load(ctx context.Context, key string) ([]byte, error)
	// Save stores value, a JSON document, under key.
	Save(ctx context.Context, key string, value []byte) error
}

// storedGrant is the stored form of a grant, under the server's URL.
type storedGrant struct {
	Version      int      `json:"version"`
	Grant        string   `json:"grant"` // "authorization_code" or "client_credentials"
	Issuer       string   `json:"issuer"`
	Resource     string   `json:"resource"`
	Scopes       []string `json:"scopes,omitempty"`
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret,omitempty"`
	ClientAuth   string   `json:"client_auth"`
	AccessToken  string   `json:"access_token"`
	RefreshToken string   `json:"refresh_token,omitempty"`
}

const storedGrantVersion = 1

func (g Grant) String() string {
	if g == ClientCredentials {
		return "client_credentials"
	}
	return "authorization_code"
}

// storeKey is the key of server's grant: its URL without query, fragment
// or user information, the scheme and host in lower case.
func storeKey(server *url.URL) string {
	u := url.URL{Scheme: strings.ToLower(server.Scheme), Host: strings.ToLower(server.Host), Path: server.Path}
	return u.String()
}

// restore loads the stored grant of server, the first time the transport
// sends a request: every later save goes under the same key, whatever the
// URL of the request that asked for it (an HTTP+SSE server's message
// endpoint, say). A stored grant made for another client or grant type
// than the configured one is ignored.
func (t *Transport) restore(ctx context.Context, server *url.URL) error {
	if t.Config.Store == nil {
		return nil
	}
	t.flow.Lock()
	defer t.flow.Unlock()
	if t.storeKey != "" {
		return nil
	}
	key := storeKey(server)
	raw, err := t.Config.Store.Load(ctx, key)
	if err != nil {
		return fmt.Errorf("oauth: loading the stored authorization of %s: %w", key, err)
	}
	t.storeKey = key
	if raw == nil {
		return nil
	}
	var s storedGrant
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("oauth: the stored authorization of %s: %w", key, err)
	}
	if s.Version != storedGrantVersion || s.Grant != t.Config.Grant.String() || s.Issuer == "" ||
		s.AccessToken == "" || !t.mayUse(s) {
		return nil
	}
	t.save(s.Issuer, grant{
		client:   client{id: s.ClientID, secret: s.ClientSecret, method: s.ClientAuth},
		resource: s.Resource,
		scopes:   s.Scopes,
		token:    &token{access: s.AccessToken, refresh: s.RefreshToken},
	})
	return nil
}

// mayUse reports whether the stored grant s belongs to the configured
// client: a pre-registered client that changed makes it stale.
func (t *Transport) mayUse(s storedGrant) bool {
	c := t.Config.Client
	if c == nil {
		return true
	}
	if c.Issuer != "" && c.Issuer != s.Issuer {
		return true // registered elsewhere: s was made with another registration
	}
	return c.ClientID == s.ClientID && c.ClientSecret == s.ClientSecret
}

// persist stores the grant now in use. The caller holds t.flow.
func (t *Transport) persist(ctx context.Context) error {
	if t.Config.Store == nil || t.storeKey == "" {
		return nil
	}
	issuer, g := t.current()
	if g.token == nil {
		return nil
	}
	raw, err := json.Marshal(storedGrant{
		Version: storedGrantVersion, Grant: t.Config.Grant.String(), Issuer: issuer,
		Resource: g.resource, Scopes: g.scopes,
		ClientID: g.client.id, ClientSecret: g.client.secret, ClientAuth: g.client.method,
		AccessToken: g.token.access, RefreshToken: g.token.refresh,
	})
	if err == nil {
		err = t.Config.Store.Save(ctx, t.storeKey, raw)
	}
	if err != nil {
		return fmt.Errorf("oauth: saving the authorization of %s: %w", t.storeKey, err)
	}
	return nil
}

// MemoryStore is a Store in memory, shared by the transports of one
// process. Its zero value is ready.
type MemoryStore struct {
	mu     sync.Mutex
	values map[string][]byte
}

// Load implements Store.
func (m *MemoryStore) Load(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.values[key], nil
}

// Save implements Store.
func (m *MemoryStore) Save(_ context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.values == nil {
		m.values = map[string][]byte{}
	}
	m.values[key] = append([]byte(nil), value...)
	return nil
}

// FileStore is a Store in one JSON file, an object of keys to values. It
// creates the file with mode 0600 (and a missing directory with 0700), and
// rewrites it whole through a temporary file and a rename, so that no
// reader ever sees it half written. The saves of one FileStore are
// serialized; of processes sharing the file, the last save wins.
type FileStore struct {
	Path string

	mu sync.Mutex
}

// Load implements Store. A missing file holds nothing.
func (f *FileStore) Load(_ context.Context, key string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all, err := f.read()
	if err != nil {
		return nil, err
	}
	return all[key], nil
}

// Save implements Store.
func (f *FileStore) Save(_ context.Context, key string, value []byte) error {
	if !json.Valid(value) {
		return errors.New("oauth: a stored value must be JSON")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	all, err := f.read()
	if err != nil {
		return err
	}
	all[key] = value
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return f.write(append(data, '\n'))
}

func (f *FileStore) read() (map[string]json.RawMessage, error) {
	all := map[string]json.RawMessage{}
	data, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return all, nil
}

func (f *FileStore) write(data []byte) error {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.Path)
}
