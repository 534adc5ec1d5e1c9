// Package dispatch is the one pipeline every transport drives: a frame is
// decoded by core/jsonrpc, judged under its revision's dialect (core/protocol),
// admitted, routed through the single method table to core/router, run on the
// executor, and the protocol-neutral result is shaped by the dialect and
// written to the transport's sink.
//
//	frame ─► jsonrpc.Decode ─► dialect (session or _meta) ─► admission
//	      ─► method table ─► router handler on the executor ─► Shape ─► Sink
//
// A Runtime implements transport.Server. It does no I/O and starts no
// goroutines of its own; handlers run on the executor.
package dispatch

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// Config assembles a Runtime. Router and Executor are required.
type Config struct {
	Server       spec.Implementation
	Instructions string
	Router       *router.Router
	Executor     *executor.Executor
	// Registry selects the revisions served; nil serves all of them.
	Registry *protocol.Registry
	// Limits bound the envelope decoder; zero fields mean the defaults.
	Limits jsonrpc.Limits
	// ListCache and ReadCache are the ttlMs/cacheScope hints written on
	// 2026-07-28 list and resources/read results. The zero value means
	// ttlMs 0 (always revalidate) with scope "private".
	ListCache, ReadCache protocol.CachePolicy
	// Logger receives diagnostics (handler panics, dropped messages); nil
	// means slog.Default().
	Logger *slog.Logger
	// InputStateKey signs the requestState of 2026-07-28 input_required
	// results (HMAC-SHA256). Empty means a random key per Runtime, so a
	// state only comes back to the process that issued it; servers behind
	// a load balancer share one key of at least 32 random bytes.
	InputStateKey []byte
	// InputStateTTL is how long a requestState stays valid (default
	// DefaultInputStateTTL).
	InputStateTTL time.Duration
	// MaxClientRequests bounds the server-to-client requests awaiting an
	// answer on one legacy session (default DefaultMaxClientRequests);
	// past it Input fails with ErrTooManyClientRequests.
	MaxClientRequests int
	// TaskTTL is how long a task of the tasks extension (2026-07-28) is
	// kept from its creation (its ttlMs) and how long its handler may run:
	// a task still running then fails with -32603, data.reason "timeout",
	// and is dropped (default DefaultTaskTTL).
	TaskTTL time.Duration
	// MaxTasks bounds the tasks kept at once, running or finished
	// (default DefaultMaxTasks); MaxRunningTasks those whose handlers run,
	// each holding an executor slot (default half the executor's
	// MaxConcurrency, at least 1). Past either, a call of a tool with
	// optional task support runs as an ordinary call, and one with
	// required support fails with -32603, data.reason "overloaded".
	MaxTasks, MaxRunningTasks int
	// TaskPollInterval is the pollIntervalMs suggested to clients (default
	// DefaultTaskPollInterval).
	TaskPollInterval time.Duration
}

// Runtime is the immutable core of a server plus the set of live legacy
// sessions that server-initiated notifications reach.
type Runtime struct {
	cfg      Config
	registry *protocol.Registry
	log      *slog.Logger
	methods  map[string]method

	stateKey          []byte
	stateTTL          time.Duration
	now               func() time.Time
	maxClientRequests int

	tasks   taskStore
	clients clients

	mu        sync.Mutex
	sessions  map[*Session]struct{}
	listeners map[*listener]struct{}
}

// New checks cfg and the method table against every served revision's
// catalogue, then returns the Runtime.
func New(cfg Config) (*Runtime, error) {
	if cfg.Router == nil || cfg.Executor == nil {
		return nil, errors.New("dispatch: Config needs a Router and an Executor")
	}
	rt := &Runtime{cfg: cfg, registry: cfg.Registry, log: cfg.Logger, sessions: make(map[*Session]struct{}),
		listeners: make(map[*listener]struct{})}
	if rt.registry == nil {
		reg, err := protocol.NewRegistry()
		if err != nil {
			return nil, err
		}
		rt.registry = reg
	}
	if rt.log == nil {
		rt.log = slog.Default()
	}
	rt.stateKey, rt.stateTTL, rt.now = newStateKey(cfg.InputStateKey), cfg.InputStateTTL, time.Now
	if rt.stateTTL <= 0 {
		rt.stateTTL = DefaultInputStateTTL
	}
	rt.maxClientRequests = cfg.MaxClientRequests
	if rt.maxClientRequests <= 0 {
		rt.maxClientRequests = DefaultMaxClientRequests
	}
	rt.tasks.init(cfg)
	rt.methods = methodTable()
	if err := rt.checkTable(); err != nil {
		return nil, err
	}
	return rt, nil
}

// checkTable makes sure every client-to-server request of every served
// revision has exactly one handler, and no handler serves a method no
// revision defines.
func (rt *Runtime) checkTable() error {
	defined := map[string]bool{}
	for _, rev := range rt.registry.Supported() {
		d, _ := rt.registry.Lookup(rev)
		for _, m := range d.Catalogue().Methods() {
			if m.Kind != protocol.Request || m.Dir&protocol.ClientToServer == 0 {
				continue
			}
			defined[m.Name] = true
			if _, ok := rt.methods[m.Name]; !ok {
				return errors.New("dispatch: no handler for " + m.Name + " (" + rev + ")")
			}
		}
	}
	for name := range rt.methods {
		if !defined[name] {
			return errors.New("dispatch: handler for " + name + ", which no served revision defines")
		}
	}
	return nil
}

// Registry returns the served revisions.
func (rt *Runtime) Registry() *protocol.Registry { return rt.registry }

// Router returns the catalogues the runtime serves.
func (rt *Runtime) Router() *router.Router { return rt.cfg.Router }

// NewSession implements transport.Server.
func (rt *Runtime) NewSession(info transport.Info, out transport.Sink) transport.Session {
	return rt.newSession(info, out)
}

// Capabilities are the server capabilities advertised by initialize and
// server/discover.
func (rt *Runtime) Capabilities() spec.ServerCapabilities {
	tools, resources, prompts, completions := rt.cfg.Router.Capabilities()
	caps := spec.ServerCapabilities{Logging: &struct{}{}}
	if tools {
		caps.Tools = &spec.ListChangedCap{ListChanged: true}
	}
	if resources {
		caps.Resources = &spec.ResourcesCap{Subscribe: true, ListChanged: true}
	}
	if prompts {
		caps.Prompts = &spec.ListChangedCap{ListChanged: true}
	}
	if completions {
		caps.Completions = &struct{}{}
	}
	return caps
}

// offers reports whether the server offers capability name.
func (rt *Runtime) offers(name string) bool {
	tools, resources, prompts, completions := rt.cfg.Router.Capabilities()
	switch name {
	case "":
		return true
	case protocol.CapTools:
		return tools
	case protocol.CapResources, protocol.CapResourcesSubscribe:
		return resources
	case protocol.CapPrompts:
		return prompts
	case protocol.CapLogging:
		return true
	case protocol.CapCompletions:
		return completions
	}
	return false
}

// offersExtension reports whether the server offers extension ext ("" is
// no extension).
func (rt *Runtime) offersExtension(ext string) bool {
	switch ext {
	case "":
		return true
	case spec.ExtensionTasks:
		return rt.cfg.Router.Tasks()
	}
	return false
}

// track lists an initialized session among those server notifications
// reach, unless it closed meanwhile. It marks the session first, so that a
// Close that does not see the mark comes before the check here and is seen
// by it: a session is never left listed after its Close.
func (rt *Runtime) track(s *Session) {
	s.tracked.Store(true)
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !s.isClosed() {
		rt.sessions[s] = struct{}{}
	}
}

// untrack drops a closed session from the list, if track marked it; the
// sessions of stateless requests never are, and cost the lock nothing.
func (rt *Runtime) untrack(s *Session) {
	if !s.tracked.Load() {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	delete(rt.sessions, s)
}

func (rt *Runtime) liveSessions() []*Session {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]*Session, 0, len(rt.sessions))
	for s := range rt.sessions {
		out = append(out, s)
	}
	return out
}

// ListChanged tells every initialized legacy session that a catalogue
// changed. Wire it to router.Options.OnListChanged.
func (rt *Runtime) ListChanged(list router.List) {
	method := listChangedMethod(list)
	if method == "" {
		return
	}
	msg := jsonrpc.AppendNotification(nil, method, nil)
	for _, s := range rt.liveSessions() {
		s.sendOut(msg)
	}
	rt.broadcast(method, "")
}

// ResourceUpdated tells the legacy sessions subscribed to uri that it changed.
func (rt *Runtime) ResourceUpdated(uri string) {
	params, err := jsonrpc.Marshal(spec.ResourceUpdatedParams{URI: uri})
	if err != nil {
		return
	}
	msg := jsonrpc.AppendNotification(nil, "notifications/resources/updated", params)
	for _, s := range rt.liveSessions() {
		if s.subscribed(uri) {
			s.sendOut(msg)
		}
	}
	rt.broadcast("notifications/resources/updated", uri)
}

func listChangedMethod(list router.List) string {
	switch list {
	case router.ListTools:
		return "notifications/tools/list_changed"
	case router.ListResources:
		return "notifications/resources/list_changed"
	case router.ListPrompts:
		return "notifications/prompts/list_changed"
	}
	return ""
}
