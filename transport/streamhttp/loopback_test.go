package streamhttp

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// isLoopbackAddr reads addresses with netip; it must judge every form as
// the net.ParseIP reading it replaced.
func TestIsLoopbackAddr(t *testing.T) {
	byParseIP := func(addr string) bool {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		return ip == nil || ip.IsLoopback()
	}
	for _, addr := range []string{
		"127.0.0.1:8080", "127.9.9.9:1", "10.0.0.1:80", "192.168.1.2:443", "0.0.0.0:80",
		"[::1]:80", "[::ffff:127.0.0.1]:80", "[::ffff:10.0.0.1]:80", "[2001:db8::1]:80", "[fe80::1%eth0]:80",
		"127.0.0.1", "10.0.0.1", "::1", "[::1]", "2001:db8::1", "fe80::1%eth0",
		"", "localhost:80", "example.com", "/tmp/sock", "@abstract", "1.2.3.4:notaport", "[::1", "::1]:80",
	} {
		assert.Equal(t, byParseIP(addr), isLoopbackAddr(addr), addr)
	}
}

// A local address's text is reused for an equal address only.
func TestLocalAddrText(t *testing.T) {
	h := &Handler{}
	for _, a := range []net.Addr{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80},
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80},
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 81},
		&net.TCPAddr{IP: net.ParseIP("::1"), Port: 81},
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 81, Zone: "eth0"},
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 81},
		&net.UnixAddr{Name: "/tmp/s", Net: "unix"},
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80},
	} {
		assert.Equal(t, a.String(), h.localAddrText(a))
	}
}
