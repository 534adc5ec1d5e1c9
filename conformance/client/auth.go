package main

import (
	"net/http"
	"strings"

	"github.com/polymcp/polymcp/client/oauth"
)

// cimdURL is the client_id the runner's auth/basic-cimd expects: a Client
// ID Metadata Document URL (the mock authorization server does not fetch it).
const cimdURL = "https://conformance-test.local/client-metadata.json"

// httpClient is nil (streamhttp's own) but for the auth/* scenarios,
// which get an OAuth transport: the mock authorization server redirects
// straight back, so oauth's default Authorize is the user.
func (s *session) httpClient(scenario string) *http.Client {
	if !strings.HasPrefix(scenario, "auth/") {
		return nil
	}
	cfg := oauth.Config{ClientMetadataURL: cimdURL, ClientName: "polymcp-conformance-client"}
	if in := s.input; in.ClientID != "" {
		cfg.Client = &oauth.Credentials{ClientID: in.ClientID, ClientSecret: in.ClientSecret, Issuer: in.Issuer}
	}
	if scenario == "auth/client-credentials-basic" {
		cfg.Grant = oauth.ClientCredentials
	}
	return &http.Client{Transport: &oauth.Transport{Config: cfg}}
}
