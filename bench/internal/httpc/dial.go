package httpc

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/polymcp/polymcp/bench/internal/proc"
)

// PortPlaceholder in a server command is replaced by a free loopback port
// the driver picks; see Dial.
const PortPlaceholder = "{port}"

// ListenArgs are appended to a server command without PortPlaceholder.
var ListenArgs = []string{"--http", "127.0.0.1:0"}

// startTimeout bounds how long a server may take to start listening.
const startTimeout = 15 * time.Second

var urlPattern = regexp.MustCompile(`https?://[^\s"'<>]+`)

// Dial starts argv as a Streamable HTTP server and connects a client to it.
//
// If an argument holds PortPlaceholder, the driver picks a free port, puts
// it there, and posts to http://127.0.0.1:PORT/mcp once the port accepts
// connections. Otherwise it appends ListenArgs (--http 127.0.0.1:0) and
// waits for the server to print its URL (the first http:// URL in a line on
// stdout or stderr, path included, e.g. "serving http://127.0.0.1:4123/mcp").
// Either way the server's stdin stays open until it is stopped.
func Dial(argv []string, mode Mode) (*proc.Server, *Conn, error) {
	argv, port, err := listenArgv(argv)
	if err != nil {
		return nil, nil, err
	}
	cmd, err := proc.Command(argv)
	if err != nil {
		return nil, nil, err
	}
	urls := make(chan string, 1)
	srv, err := proc.StartNetwork(cmd, func(line string) {
		if u := urlPattern.FindString(line); u != "" {
			select {
			case urls <- strings.TrimRight(u, ".,;)"):
			default:
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	u, err := waitListening(srv, port, urls)
	if err != nil {
		srv.Stop(time.Second)
		return nil, nil, err
	}
	c, err := New(u, mode)
	if err != nil {
		srv.Stop(time.Second)
		return nil, nil, err
	}
	return srv, c, nil
}

// listenArgv returns the command to run and the port the driver chose, or
// 0 if the server will choose and print it.
func listenArgv(argv []string) ([]string, int, error) {
	if len(argv) == 0 {
		return nil, 0, errors.New("no server command")
	}
	out := append([]string(nil), argv...)
	has := false
	for _, a := range out {
		has = has || strings.Contains(a, PortPlaceholder)
	}
	if !has {
		return append(out, ListenArgs...), 0, nil
	}
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	for i, a := range out {
		out[i] = strings.ReplaceAll(a, PortPlaceholder, strconv.Itoa(port))
	}
	return out, port, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitListening returns the endpoint's URL once the server is up.
func waitListening(srv *proc.Server, port int, urls <-chan string) (string, error) {
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case u := <-urls:
			if port == 0 {
				return u, nil
			}
		case <-tick.C:
			if port == 0 {
				continue
			}
			addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			if nc, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				nc.Close()
				return "http://" + addr + "/mcp", nil
			}
		case <-srv.Exited():
			return "", fmt.Errorf("server exited before listening: %s", lastLine(srv.Stderr()))
		case <-deadline.C:
			if port == 0 {
				return "", fmt.Errorf("server printed no http:// URL within %v", startTimeout)
			}
			return "", fmt.Errorf("nothing listened on port %d within %v", port, startTimeout)
		}
	}
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
