package streamhttp_test

import (
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/transport/streamhttp"
)

const (
	initReq     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initResp    = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	callReq     = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow"}}`
	callResp    = `{"jsonrpc":"2.0","id":9,"result":{"content":[]}}`
	cancelReq   = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`
)

// legacyServer is a hand-written legacy Streamable HTTP server: initialize
// mints session "sess-1" at 2025-06-18; every later request must name it.
// Tests set get and call to serve the GET stream and tools/call.
type legacyServer struct {
	t       *testing.T
	get     http.HandlerFunc // nil: 405
	call    http.HandlerFunc // tools/call, after the header checks
	expired atomic.Bool      // answer 404 to the session from now on

	mu    sync.Mutex
	log   []string // "METHOD rpc-method" of each request
	posts []string // bodies of the notifications
}

func (s *legacyServer) record(entry string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, entry)
}

func (s *legacyServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *legacyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := s.t
	var m rpc
	var body string
	if r.Method == http.MethodPost {
		m, body = readRPC(t, r)
		assert.Equal(t, []string{"application/json"}, r.Header.Values("Content-Type"))
		assert.Equal(t, []string{"application/json, text/event-stream"}, r.Header.Values("Accept"))
	}
	s.record(r.Method + " " + m.Method)
	assert.Empty(t, r.Header.Values("Mcp-Method"), "no 2026-07-28 header on a legacy session")
	if m.Method == "initialize" {
		assert.Empty(t, r.Header.Values("Mcp-Session-Id"))
		assert.Empty(t, r.Header.Values("MCP-Protocol-Version"))
		w.Header().Set("Mcp-Session-Id", "sess-1")
		reply(w, 200, "application/json", initResp)
		return
	}
	assert.Equal(t, []string{"sess-1"}, r.Header.Values("Mcp-Session-Id"), r.Method+" "+m.Method)
	assert.Equal(t, []string{"2025-06-18"}, r.Header.Values("MCP-Protocol-Version"), r.Method+" "+m.Method)
	switch {
	case s.expired.Load():
		reply(w, 404, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"session not found"}}`)
	case r.Method == http.MethodGet && s.get != nil:
		assert.Equal(t, []string{"text/event-stream"}, r.Header.Values("Accept"))
		s.get(w, r)
	case r.Method == http.MethodGet, r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case m.Method == "tools/call":
		s.call(w, r)
	case m.Method == "" || m.ID == nil: // a response or a notification
		s.mu.Lock()
		s.posts = append(s.posts, body)
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	default:
		reply(w, 200, "application/json", `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
	}
}

// start serves s and returns a conn that has initialized a session on it.
func (s *legacyServer) start(t *testing.T, o *streamhttp.ClientOptions) *streamhttp.ClientConn {
	s.t = t
	c := dial(t, serveHTTP(t, s.ServeHTTP), o)
	sendMsg(t, c, initReq)
	assert.Equal(t, initResp, recvMsg(t, c))
	assert.Equal(t, "sess-1", c.SessionID())
	sendMsg(t, c, initialized)
	return c
}

// eventually waits until cond holds.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func count(list []string, entry string) int {
	n := 0
	for _, e := range list {
		if e == entry {
			n++
		}
	}
	return n
}

// TestClientLegacySession: the answer to initialize opens the session;
// every later POST, GET and DELETE names it and its revision; Close ends it.
func TestClientLegacySession(t *testing.T) {
	s := &legacyServer{}
	c := s.start(t, nil)
	eventually(t, func() bool { return count(s.requests(), "GET ") == 1 }, "no GET stream")
	sendMsg(t, c, listReq)
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{}}`, recvMsg(t, c))
	sendMsg(t, c, `{"jsonrpc":"2.0","id":"s1","result":{}}`) // answering a server request
	require.NoError(t, c.Close())
	assert.Equal(t, []string{"POST initialize", "POST notifications/initialized", "GET ", "POST tools/list", "POST ", "DELETE "},
		s.requests())
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Equal(t, []string{initialized, `{"jsonrpc":"2.0","id":"s1","result":{}}`}, s.posts)
}

// TestClientGetStream: the GET stream's events are queued; it reopens with
// Last-Event-ID after the server's retry, gives up after five reopenings in
// a row without an event, and stops at once on 405.
func TestClientGetStream(t *testing.T) {
	notice := func(n string) string {
		return `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"n":` + n + `}}`
	}
	t.Run("events and reopening", func(t *testing.T) {
		var gets atomic.Int32
		s := &legacyServer{get: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			switch gets.Add(1) {
			case 1:
				assert.Empty(t, r.Header.Values("Last-Event-ID"))
				_, _ = io.WriteString(w, "id: g-1\nretry: 10\ndata:\n\nid: g-2\ndata: "+notice("1")+"\n\ndata: "+pingReq+"\n\n")
			case 2:
				assert.Equal(t, []string{"g-2"}, r.Header.Values("Last-Event-ID"))
				_, _ = io.WriteString(w, "id: g-3\ndata: "+notice("2")+"\n\n")
			default:
				assert.Equal(t, []string{"g-3"}, r.Header.Values("Last-Event-ID"))
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}
		}}
		c := s.start(t, nil)
		assert.Equal(t, notice("1"), recvMsg(t, c))
		assert.Equal(t, pingReq, recvMsg(t, c))
		assert.Equal(t, notice("2"), recvMsg(t, c))
		eventually(t, func() bool { return gets.Load() == 3 }, "the stream was not reopened")
	})

	t.Run("gives up", func(t *testing.T) {
		var gets atomic.Int32
		log := &lockedLog{}
		s := &legacyServer{get: func(w http.ResponseWriter, _ *http.Request) {
			gets.Add(1)
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "retry: 1\n") // no event: a miss
		}}
		s.start(t, &streamhttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(log, nil))})
		eventually(t, func() bool { return gets.Load() == 6 }, "no reopening")
		eventually(t, func() bool { return len(log.String()) > 0 }, "no log")
		assert.Contains(t, log.String(), "GET stream lost")
		time.Sleep(50 * time.Millisecond) // fifty retry delays
		assert.EqualValues(t, 6, gets.Load(), "the first GET and five reopenings")
	})

	t.Run("405", func(t *testing.T) {
		log := &lockedLog{}
		s := &legacyServer{}
		c := s.start(t, &streamhttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(log, nil))})
		eventually(t, func() bool { return count(s.requests(), "GET ") == 1 }, "no GET stream")
		time.Sleep(1500 * time.Millisecond) // past the default retry delay
		require.NoError(t, c.Close())
		assert.Equal(t, 1, count(s.requests(), "GET "))
		assert.Empty(t, log.String())
	})
}

// TestClientSessionExpired: a 404 to a request naming the session fails it
// with ErrSessionExpired and forgets the session; initialize starts anew.
func TestClientSessionExpired(t *testing.T) {
	s := &legacyServer{}
	c := s.start(t, nil)
	s.expired.Store(true)
	sendMsg(t, c, listReq)
	re := recvFailure(t, c)
	assert.Equal(t, "7", string(re.ID))
	assert.ErrorIs(t, re, streamhttp.ErrSessionExpired)
	assert.Empty(t, c.SessionID())
	s.expired.Store(false)
	sendMsg(t, c, initReq) // the server checks it names no session
	assert.Equal(t, initResp, recvMsg(t, c))
	assert.Equal(t, "sess-1", c.SessionID())
}

// TestClientResume: a legacy reply stream that ends before the answer is
// followed with GET and Last-Event-ID (2025-11-25) until the answer.
func TestClientResume(t *testing.T) {
	primed := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "id: r-1\nretry: 10\ndata:\n\nid: r-2\ndata: "+progress+"\n\n")
	}
	cases := []struct {
		name    string
		get     func(n int32, w http.ResponseWriter, r *http.Request)
		want    []string
		wantErr error
	}{
		{name: "answer on the first GET", get: func(_ int32, w http.ResponseWriter, r *http.Request) {
			assert.Equal(t, []string{"r-2"}, r.Header.Values("Last-Event-ID"))
			reply(w, 200, "text/event-stream", "id: r-3\ndata: "+callResp+"\n\n")
		}, want: []string{progress, callResp}},
		{name: "polling", get: func(n int32, w http.ResponseWriter, r *http.Request) {
			if n < 8 { // more than five drops, each with an event
				assert.Equal(t, []string{"r-2"}, r.Header.Values("Last-Event-ID"))
				reply(w, 200, "text/event-stream", ": poll\n\nretry: 1\nid: r-2\ndata:\n\n")
				return
			}
			reply(w, 200, "text/event-stream", "id: r-3\ndata: "+callResp+"\n\n")
		}, want: []string{progress, callResp}},
		{name: "five empty resumptions", get: func(_ int32, w http.ResponseWriter, _ *http.Request) {
			reply(w, 200, "text/event-stream", "")
		}, want: []string{progress}, wantErr: streamhttp.ErrNoAnswer},
		{name: "session gone", get: func(_ int32, w http.ResponseWriter, _ *http.Request) {
			reply(w, 404, "text/plain", "gone")
		}, want: []string{progress}, wantErr: streamhttp.ErrSessionExpired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var gets atomic.Int32
			s := &legacyServer{call: primed, get: func(w http.ResponseWriter, r *http.Request) {
				// The GET stream of the session comes first, then resumptions.
				if n := gets.Add(1); n > 1 {
					tc.get(n-1, w, r)
					return
				}
				w.WriteHeader(http.StatusMethodNotAllowed)
			}}
			c := s.start(t, nil)
			eventually(t, func() bool { return gets.Load() == 1 }, "no GET stream")
			sendMsg(t, c, callReq)
			for _, want := range tc.want {
				assert.Equal(t, want, recvMsg(t, c))
			}
			if tc.wantErr != nil {
				re := recvFailure(t, c)
				assert.Equal(t, "9", string(re.ID))
				assert.ErrorIs(t, re, tc.wantErr)
			}
			if tc.name == "five empty resumptions" {
				assert.EqualValues(t, 1+5, gets.Load())
			}
		})
	}
}

// TestClientCancel: cancelling a 2026-07-28 request closes its stream and
// posts nothing; cancelling a legacy one posts the notification and reads
// on. Neither reports a failure for the request.
func TestClientCancel(t *testing.T) {
	modernCall := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow",` + meta + `}}`
	cases := []struct {
		name, call string
		posted     []string // notifications the server gets
		closed     bool     // the server sees the stream closed
	}{
		{name: "2026-07-28", call: modernCall, closed: true},
		{name: "legacy", call: callReq, posted: []string{cancelReq}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			started, ended, cancelled := make(chan struct{}), make(chan bool, 1), make(chan struct{})
			var mu sync.Mutex
			var posted []string
			ts := serveHTTP(t, func(w http.ResponseWriter, r *http.Request) {
				m, body := readRPC(t, r)
				switch m.Method {
				case "tools/call":
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = io.WriteString(w, "data: "+progress+"\n\n")
					w.(http.Flusher).Flush()
					close(started)
					select {
					case <-r.Context().Done():
						ended <- true
					case <-cancelled:
						// The server decided: no answer after a cancel.
						ended <- false
					}
				case "tools/list":
					reply(w, 200, "application/json", listResp)
				default:
					mu.Lock()
					posted = append(posted, body)
					mu.Unlock()
					w.WriteHeader(http.StatusAccepted)
					close(cancelled)
				}
			})
			c := dial(t, ts, nil)
			sendMsg(t, c, tc.call)
			<-started
			assert.Equal(t, progress, recvMsg(t, c))
			sendMsg(t, c, cancelReq)
			mu.Lock()
			assert.Equal(t, tc.posted, posted)
			mu.Unlock()
			select {
			case closed := <-ended:
				assert.Equal(t, tc.closed, closed)
			case <-time.After(bound):
				t.Fatal("the call did not end")
			}
			// Nothing more for request 9: the next item is the next answer.
			sendMsg(t, c, listReq)
			assert.Equal(t, listResp, recvMsg(t, c))
		})
	}
}
