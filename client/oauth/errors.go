package oauth

import (
	"errors"
	"fmt"
)

var (
	// ErrInsecureURL: a URL of the flow is neither HTTPS nor on a loopback host.
	ErrInsecureURL = errors.New("oauth: URL is neither https nor loopback")
	// ErrNoMetadata: no protected-resource or authorization-server metadata was found.
	ErrNoMetadata = errors.New("oauth: no metadata found")
	// ErrResourceMismatch: the protected-resource metadata names another resource.
	ErrResourceMismatch = errors.New("oauth: protected resource metadata is for another resource")
	// ErrIssuerMismatch: metadata or an authorization response names another
	// issuer, or lacks the iss the server promised.
	ErrIssuerMismatch = errors.New("oauth: issuer mismatch")
	// ErrNoPKCE: the authorization server does not advertise PKCE S256.
	ErrNoPKCE = errors.New("oauth: authorization server does not support PKCE S256")
	// ErrNoRegistration: no way to obtain a client_id at the authorization server.
	ErrNoRegistration = errors.New("oauth: no client registration possible")
	// ErrStateMismatch: the authorization response's state is not the request's.
	ErrStateMismatch = errors.New("oauth: state mismatch")
	// ErrTooManyAuthorizations: a request was still refused after
	// Config.MaxAuthorizations authorizations.
	ErrTooManyAuthorizations = errors.New("oauth: too many authorizations")
	// ErrTooLarge: a response passed MaxBodyBytes.
	ErrTooLarge = errors.New("oauth: response too large")
)

// ResponseError is an OAuth error answer: from the authorization endpoint
// (through the redirect), or from the registration or token endpoint.
type ResponseError struct {
	Endpoint    string // "authorization", "registration" or "token"
	Status      int    // the HTTP status; 0 for the authorization endpoint
	Code        string // the OAuth error code
	Description string
}

func (e *ResponseError) Error() string {
	msg := fmt.Sprintf("oauth: %s endpoint: %s", e.Endpoint, e.Code)
	if e.Status != 0 { // the authorization endpoint answers through the redirect
		msg += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
}
