package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// checkURL parses a URL the flow is about to contact or trust.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	if u.Scheme == "https" && u.Host != "" || u.Scheme == "http" && isLoopback(u.Hostname()) {
		return u, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrInsecureURL, raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func defaultHTTPClient() *http.Client {
	return &http.Client{Timeout: DefaultTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return fmt.Errorf("oauth: more than %d redirects", MaxRedirects)
		}
		_, err := checkURL(req.URL.String())
		return err
	}}
}

// get fetches a JSON document into v; found is false on a 4xx, which
// discovery takes as "try the next location".
func (t *Transport) get(ctx context.Context, raw string, v any) (found bool, err error) {
	if _, err := checkURL(raw); err != nil {
		return false, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := t.httpClient().Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 4:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("oauth: GET %s: HTTP %d", raw, resp.StatusCode)
	}
	return true, decode(resp.Body, v)
}

// post sends a body of contentType to an authorization server endpoint
// and decodes its JSON answer into v, or into a *ResponseError.
func (t *Transport) post(ctx context.Context, endpoint, raw, contentType string, body io.Reader, h http.Header, v any) error {
	if _, err := checkURL(raw); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, raw, body)
	if err != nil {
		return err
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := t.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var e struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = decode(resp.Body, &e) // a body that is no OAuth error leaves Code empty
		return &ResponseError{Endpoint: endpoint, Status: resp.StatusCode, Code: e.Code, Description: e.Description}
	}
	return decode(resp.Body, v)
}

func (t *Transport) httpClient() *http.Client {
	if t.Config.HTTPClient != nil {
		return t.Config.HTTPClient
	}
	t.defaultOnce.Do(func() { t.defaultClient = defaultHTTPClient() })
	return t.defaultClient
}

// decode reads at most MaxBodyBytes of JSON into v.
func decode(r io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxBodyBytes+1))
	switch {
	case err != nil:
		return err
	case len(b) > MaxBodyBytes:
		return ErrTooLarge
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errors.Join(errors.New("oauth: malformed JSON response"), err)
	}
	return nil
}
