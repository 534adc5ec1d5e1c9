// Package mcp is the package Go programs import to serve the Model Context
// Protocol with polymcp. It speaks every revision from 2024-11-05 to
// 2026-07-28 over every transport through one dispatcher.
//
//	s := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
//	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"},
//		func(ctx context.Context, req *mcp.Request, in struct {
//			Text string `json:"text" jsonschema:"the text to echo"`
//		}) (string, error) {
//			return in.Text, nil
//		})
//	err := s.ServeStdio(ctx)
//
// Handlers get a context.Context that is cancelled when the client cancels
// the request, the deadline passes or the transport goes away. Progress and
// log notifications go through req.Progress and req.Log.
package mcp

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/dispatch"
	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/memory"
	"github.com/polymcp/polymcp/transport/stdio"
)

// ServerOptions configure a Server. The zero value (or nil) means the
// documented defaults.
type ServerOptions struct {
	// Instructions tell the client how to use the server.
	Instructions string
	// Revisions limits the protocol revisions served; empty serves all.
	Revisions []string
	// MaxConcurrency bounds handlers running at once (default 32).
	MaxConcurrency int
	// MaxQueue bounds requests waiting for a slot (default 256); beyond it a
	// request fails with -32603, data.reason "overloaded".
	MaxQueue int
	// RequestTimeout is each request's deadline (default 30 s; negative:
	// none); past it the answer is -32603 with data.reason "timeout".
	RequestTimeout time.Duration
	// PageSize is the number of items per list page (default 100).
	PageSize int
	// ListCache and ReadCache are the 2026-07-28 caching hints on list and
	// resources/read results (default ttlMs 0, scope "private").
	ListCache, ReadCache CachePolicy
	// Limits bound the JSON-RPC decoder (nesting depth, id and number size).
	Limits jsonrpc.Limits
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// InputStateKey signs 2026-07-28 requestState values (HMAC-SHA256);
	// empty means a random key per server. Share one key (32+ random
	// bytes) between replicas behind a load balancer.
	InputStateKey []byte
	// InputStateTTL is how long a requestState stays valid (default 10 min).
	InputStateTTL time.Duration
	// MaxClientRequests bounds the server-to-client requests (sampling,
	// elicitation, roots) awaiting an answer per legacy session (default 64).
	MaxClientRequests int
	// TaskTTL is how long a task is kept from its creation and may run
	// (default 1 h); MaxTasks bounds the tasks kept (default 1000) and
	// MaxRunningTasks those running (default MaxConcurrency/2); past them a
	// required task fails with -32603 "overloaded". TaskPollInterval is the
	// pollIntervalMs suggested to clients (default 1 s).
	TaskTTL          time.Duration
	MaxTasks         int
	MaxRunningTasks  int
	TaskPollInterval time.Duration
}

// CachePolicy is a ttlMs/cacheScope pair.
type CachePolicy = protocol.CachePolicy

// Server is an MCP server: catalogues of tools, resources and prompts served
// over any number of transports at once.
type Server struct {
	rt     *dispatch.Runtime
	router *router.Router
	exec   *executor.Executor

	// The in-process connections of Connect, closed by Close as a server
	// process's exit would end its pipes; closed ones are pruned by the
	// next Connect.
	connMu sync.Mutex
	conns  map[*memory.Client]struct{}
	closed bool
}

// NewServer returns a server named by impl. It panics if opts are invalid
// (a programming error, like net/http's pattern checks).
func NewServer(impl *Implementation, opts *ServerOptions) *Server {
	s, err := newServer(impl, opts)
	if err != nil {
		panic(err)
	}
	return s
}

func newServer(impl *Implementation, opts *ServerOptions) (*Server, error) {
	if opts == nil {
		opts = &ServerOptions{}
	}
	exec, err := executor.New(executor.Options{MaxConcurrency: opts.MaxConcurrency,
		MaxQueue: opts.MaxQueue, Timeout: opts.RequestTimeout})
	if err != nil {
		return nil, err
	}
	reg, err := protocol.NewRegistry(opts.Revisions...)
	if err != nil {
		return nil, err
	}
	s := &Server{exec: exec}
	s.router = router.New(router.Options{PageSize: opts.PageSize, OnListChanged: func(l router.List) {
		if s.rt != nil {
			s.rt.ListChanged(l)
		}
	}})
	info := spec.Implementation{Name: "polymcp-server", Version: "0.0.0"}
	if impl != nil {
		info = *impl
	}
	s.rt, err = dispatch.New(dispatch.Config{Server: info, Instructions: opts.Instructions,
		Router: s.router, Executor: exec, Registry: reg, Limits: opts.Limits,
		ListCache: opts.ListCache, ReadCache: opts.ReadCache, Logger: opts.Logger,
		InputStateKey: opts.InputStateKey, InputStateTTL: opts.InputStateTTL, MaxClientRequests: opts.MaxClientRequests,
		TaskTTL: opts.TaskTTL, MaxTasks: opts.MaxTasks, MaxRunningTasks: opts.MaxRunningTasks, TaskPollInterval: opts.TaskPollInterval})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Sessions implements transport.Server, so any transport can serve s.
func (s *Server) NewSession(info transport.Info, out transport.Sink) transport.Session {
	return s.rt.NewSession(info, out)
}

// ServeStdio serves one client over the process's stdin and stdout until
// stdin closes or ctx is done. Nothing but protocol messages is written to
// stdout.
func (s *Server) ServeStdio(ctx context.Context, opts *stdio.Options) error {
	return stdio.ServeProcess(ctx, s, opts)
}

// Connect returns an in-process client connection, for tests and embedding.
func (s *Server) Connect() *memory.Client {
	c := memory.Connect(s)
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.closed {
		c.Close()
		return c
	}
	for old := range s.conns {
		if old.Closed() {
			delete(s.conns, old)
		}
	}
	if s.conns == nil {
		s.conns = map[*memory.Client]struct{}{}
	}
	s.conns[c] = struct{}{}
	return c
}

// ResourceUpdated notifies subscribers that the resource at uri changed.
func (s *Server) ResourceUpdated(uri string) { s.rt.ResourceUpdated(uri) }

// Close ends open subscriptions gracefully, cancels every request in flight
// and refuses new ones. Transports still open answer nothing further; the
// in-process connections of Connect are closed, so that their clients
// learn of the end as they would of a server process's exit.
func (s *Server) Close() {
	s.rt.EndListeners()
	s.exec.Close()
	s.connMu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = nil
	s.connMu.Unlock()
	for c := range conns {
		// Not here: a handler running inside the connection's Send may be
		// what calls Close, and the connection's Close waits for Sends.
		go c.Close()
	}
}

// Wait blocks until no handler runs, or ctx is done.
func (s *Server) Wait(ctx context.Context) error { return s.exec.Wait(ctx) }

// Version is polymcp's release.
const Version = "0.1.0"

// Revisions returns every protocol revision polymcp speaks, oldest first.
func Revisions() []string { return slices.Clone(spec.Revisions) }
