package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/client/oauth"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/stdio"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// target is the server a client command talks to: a Streamable HTTP URL,
// or a command line served over stdio.
type target struct {
	url      string
	command  []string
	revision string
	timeout  time.Duration
	// HTTP only: headers for every request, and OAuth.
	header headers
	oauth  bool
	// oauthStore is the file --oauth keeps its tokens in ("" for none).
	oauthStore string
	// loopback receives the OAuth redirect; closed by release.
	loopback *oauth.Loopback
}

// headers is a repeatable "Name: value" flag.
type headers http.Header

func (h headers) String() string { return "" }

func (h headers) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return errors.New(`a header is "Name: value"`)
	}
	http.Header(h).Add(strings.TrimSpace(name), strings.TrimSpace(value))
	return nil
}

// flags registers the flags naming a target on fs.
func (t *target) flags(fs *flag.FlagSet) {
	t.header = headers{}
	fs.StringVar(&t.url, "http", "", "the server's Streamable HTTP URL (or its 2024-11-05 HTTP+SSE stream's)")
	fs.Var(t.header, "header", `an HTTP header for every request, "Name: value" (repeatable; Authorization, say)`)
	fs.BoolVar(&t.oauth, "oauth", false, "authorize with OAuth 2.1 when the HTTP server asks: the authorization URL is printed on stderr, to open in a browser")
	fs.StringVar(&t.oauthStore, "oauth-store", defaultOAuthStore(), `the file where --oauth keeps the tokens it obtains, by server, for the next run ("" keeps none)`)
	fs.StringVar(&t.revision, "revision", "", "pin a protocol revision (default: negotiate, preferring 2026-07-28)")
	fs.DurationVar(&t.timeout, "timeout", client.DefaultTimeout, "bound on each request")
}

// parse reads args: flags and the command's own arguments in any order,
// then, after "--", the server's command line. It returns the command's
// arguments.
func (t *target) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	own, server := args, []string(nil)
	for i, a := range args {
		if a == "--" {
			own, server = args[:i], args[i+1:]
			break
		}
	}
	var positional []string
	for {
		if err := fs.Parse(own); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError(err.Error())
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		own = fs.Args()[1:]
	}
	t.command = server
	switch {
	case t.url != "" && len(t.command) > 0:
		return nil, usageError("give --http URL or -- COMMAND, not both")
	case t.url == "" && len(t.command) == 0:
		return nil, usageError("name the server: --http URL, or -- COMMAND ARGS... for a stdio server")
	}
	return positional, nil
}

// dial starts the stdio server of the target and returns its conn.
func (t *target) dial(ctx context.Context) (transport.ClientConn, error) {
	p, err := stdio.Start(context.WithoutCancel(ctx), exec.Command(t.command[0], t.command[1:]...))
	if err != nil {
		return nil, err
	}
	return p.Conn(), nil
}

// connect connects to the target and negotiates; o may be nil. An HTTP
// server that refuses Streamable HTTP is tried as a 2024-11-05 HTTP+SSE one.
func (t *target) connect(ctx context.Context, o *client.Options) (*client.Client, error) {
	if t.url != "" {
		httpOpts, err := t.httpOptions()
		if err != nil {
			return nil, err
		}
		return mcp.ConnectHTTP(ctx, t.url, t.options(o), httpOpts)
	}
	conn, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	return t.negotiate(ctx, conn, o)
}

// httpOptions are the HTTP side of the target: its headers and, with
// --oauth, an OAuth transport whose redirect comes back to a loopback
// listener (RFC 8252).
func (t *target) httpOptions() (*streamhttp.ClientOptions, error) {
	o := &streamhttp.ClientOptions{Header: http.Header(t.header)}
	if !t.oauth {
		return o, nil
	}
	lb, err := oauth.NewLoopback(func(authURL string) {
		fmt.Fprintf(os.Stderr, "polymcp: the server asks for authorization; open this URL in a browser:\n  %s\n", authURL)
	})
	if err != nil {
		return nil, err
	}
	t.loopback = lb
	cfg := oauth.Config{ClientName: "polymcp", RedirectURL: lb.RedirectURL(), Authorize: lb.Authorize}
	if t.oauthStore != "" {
		cfg.Store = &oauth.FileStore{Path: t.oauthStore}
	}
	o.HTTPClient = &http.Client{Transport: &oauth.Transport{Config: cfg}}
	return o, nil
}

// defaultOAuthStore is polymcp/oauth.json in the user's cache directory
// ($XDG_CACHE_HOME, else ~/.cache), or "" when there is none.
func defaultOAuthStore() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "polymcp", "oauth.json")
}

// release frees what connect set up besides the client (the OAuth
// listener).
func (t *target) release() {
	if t.loopback != nil {
		t.loopback.Close()
	}
}

// negotiate connects a client over conn with the target's settings.
func (t *target) negotiate(ctx context.Context, conn transport.ClientConn, o *client.Options) (*client.Client, error) {
	return client.Connect(ctx, conn, t.options(o))
}

// options are o (nil: the defaults) with the target's settings.
func (t *target) options(o *client.Options) *client.Options {
	opts := client.Options{}
	if o != nil {
		opts = *o
	}
	opts.Info = spec.Implementation{Name: "polymcp", Version: mcpVersion()}
	opts.Revision, opts.Timeout = t.revision, t.timeout
	return &opts
}

// printJSON writes v as indented JSON.
func printJSON(out io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", b)
	return err
}

// stderrLogger prints the server's log messages on stderr.
func stderrLogger(p spec.LoggingMessageParams) {
	data, _ := json.Marshal(p.Data)
	fmt.Fprintf(os.Stderr, "server log %s %s: %s\n", p.Level, p.Logger, data)
}

// oneLine shortens s to one line of at most n bytes, for listings.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n-1] + "…"
	}
	return s
}
