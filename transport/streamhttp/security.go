package streamhttp

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// The Origin and Host checks: the defence against cross-site requests and
// DNS rebinding that the spec asks of every HTTP server (403 for a bad
// Origin, 421 for a Host this server does not answer to).

// hostRule is one allowed host: a lowercased name or IP (IPv6 without
// brackets), an optional port ("" = any) and, for origins, an optional scheme
// ("" = http or https).
type hostRule struct {
	scheme, host, port string
}

func (r hostRule) match(scheme, host, port string) bool {
	return r.host == host && (r.port == "" || r.port == port) && (r.scheme == "" || r.scheme == scheme)
}

// loopbackRules are always allowed, on any port.
var loopbackRules = []hostRule{{host: "localhost"}, {host: "127.0.0.1"}, {host: "::1"}}

// parseRules reads AllowedOriginHosts (withScheme) or AllowedHosts.
func parseRules(entries []string, withScheme bool) ([]hostRule, error) {
	rules := make([]hostRule, 0, len(entries))
	for _, e := range entries {
		var r hostRule
		rest := strings.TrimSpace(e)
		if i := strings.Index(rest, "://"); i >= 0 && withScheme {
			r.scheme, rest = strings.ToLower(rest[:i]), rest[i+3:]
			if r.scheme != "http" && r.scheme != "https" {
				return nil, fmt.Errorf("%w: origin %q: scheme must be http or https", ErrInvalidOptions, e)
			}
		}
		host, port, ok := splitHostPort(rest)
		if !ok {
			return nil, fmt.Errorf("%w: host %q is not host or host:port", ErrInvalidOptions, e)
		}
		r.host, r.port = host, port
		rules = append(rules, r)
	}
	return rules, nil
}

// splitHostPort splits a Host header or an origin's authority into a
// lowercased host (IPv6 without brackets) and a port ("" when absent). It
// refuses userinfo, paths, unbracketed IPv6, bad ports and odd characters.
func splitHostPort(s string) (host, port string, ok bool) {
	if s == "" {
		return "", "", false
	}
	rest := ""
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false
		}
		host, rest = s[1:end], s[end+1:]
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil || strings.Contains(host, "%") {
			return "", "", false
		}
	} else {
		host = s
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			host, rest = s[:i], s[i:]
		}
		if !validHostname(host) {
			return "", "", false
		}
	}
	if rest != "" {
		if rest[0] != ':' || !validPort(rest[1:]) {
			return "", "", false
		}
		port = rest[1:]
	}
	return strings.ToLower(host), port, true
}

// validHostname accepts DNS names and IPv4 literals: letters, digits, '-',
// '.' and '_' (seen in the wild), not empty.
func validHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

func validPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 0 && n <= 65535 && p[0] != '+' && p[0] != '-'
}

// parseOrigin reads a serialized origin (RFC 6454): scheme "://" host
// [":" port], nothing else. "null", userinfo, paths, queries and other
// schemes are refused.
func parseOrigin(v string) (scheme, host, port string, ok bool) {
	i := strings.Index(v, "://")
	if i <= 0 {
		return "", "", "", false
	}
	scheme = strings.ToLower(v[:i])
	if scheme != "http" && scheme != "https" {
		return "", "", "", false
	}
	host, port, ok = splitHostPort(v[i+3:])
	return scheme, host, port, ok
}

// policy holds the parsed allow-lists.
type policy struct {
	origins   []hostRule
	hosts     []hostRule
	hostCheck bool // false: DisableHostCheck
	hostsSet  bool // AllowedHosts is not empty
}

func newPolicy(o *Options) *policy {
	origins, _ := parseRules(o.AllowedOriginHosts, true) // checked by withDefaults
	hosts, _ := parseRules(o.AllowedHosts, false)
	return &policy{origins: origins, hosts: hosts, hostCheck: !o.DisableHostCheck, hostsSet: len(hosts) > 0}
}

// originAllowed judges the Origin header values: absent is allowed (not a
// browser), anything but exactly one allowed origin is refused.
func (p *policy) originAllowed(values []string) bool {
	if len(values) == 0 {
		return true
	}
	if len(values) > 1 {
		return false
	}
	scheme, host, port, ok := parseOrigin(strings.TrimSpace(values[0]))
	if !ok {
		return false
	}
	return anyMatch(loopbackRules, scheme, host, port) || anyMatch(p.origins, scheme, host, port)
}

// hostAllowed judges the Host header of a request that arrived on localAddr.
func (p *policy) hostAllowed(hostHeader, localAddr string) bool {
	if !p.hostCheck || (!p.hostsSet && !isLoopbackAddr(localAddr)) {
		return true
	}
	host, port, ok := splitHostPort(strings.TrimSpace(hostHeader))
	if !ok {
		return false
	}
	return anyMatch(loopbackRules, "", host, port) || anyMatch(p.hosts, "", host, port)
}

func anyMatch(rules []hostRule, scheme, host, port string) bool {
	for _, r := range rules {
		if r.match(scheme, host, port) {
			return true
		}
	}
	return false
}

// isLoopbackAddr reports whether a connection's local address is a
// loopback one. An unknown or non-IP address (a Unix socket, a host that did
// not say) counts as loopback, so that the Host check stays on by default.
//
// It runs for every request, so the common "ip:port" form is read with
// netip, which allocates nothing (net.ParseIP allocated the address). A
// zoned address is not an IP address to net.ParseIP, so it counts as
// loopback here too.
func isLoopbackAddr(addr string) bool {
	if ap, err := netip.ParseAddrPort(addr); err == nil {
		return ap.Addr().Zone() != "" || ap.Addr().IsLoopback()
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err != nil || a.Zone() != "" || a.IsLoopback()
}
