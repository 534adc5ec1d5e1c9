// Package host is the Go half of libpolymcp: the handle tables, the servers
// a C host creates, the calls it completes and the sessions it feeds. The
// capi package (package main) is a thin layer of //export functions over
// it; keeping the logic here lets it be tested with the race detector and a
// Go stand-in for the C callbacks.
//
// Lifecycle of a server:
//
//	NewServer ─► Add*/Serve*/OpenSession ─► (on_call ─► Complete/Fail)* ─► Close
//	        ─► transports stop, sessions close, calls get on_cancel ─► on_closed ─► Free
package host

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/mcp"
	"github.com/polymcp/polymcp/transport/stdio"
	"github.com/polymcp/polymcp/transport/streamhttp"
)

// The process's handle tables.
var (
	servers  = newTable[Server](kindServer)
	calls    = newTable[Call](kindCall)
	sessions = newTable[session](kindSession)
)

type serverState uint8

const (
	stateOpen serverState = iota
	stateClosing
	stateClosed
)

// Server is one polymcp_server_t.
type Server struct {
	handle uint64
	srv    *mcp.Server
	cb     Callbacks
	log    *slog.Logger

	mu         sync.Mutex
	state      serverState
	transports map[int]context.CancelFunc // running serve_* loops
	nextID     int
	sessions   map[*session]struct{}
	idle       chan struct{} // closed while nothing runs (see Wait)
	idleClosed bool
	serving    sync.WaitGroup

	tags tagTable

	// batch gathers the answers the host gives in one go over stdio
	// (polymcp_server_batch).
	batch stdio.Batch
	// pump reads the input of the last stdio transport started with
	// "pump" (polymcp_server_stdio_pump), or is nil.
	pump atomic.Pointer[stdio.Pump]

	// The Engine of host-owned HTTP (polymcp_server_http), made on first use.
	httpCfg    HTTPConfig
	engineOnce sync.Once
	eng        *streamhttp.Engine
	engineErr  error

	// logMu gates on_log against on_closed: logs hold it shared; the end of
	// Close takes it exclusively, after which logs are dropped.
	logMu   sync.RWMutex
	logDone bool
}

// NewServer creates a server from polymcp_server_new's options JSON.
func NewServer(options []byte, cb Callbacks) (uint64, error) {
	var cfg ServerConfig
	if err := decodeStrict(options, "options", &cfg); err != nil {
		return 0, err
	}
	if err := cfg.check(); err != nil {
		return 0, err
	}
	s := &Server{cb: cb, transports: map[int]context.CancelFunc{}, sessions: map[*session]struct{}{},
		idle: make(chan struct{})}
	s.log = slog.New(&logHandler{s: s})
	impl := &spec.Implementation{Name: cfg.Name, Version: cfg.Version, Title: cfg.Title}
	if impl.Name == "" {
		impl.Name = "polymcp-server"
	}
	if impl.Version == "" {
		impl.Version = "0.0.0"
	}
	srv, err := newMCPServer(impl, cfg.serverOptions(s.log))
	if err != nil {
		return 0, err
	}
	s.srv = srv
	if cfg.HTTP != nil {
		s.httpCfg = *cfg.HTTP
	}
	s.tags.init()
	s.setIdleLocked()
	s.handle = servers.add(s)
	return s.handle, nil
}

// newMCPServer turns mcp.NewServer's panic on bad options (a Go programming
// error) into the EInvalid a C caller expects for bad input.
func newMCPServer(impl *spec.Implementation, opts *mcp.ServerOptions) (srv *mcp.Server, err error) {
	defer func() {
		if r := recover(); r != nil {
			srv, err = nil, errorf(EInvalid, "options: %v", r)
		}
	}()
	return mcp.NewServer(impl, opts), nil
}

// lookupServer returns the live server of h.
func lookupServer(h uint64) (*Server, error) {
	return servers.get(h, EBadHandle, "was freed")
}

// openServer returns the server of h if it still accepts work.
func openServer(h uint64) (*Server, error) {
	s, err := lookupServer(h)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stateOpen {
		return nil, errorf(EClosed, "server %#x is closed", h)
	}
	return s, nil
}

// startTransport runs serve in a goroutine until it returns or Close
// cancels its context.
func (s *Server) startTransport(name string, serve func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	if s.state != stateOpen {
		s.mu.Unlock()
		cancel()
		return errorf(EClosed, "server %#x is closed", s.handle)
	}
	id := s.nextID
	s.nextID++
	s.transports[id] = cancel
	s.setBusyLocked()
	s.serving.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.serving.Done()
		if err := serve(ctx); err != nil {
			s.log.Error("polymcp: transport stopped", "transport", name, "err", err)
		}
		cancel()
		s.mu.Lock()
		delete(s.transports, id)
		s.setIdleLocked()
		s.mu.Unlock()
	}()
	return nil
}

// track counts one host-owned HTTP exchange in shutdown's wait (but not
// in Wait's idea of idle: those belong to the host's own server).
func (s *Server) track() (done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stateOpen {
		return nil, errorf(EClosed, "server %#x is closed", s.handle)
	}
	s.serving.Add(1)
	return s.serving.Done, nil
}

// setIdleLocked opens the idle channel when nothing runs any more.
func (s *Server) setIdleLocked() {
	if len(s.transports) == 0 && s.state != stateClosing && !s.idleClosed {
		close(s.idle)
		s.idleClosed = true
	}
}

func (s *Server) setBusyLocked() {
	if s.idleClosed {
		s.idle = make(chan struct{})
		s.idleClosed = false
	}
}

// Wait blocks until no transport runs and no Close is in progress, or until
// timeoutMs passes (negative: no limit).
func Wait(h uint64, timeoutMs int32) error {
	s, err := lookupServer(h)
	if err != nil {
		return err
	}
	s.mu.Lock()
	idle := s.idle
	s.mu.Unlock()
	if timeoutMs < 0 {
		<-idle
		return nil
	}
	t := time.NewTimer(time.Duration(timeoutMs) * time.Millisecond)
	defer t.Stop()
	select {
	case <-idle:
		return nil
	case <-t.C:
		return errorf(ETimeout, "server %#x still running after %d ms", h, timeoutMs)
	}
}

// Close starts the server's shutdown and returns; on_closed reports its end.
// A second Close does nothing.
func Close(h uint64) error {
	s, err := lookupServer(h)
	if err != nil {
		return err
	}
	s.close()
	return nil
}

// Free releases the handle, closing the server first if need be.
func Free(h uint64) error {
	s, err := lookupServer(h)
	if err != nil {
		return err
	}
	if !servers.remove(h) {
		return errorf(EBadHandle, "server handle %#x was freed", h)
	}
	s.close()
	return nil
}

func (s *Server) close() {
	s.mu.Lock()
	if s.state != stateOpen {
		s.mu.Unlock()
		return
	}
	s.state = stateClosing
	s.setBusyLocked()
	stops := make([]context.CancelFunc, 0, len(s.transports))
	for _, stop := range s.transports {
		stops = append(stops, stop)
	}
	open := make([]*session, 0, len(s.sessions))
	for ss := range s.sessions {
		open = append(open, ss)
	}
	s.mu.Unlock()
	go s.shutdown(stops, open)
}

// shutdown stops everything in the order that makes on_closed the last
// callback: transports and sessions first (no new calls, no more sends),
// then the executor, whose Wait returns once every handler (and with it
// every on_call and on_cancel) has returned.
func (s *Server) shutdown(stops []context.CancelFunc, open []*session) {
	for _, stop := range stops {
		stop()
	}
	for _, ss := range open {
		ss.close()
	}
	s.engineOnce.Do(func() {}) // no Engine is made after this
	if s.eng != nil {
		s.eng.Close() // ends host-owned HTTP exchanges still streaming
	}
	s.srv.Close()
	s.serving.Wait()
	_ = s.srv.Wait(context.Background())
	s.logMu.Lock()
	s.logDone = true
	s.logMu.Unlock()
	s.cb.OnClosed()
	s.mu.Lock()
	s.state = stateClosed
	s.setIdleLocked()
	s.mu.Unlock()
}
