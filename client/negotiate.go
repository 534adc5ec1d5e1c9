package client

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// modernRevision is the stateless revision the client speaks; the ones
// before it are the legacy, initialize-era ones.
const modernRevision = spec.Rev20260728

// newestLegacy is what initialize asks for unless a revision is pinned.
const newestLegacy = spec.Rev20251125

// UnsupportedVersionError is returned by Connect when the server speaks
// no revision the client does.
type UnsupportedVersionError struct {
	Requested string
	Supported []string // what the server said it supports
}

func (e *UnsupportedVersionError) Error() string {
	return fmt.Sprintf("client: the server does not speak %s (it offers %v)", e.Requested, e.Supported)
}

// negotiate settles the revision: the pinned one, or server/discover first
// and initialize when the server does not answer as a modern one. Per the
// 2026-07-28 versioning rules the fallback is not keyed to one error code:
// only an answer a modern server gives (a DiscoverResult, or -32022 naming
// its versions) keeps the client modern.
func (c *Client) negotiate(ctx context.Context) error {
	switch rev := c.o.Revision; {
	case rev == modernRevision:
		return c.discover(ctx)
	case rev != "":
		if !slices.Contains(spec.Revisions, rev) {
			return fmt.Errorf("client: unknown revision %q", rev)
		}
		return c.initialize(ctx, rev)
	}
	probe, cancel := context.WithTimeout(ctx, c.o.ProbeTimeout)
	err := c.discover(probe)
	cancel()
	var uv *UnsupportedVersionError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &uv):
		// A modern server that does not speak ours, but may speak a
		// legacy revision we do.
		if rev := newestCommon(uv.Supported); rev != "" {
			return c.initialize(ctx, rev)
		}
		return err
	case ctx.Err() != nil:
		return context.Cause(ctx)
	}
	c.o.Logger.Debug("client: server/discover failed, trying initialize", "err", err)
	return c.initialize(ctx, newestLegacy)
}

// discover speaks 2026-07-28: server/discover, whose result must list it.
// A -32022 that lists 2026-07-28 all the same (the server refused the
// request's version header, say) gets one more try, since the versioning
// rules have a client retry with a version the server lists.
func (c *Client) discover(ctx context.Context) error {
	err := c.discoverOnce(ctx)
	var uv *UnsupportedVersionError
	if errors.As(err, &uv) && slices.Contains(uv.Supported, modernRevision) {
		c.o.Logger.Debug("client: server/discover refused a revision the server lists; asking again")
		err = c.discoverOnce(ctx)
	}
	return err
}

// discoverOnce sends server/discover once.
func (c *Client) discoverOnce(ctx context.Context) error {
	c.revision, c.modern = modernRevision, true
	raw, err := c.request(ctx, "server/discover", nil, nil)
	if err != nil {
		c.revision, c.modern = "", false
		var je *jsonrpc.Error
		if errors.As(err, &je) && je.Code == jsonrpc.CodeUnsupportedProtocolVersion {
			return &UnsupportedVersionError{Requested: modernRevision, Supported: supportedOf(je)}
		}
		return err
	}
	var r spec.DiscoverResult
	if err := jsonrpc.UnmarshalOwned(raw, &r); err != nil {
		c.revision, c.modern = "", false
		return fmt.Errorf("client: bad server/discover result: %w", err)
	}
	if !slices.Contains(r.SupportedVersions, modernRevision) {
		c.revision, c.modern = "", false
		return &UnsupportedVersionError{Requested: modernRevision, Supported: r.SupportedVersions}
	}
	c.serverCaps, c.instructions = r.Capabilities, r.Instructions
	c.serverInfo = serverInfoOf(r.Meta)
	return nil
}

// initialize runs the legacy handshake asking for rev; the server may
// answer with another revision, which must be one the client speaks.
func (c *Client) initialize(ctx context.Context, rev string) error {
	raw, err := c.request(ctx, "initialize", c.initializeParams(rev), nil)
	if err != nil {
		return fmt.Errorf("client: initialize: %w", err)
	}
	var r spec.InitializeResult
	if err := jsonrpc.UnmarshalOwned(raw, &r); err != nil {
		return fmt.Errorf("client: bad initialize result: %w", err)
	}
	if r.ProtocolVersion == modernRevision || !slices.Contains(spec.Revisions, r.ProtocolVersion) {
		return &UnsupportedVersionError{Requested: rev, Supported: []string{r.ProtocolVersion}}
	}
	c.revision = r.ProtocolVersion
	c.serverInfo, c.serverCaps, c.instructions = r.ServerInfo, r.Capabilities, r.Instructions
	return c.notify(ctx, "notifications/initialized", nil)
}

// initializeParams are the params of initialize asking for rev.
func (c *Client) initializeParams(rev string) map[string]any {
	return map[string]any{"protocolVersion": rev, "capabilities": c.caps, "clientInfo": c.o.Info}
}

// supportedOf reads data.supported of a -32022 error.
func supportedOf(e *jsonrpc.Error) []string {
	raw, ok := e.Data.(jsonrpc.RawJSON)
	if !ok {
		return nil
	}
	var d struct {
		Supported []string `json:"supported"`
	}
	_ = jsonrpc.UnmarshalOwned(raw, &d)
	return d.Supported
}

// newestCommon returns the newest legacy revision in offered that the
// client speaks, or "".
func newestCommon(offered []string) string {
	for _, rev := range slices.Backward(spec.Revisions) {
		if rev != modernRevision && slices.Contains(offered, rev) {
			return rev
		}
	}
	return ""
}

// serverInfoOf reads the serverInfo _meta of a 2026-07-28 result.
func serverInfoOf(meta spec.Meta) spec.Implementation {
	var info spec.Implementation
	if v, ok := meta[spec.MetaServerInfo]; ok {
		if raw, err := jsonrpc.Marshal(v); err == nil {
			_ = jsonrpc.UnmarshalOwned(raw, &info)
		}
	}
	return info
}
