// Command client is polymcp's client under the official MCP conformance
// runner: `conformance client --command build/conformance-client` runs it
// as `<command> <server-url>` for each client scenario, with the scenario
// in MCP_CONFORMANCE_SCENARIO, the revision to speak in
// MCP_CONFORMANCE_PROTOCOL_VERSION and extra inputs (JSON) in
// MCP_CONFORMANCE_CONTEXT. It does what the scenario asks through package
// client over streamhttp.Dial (with client/oauth's transport for the
// auth/* scenarios), so what the runner grades is the library,
// and exits 0 when that succeeded, 1 with the reason on stderr otherwise.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// deadline bounds a scenario: the runner kills the client after 30 s.
const deadline = 25 * time.Second

func main() {
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if err := run(scenario, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "conformance-client: %s: %v\n", scenario, err)
		os.Exit(1)
	}
}

// run connects to the server URL, the last argument, in the runner's
// revision and plays the scenario.
func run(scenario string, args []string) error {
	play, ok := scenarios[scenario]
	if !ok && strings.HasPrefix(scenario, "auth/") {
		play, ok = callListed, true // the OAuth is in the conn: any request starts it
	}
	if !ok {
		return errors.New("no such scenario")
	}
	if len(args) == 0 {
		return errors.New("usage: conformance-client <server-url>")
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := &session{}
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &s.input); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	c, err := connect(ctx, args[len(args)-1], os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"), s.httpClient(scenario))
	if err != nil {
		return err
	}
	defer c.Close()
	s.c = c
	return play(ctx, s)
}

// connect dials url through hc (nil: streamhttp's own client) and
// negotiates rev ("" negotiates), with a handler for each of the server's
// questions so that every capability is declared.
func connect(ctx context.Context, url, rev string, hc *http.Client) (*client.Client, error) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	conn, err := streamhttp.Dial(url, &streamhttp.ClientOptions{Logger: log, HTTPClient: hc})
	if err != nil {
		return nil, err
	}
	return client.Connect(ctx, conn, &client.Options{
		Info:        spec.Implementation{Name: "polymcp-conformance-client", Version: "0.1.0"},
		Revision:    rev,
		Sampling:    sample,
		Elicitation: elicit,
		Roots:       roots,
		Logger:      log,
	})
}
