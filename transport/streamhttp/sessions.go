package streamhttp

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"time"

	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/sse"
)

// legacySession is one initialize-era session (2025-03-26 … 2025-11-25):
// the dispatcher's session, the GET stream that carries messages tied to no
// request, and the resumable POST streams kept for Last-Event-ID.
type legacySession struct {
	id   string
	rev  string // the revision initialize negotiated
	sess transport.Session
	get  *sse.Store
	// ctx ends with the session, which ends its streams and waiting writers.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	lastUsed time.Time
	busy     int          // requests and streams in progress
	getOpen  bool         // a GET stream without Last-Event-ID is open
	posts    []*sse.Store // resumable POST streams, oldest first
}

func newLegacySession(o *Options) *legacySession {
	ls := &legacySession{id: rand.Text(), get: sse.NewStore(o.MaxStreamEvents, o.MaxStreamBytes), lastUsed: time.Now()}
	ls.ctx, ls.cancel = context.WithCancel(context.Background())
	return ls
}

// out is the session's sink for messages of no request: the GET stream.
func (ls *legacySession) out(msg []byte) error {
	if ls.get.Append(msg) == "" {
		return errSessionEnded
	}
	return nil
}

var (
	errSessionEnded = errors.New("streamhttp: session ended")
	errTooMany      = errors.New("streamhttp: too many sessions")
	errDraining     = errors.New("streamhttp: server is shutting down")
)

func (ls *legacySession) begin() {
	ls.mu.Lock()
	ls.busy++
	ls.lastUsed = time.Now()
	ls.mu.Unlock()
}

func (ls *legacySession) done() {
	ls.mu.Lock()
	ls.busy--
	ls.lastUsed = time.Now()
	ls.mu.Unlock()
}

func (ls *legacySession) touch() {
	ls.mu.Lock()
	ls.lastUsed = time.Now()
	ls.mu.Unlock()
}

func (ls *legacySession) expired(now time.Time, idle time.Duration) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.busy == 0 && now.Sub(ls.lastUsed) > idle
}

// openGet claims the session's one plain GET stream.
func (ls *legacySession) openGet() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.getOpen {
		return false
	}
	ls.getOpen = true
	return true
}

func (ls *legacySession) closeGet() {
	ls.mu.Lock()
	ls.getOpen = false
	ls.mu.Unlock()
}

// addStream keeps a POST stream for resumption, forgetting the oldest
// beyond max (a stream still being written goes on; it just can no longer
// be resumed).
func (ls *legacySession) addStream(st *sse.Store, max int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.posts) >= max {
		ls.posts[0] = nil
		ls.posts = ls.posts[1:]
	}
	ls.posts = append(ls.posts, st)
}

// stream finds the stream whose ids carry prefix.
func (ls *legacySession) stream(prefix string) *sse.Store {
	if prefix == "" {
		return nil
	}
	if ls.get.Stream() == prefix {
		return ls.get
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, st := range ls.posts {
		if st.Stream() == prefix {
			return st
		}
	}
	return nil
}

// close ends the session: its calls are cancelled and its streams end.
func (ls *legacySession) close() {
	ls.cancel()
	ls.sess.Close()
	ls.get.Close()
	ls.mu.Lock()
	posts := ls.posts
	ls.posts = nil
	ls.mu.Unlock()
	for _, st := range posts {
		st.Close()
	}
}

// sessionTable holds the live legacy sessions, at most max, each expiring
// after idle without requests or open streams.
type sessionTable struct {
	max  int
	idle time.Duration

	mu        sync.Mutex
	m         map[string]*legacySession
	draining  bool
	lastSweep time.Time
}

func newSessionTable(max int, idle time.Duration) *sessionTable {
	return &sessionTable{max: max, idle: idle, m: make(map[string]*legacySession), lastSweep: time.Now()}
}

// get returns the live session id names, or nil when it is unknown, ended
// or expired.
func (t *sessionTable) get(id string) *legacySession {
	now := time.Now()
	t.mu.Lock()
	var dead []*legacySession
	if now.Sub(t.lastSweep) > t.idle/4 {
		dead = t.sweepLocked(now)
	}
	ls := t.m[id]
	if ls != nil && ls.expired(now, t.idle) {
		delete(t.m, id)
		dead = append(dead, ls)
		ls = nil
	}
	t.mu.Unlock()
	for _, d := range dead {
		d.close()
	}
	return ls
}

// add registers a new session unless the table is full or draining.
func (t *sessionTable) add(ls *legacySession) error {
	now := time.Now()
	t.mu.Lock()
	var dead []*legacySession
	if len(t.m) >= t.max {
		dead = t.sweepLocked(now)
	}
	err := errTooMany
	switch {
	case t.draining:
		err = errDraining
	case len(t.m) < t.max:
		t.m[ls.id], err = ls, nil
	}
	t.mu.Unlock()
	for _, d := range dead {
		d.close()
	}
	return err
}

func (t *sessionTable) sweepLocked(now time.Time) []*legacySession {
	t.lastSweep = now
	var dead []*legacySession
	for id, ls := range t.m {
		if ls.expired(now, t.idle) {
			delete(t.m, id)
			dead = append(dead, ls)
		}
	}
	return dead
}

// end removes and closes ls (DELETE).
func (t *sessionTable) end(ls *legacySession) {
	t.mu.Lock()
	if t.m[ls.id] == ls {
		delete(t.m, ls.id)
	}
	t.mu.Unlock()
	ls.close()
}

// drain refuses new sessions and ends the GET streams of the others.
func (t *sessionTable) drain() {
	t.mu.Lock()
	t.draining = true
	all := make([]*legacySession, 0, len(t.m))
	for _, ls := range t.m {
		all = append(all, ls)
	}
	t.mu.Unlock()
	for _, ls := range all {
		ls.get.Close()
	}
}

func (t *sessionTable) closeAll() {
	t.mu.Lock()
	all := t.m
	t.m = make(map[string]*legacySession)
	t.mu.Unlock()
	for _, ls := range all {
		ls.close()
	}
}

// len returns the number of live sessions.
func (t *sessionTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}
