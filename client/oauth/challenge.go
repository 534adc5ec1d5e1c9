package oauth

import (
	"net/http"
	"strings"
)

// challenge is what a refusal of the MCP server asks for.
type challenge struct {
	stepUp           bool     // 403 insufficient_scope rather than 401
	scopes           []string // its scope parameter
	resourceMetadata string   // its resource_metadata URL
}

// challengeOf reports whether resp asks for (more) authorization.
func challengeOf(resp *http.Response) (challenge, bool) {
	params := bearerParams(resp.Header.Values("WWW-Authenticate"))
	c := challenge{scopes: strings.Fields(params["scope"]), resourceMetadata: params["resource_metadata"]}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return c, true
	case http.StatusForbidden:
		c.stepUp = true
		return c, params["error"] == "insufficient_scope"
	}
	return c, false
}

// bearerParams returns the parameters of the Bearer challenge among
// values (RFC 9110 §11.6.1), nil when there is none.
func bearerParams(values []string) map[string]string {
	for _, v := range values {
		scheme, rest, _ := strings.Cut(strings.TrimSpace(v), " ")
		if strings.EqualFold(scheme, "Bearer") {
			return authParams(rest)
		}
	}
	return nil
}

// authParams reads key=token and key="quoted" pairs up to the first item
// that is neither, which starts the next challenge.
func authParams(s string) map[string]string {
	params := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t,")
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || strings.ContainsAny(s[:eq], " \t,\"") {
			return params
		}
		key, val := strings.ToLower(s[:eq]), ""
		s = strings.TrimLeft(s[eq+1:], " \t")
		if strings.HasPrefix(s, `"`) {
			val, s = unquote(s[1:])
		} else {
			end := strings.IndexAny(s, ", \t")
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		params[key] = val
	}
}

// unquote reads a quoted-string's content, after its opening quote.
func unquote(s string) (val, rest string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ""
}
