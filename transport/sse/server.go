package sse

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport"
)

// SessionParam is the query parameter of the message URL that names the
// session: messagePath?sessionId=<id>.
const SessionParam = "sessionId"

// Why a stream ended, as Stream returns it.
var (
	ErrTooManySessions = errors.New("sse: too many open sessions")
	ErrServerClosed    = errors.New("sse: server closed")
	ErrSlowClient      = errors.New("sse: client reads too slowly; stream closed")
	ErrWriteTimeout    = errors.New("sse: write to client timed out; stream closed")
	errEnded           = errors.New("sse: stream ended")
)

// info is what every session is told about its connection. Revision stays
// empty: a legacy session negotiates its revision in initialize (clients
// of this transport ask for 2024-11-05 or newer), and the dispatcher
// decides whether the negotiated revision accepts batches.
var info = transport.Info{Name: "sse", Batches: true}

// Server serves the 2024-11-05 HTTP+SSE transport over the dispatcher. Its
// methods are safe for concurrent use.
type Server struct {
	srv transport.Server
	o   Options

	mu       sync.Mutex
	sessions map[string]*session
	opening  int // slots reserved by Streams still creating their session
	closed   bool
}

type session struct {
	id   string
	sess transport.Session
	q    *queue
}

// New returns a Server for srv (an *mcp.Server, or any transport.Server).
func New(srv transport.Server, opts *Options) *Server {
	return &Server{srv: srv, o: opts.withDefaults(), sessions: make(map[string]*session)}
}

// Stream serves one GET of the SSE endpoint: it opens a session, sends the
// "endpoint" event naming messagePath?sessionId=<id>, then every message of
// the session as a "message" event, with keep-alive comments between. It
// returns when ctx is done (the client left) or the server closes (nil),
// or when a write fails (that error), times out (ErrWriteTimeout) or the
// client reads too slowly (ErrSlowClient). The session ends with the
// stream, cancelling its calls. When no session can be opened Stream
// answers 503 with Retry-After and returns ErrTooManySessions or
// ErrServerClosed.
func (s *Server) Stream(ctx context.Context, messagePath string, out Output) error {
	ss, err := s.open()
	if err != nil {
		if werr := unavailable(out, err); werr != nil {
			return werr
		}
		return err
	}
	defer s.drop(ss)
	w := newWriter(out, s.o.WriteTimeout, func() {
		ss.q.end(ErrWriteTimeout)
		s.drop(ss)
	})
	defer w.stop()
	err = w.start(AppendEvent(nil, "", "endpoint", []byte(endpoint(messagePath, ss.id))))
	if err == nil {
		err = s.pump(ctx, ss, w)
	}
	if _, _, reason := ss.q.take(); reason != nil {
		err = reason // a write failing after the timeout fired reports the timeout
	}
	if err != nil {
		s.o.Logger.Debug("polymcp: SSE stream ended", "session", ss.id, "err", err)
	}
	return err
}

func endpoint(messagePath, id string) string {
	sep := "?"
	if strings.Contains(messagePath, "?") {
		sep = "&"
	}
	return messagePath + sep + SessionParam + "=" + url.QueryEscape(id)
}

// open reserves a slot, then creates the session outside the lock: Post
// must never see a half-built session.
func (s *Server) open() (*session, error) {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil, ErrServerClosed
	case len(s.sessions)+s.opening >= s.o.MaxSessions:
		s.mu.Unlock()
		return nil, ErrTooManySessions
	}
	s.opening++
	s.mu.Unlock()

	ss := &session{id: rand.Text(), q: newQueue(s.o.MaxQueueBytes)}
	// Replies and the session's other messages share the one stream.
	ss.sess = s.srv.NewSession(info, ss.q)

	s.mu.Lock()
	s.opening--
	closed := s.closed
	if !closed {
		s.sessions[ss.id] = ss
	}
	s.mu.Unlock()
	if closed {
		ss.sess.Close()
		return nil, ErrServerClosed
	}
	return ss, nil
}

// drop ends a session: no new POST reaches it, its calls are cancelled and
// its stream stops. It is idempotent and safe from any goroutine.
func (s *Server) drop(ss *session) {
	s.mu.Lock()
	if s.sessions[ss.id] == ss {
		delete(s.sessions, ss.id)
	}
	s.mu.Unlock()
	ss.q.end(nil)
	ss.sess.Close()
}

// Post delivers one POSTed message to the session named by sessionID (the
// SessionParam of the message URL) and returns the HTTP answer: 202 with no
// body once delivered (the JSON-RPC answer goes to the stream), 400 for a
// missing id or a body that is not one JSON text, 404 for an unknown or
// ended session. A non-nil body is a JSON-RPC error object, to be sent as
// application/json. The session owns body from then on. Body size limits
// are the host's.
func (s *Server) Post(ctx context.Context, sessionID string, body []byte) (int, []byte) {
	if sessionID == "" {
		return http.StatusBadRequest, errorBody(jsonrpc.CodeInvalidRequest, "missing "+SessionParam+" query parameter")
	}
	s.mu.Lock()
	ss := s.sessions[sessionID]
	s.mu.Unlock()
	if ss == nil || ss.q.isEnded() {
		return http.StatusNotFound, errorBody(jsonrpc.CodeInvalidRequest, "unknown or closed session")
	}
	if err := jsonrpc.Valid(body, jsonrpc.Limits{}); err != nil {
		return http.StatusBadRequest, jsonrpc.AppendError(nil, jsonrpc.NullID, err)
	}
	// The POST ending is not a cancel: the answer travels on the stream,
	// and only the stream ending cancels the session's calls.
	ss.sess.Deliver(context.WithoutCancel(ctx), body, ss.q)
	return http.StatusAccepted, nil
}

// Len returns the number of open sessions.
func (s *Server) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Close ends every session and refuses new ones (503). Each Stream returns
// as soon as its current write is done, which WriteTimeout bounds.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		s.drop(ss)
	}
}

func unavailable(out Output, err error) error {
	h := http.Header{"Content-Type": {"application/json"}, "Retry-After": {retryAfter}}
	if e := out.Start(http.StatusServiceUnavailable, h); e != nil {
		return e
	}
	msg := "too many open SSE sessions; retry later"
	if errors.Is(err, ErrServerClosed) {
		msg = "server is shutting down"
	}
	if e := out.Write(errorBody(jsonrpc.CodeInternalError, msg)); e != nil {
		return e
	}
	return out.Flush()
}

func errorBody(code int64, msg string) []byte {
	return jsonrpc.AppendError(nil, jsonrpc.NullID, &jsonrpc.Error{Code: code, Message: msg})
}
