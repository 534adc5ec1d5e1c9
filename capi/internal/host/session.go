package host

import (
	"context"
	"runtime"
	"sync"

	"github.com/polymcp/polymcp/transport"
)

// session is one polymcp_session_t: a connection whose bytes the host
// moves itself (its own stdio, a WebSocket, a test), fed one JSON-RPC
// message at a time.
type session struct {
	handle uint64
	srv    *Server
	sess   transport.Session
	sink   transport.Sink
	once   sync.Once
}

// SessionConfig is polymcp_session_open's options JSON.
type SessionConfig struct {
	// Revision fixes the revision of every message, as HTTP's
	// MCP-Protocol-Version header does; empty means negotiated.
	Revision string `json:"revision"`
	// Batches accepts JSON arrays of messages (2025-03-26 only).
	Batches *bool `json:"batches"`
}

// OpenSession starts a host-owned session on server h; send receives every
// message the session writes, until CloseSession or the server's Close.
func OpenSession(h uint64, options []byte, send Sender) (uint64, error) {
	var cfg SessionConfig
	if err := decodeStrict(options, "session options", &cfg); err != nil {
		return 0, err
	}
	s, err := openServer(h)
	if err != nil {
		return 0, err
	}
	info := transport.Info{Name: "capi", Batches: cfg.Batches == nil || *cfg.Batches, Revision: cfg.Revision}
	ss := &session{srv: s}
	ss.sink = hostSink{send}
	ss.sess = s.srv.NewSession(info, ss.sink)
	ss.handle = sessions.add(ss)
	s.mu.Lock()
	if s.state != stateOpen {
		s.mu.Unlock()
		ss.close()
		return 0, errorf(EClosed, "server %#x is closed", h)
	}
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	return ss.handle, nil
}

// Dispatch hands one message to session h, which owns msg from then on.
// A message that is not JSON is answered on the wire (-32700), like any
// other protocol error. The answers (and request-scoped
// notifications) reach the session's send callback, possibly before
// Dispatch returns and possibly later from other threads.
func Dispatch(h uint64, msg []byte) error {
	ss, err := sessions.get(h, EClosed, "was closed")
	if err != nil {
		return err
	}
	ss.sess.Deliver(context.Background(), msg, ss.sink)
	return nil
}

// CloseSession ends session h: its calls are cancelled and, once it
// returns, its send callback is never called again.
func CloseSession(h uint64) error {
	ss, err := sessions.get(h, EBadHandle, "was closed")
	if err != nil {
		return err
	}
	ss.close()
	return nil
}

func (ss *session) close() {
	ss.once.Do(func() {
		sessions.remove(ss.handle)
		ss.sess.Close()
		ss.srv.mu.Lock()
		delete(ss.srv.sessions, ss)
		ss.srv.mu.Unlock()
	})
}

// Stats reports the live handles, for leak checks in tests and bindings.
type Stats struct {
	Servers    int `json:"servers"`
	Calls      int `json:"calls"`
	Sessions   int `json:"sessions"`
	HTTP       int `json:"http"`
	Goroutines int `json:"goroutines"`
}

// CurrentStats returns the process's Stats.
func CurrentStats() Stats {
	return Stats{Servers: servers.Len(), Calls: calls.Len(), Sessions: sessions.Len(), HTTP: exchanges.Len(),
		Goroutines: runtime.NumGoroutine()}
}

// hostSink hands a session's messages to the host's send callback, which
// borrows each only until it returns (polymcp.h): a transport.Copier.
type hostSink struct{ send Sender }

func (h hostSink) Send(msg []byte) error { h.send.Send(msg); return nil }

func (hostSink) CopiesMessages() {}
