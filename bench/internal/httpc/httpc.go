// Package httpc is the load driver's Streamable HTTP client transport. Each
// request in flight has its own keep-alive connection (at most one per slot
// of the load's concurrency), so a server is loaded the way C independent
// clients would load it.
//
// Two shapes of the protocol are spoken:
//
//   - Legacy (2025-03-26 … 2025-11-25): initialize, then every POST carries
//     the Mcp-Session-Id the server minted (if it minted one: stateless
//     servers do not) and MCP-Protocol-Version; answers come as
//     application/json or as an SSE stream whose events hold the answer.
//   - Modern (2026-07-28): no handshake and no session; every request
//     carries params._meta (protocol version, client capabilities) and the
//     MCP-Protocol-Version, Mcp-Method and Mcp-Name headers.
package httpc

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bytedance/sonic"

	"github.com/polymcp/polymcp/bench/internal/load"
)

// Mode is the shape of Streamable HTTP a Conn speaks.
type Mode int

const (
	// Legacy is the session shape of 2025-03-26 … 2025-11-25.
	Legacy Mode = iota
	// Modern is the stateless 2026-07-28 shape.
	Modern
)

// Revisions the client asks for.
const (
	LegacyVersion = "2025-11-25"
	ModernVersion = "2026-07-28"
)

// modernMeta is params._meta of every 2026-07-28 request.
const modernMeta = `{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion +
	`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpbench","version":"0.1"}}`

// Conn is a load.ClientTransport, load.Handshaker and load.CallMetaer over
// Streamable HTTP.
//
// After the handshake, Send takes only the load's tools/call requests for
// the echo tool: their Mcp-Method and Mcp-Name headers are fixed.
type Conn struct {
	addr string // host:port
	path string
	host string // the Host header
	mode Mode

	// Set by Handshake.
	session string // Mcp-Session-Id, if the server minted one
	version string // the negotiated revision
	head    []byte // the head of every tools/call POST, up to "Content-Length: "

	// Replies to the load's calls by media type.
	jsonReplies, sseReplies atomic.Int64

	jobs    chan job
	answers chan answer
	pending atomic.Int64 // jobs sent and not yet answered
	workers atomic.Int64
	spare   chan *wire // connections left from the handshake

	mu    sync.Mutex
	wires []*wire

	last    *[]byte // the buffer behind the previous Recv's answer
	closed  chan struct{}
	dead    chan struct{}
	once    sync.Once
	failErr error
	failMu  sync.Once
}

type job struct {
	frame *[]byte
}

// answer is one message for Recv. buf, if not nil, is released once the
// message has been used: an SSE body's messages share it, and only the last
// carries it.
type answer struct {
	msg []byte
	buf *[]byte
}

var errClosed = errors.New("connection closed")

// New returns a client for the MCP endpoint at rawURL (http only).
func New(rawURL string, mode Mode) (*Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("want an http:// URL, got %q", rawURL)
	}
	addr := u.Host
	if u.Port() == "" {
		addr += ":80"
	}
	path := u.RequestURI()
	return &Conn{
		addr: addr, path: path, host: u.Host, mode: mode,
		jobs:    make(chan job, 1<<14),
		answers: make(chan answer, 1<<14),
		spare:   make(chan *wire, 1),
		closed:  make(chan struct{}),
		dead:    make(chan struct{}),
	}, nil
}

// Replies says how the server answered the load's calls: "json", "sse",
// or both with their counts.
func (c *Conn) Replies() string {
	j, e := c.jsonReplies.Load(), c.sseReplies.Load()
	switch {
	case j > 0 && e > 0:
		return fmt.Sprintf("json %d, sse %d", j, e)
	case e > 0:
		return "sse"
	case j > 0:
		return "json"
	}
	return ""
}

// Session returns the Mcp-Session-Id the server minted, if any.
func (c *Conn) Session() string { return c.session }

// CallMeta is params._meta for the load's calls: the 2026-07-28 keys in
// Modern mode, none in Legacy mode.
func (c *Conn) CallMeta() string {
	if c.mode == Modern {
		return modernMeta
	}
	return ""
}

// baseHead is the head of a POST up to "Content-Length: ", with the session
// and version headers known so far and any extra header lines.
func (c *Conn) baseHead(extra ...string) []byte {
	var b strings.Builder
	b.WriteString("POST " + c.path + " HTTP/1.1\r\nHost: " + c.host +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
	if c.session != "" {
		b.WriteString("Mcp-Session-Id: " + c.session + "\r\n")
	}
	if c.version != "" {
		b.WriteString("MCP-Protocol-Version: " + c.version + "\r\n")
	}
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Content-Length: ")
	return []byte(b.String())
}

// Handshake opens the session: initialize, notifications/initialized and
// tools/list in Legacy mode; tools/list alone in Modern mode. tools/list
// must list echo.
func (c *Conn) Handshake(timeout time.Duration) (load.ServerInfo, error) {
	w, err := dialWire(c.addr)
	if err != nil {
		return load.ServerInfo{}, err
	}
	w.conn().SetDeadline(time.Now().Add(timeout))
	info, err := c.handshake(w)
	if err != nil {
		w.shutdown()
		return info, err
	}
	if nc := w.conn(); nc != nil { // nil if the server asked to close it
		nc.SetDeadline(time.Time{})
	}
	c.mu.Lock()
	c.wires = append(c.wires, w)
	c.mu.Unlock()
	c.spare <- w
	extra := []string{}
	if c.mode == Modern {
		extra = append(extra, "Mcp-Method: tools/call", "Mcp-Name: echo")
	}
	c.head = c.baseHead(extra...)
	return info, nil
}

func (c *Conn) handshake(w *wire) (load.ServerInfo, error) {
	var info load.ServerInfo
	if c.mode == Modern {
		c.version = ModernVersion
		var list struct {
			toolList
			Meta struct {
				ServerInfo load.ServerInfo `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		frame := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + modernMeta + `}}`
		if err := c.call(w, frame, "2", &list, "Mcp-Method: tools/list"); err != nil {
			return info, fmt.Errorf("tools/list: %w", err)
		}
		info = list.Meta.ServerInfo
		info.ProtocolVersion = ModernVersion
		if !list.has("echo") {
			return info, errors.New("server lists no echo tool")
		}
		return info, nil
	}
	var init struct {
		ProtocolVersion string          `json:"protocolVersion"`
		ServerInfo      load.ServerInfo `json:"serverInfo"`
	}
	frame := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + LegacyVersion +
		`","capabilities":{},"clientInfo":{"name":"mcpbench","version":"0.1"}}}`
	resp, err := c.post(w, []byte(frame))
	if err != nil {
		return info, fmt.Errorf("initialize: %w", err)
	}
	c.session = resp.session
	err = decodeAnswer(resp, "1", &init)
	putBuf(resp.buf)
	if err != nil {
		return info, fmt.Errorf("initialize: %w", err)
	}
	info = init.ServerInfo
	info.ProtocolVersion = init.ProtocolVersion
	c.version = init.ProtocolVersion
	resp, err = c.post(w, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return info, fmt.Errorf("notifications/initialized: %w", err)
	}
	putBuf(resp.buf)
	if resp.status/100 != 2 {
		return info, fmt.Errorf("notifications/initialized: HTTP %d", resp.status)
	}
	var list toolList
	if err := c.call(w, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2", &list); err != nil {
		return info, fmt.Errorf("tools/list: %w", err)
	}
	if !list.has("echo") {
		return info, errors.New("server lists no echo tool")
	}
	return info, nil
}

type toolList struct {
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func (l *toolList) has(name string) bool {
	for _, t := range l.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func (c *Conn) post(w *wire, frame []byte, extra ...string) (*response, error) {
	return w.roundTrip(c.baseHead(extra...), frame)
}

// call posts a request and decodes the result of the answer with id.
func (c *Conn) call(w *wire, frame, id string, result any, extra ...string) error {
	resp, err := c.post(w, []byte(frame), extra...)
	if err != nil {
		return err
	}
	defer putBuf(resp.buf)
	return decodeAnswer(resp, id, result)
}

// decodeAnswer finds the answer with id in resp (a JSON body or an SSE
// stream) and decodes its result.
func decodeAnswer(resp *response, id string, result any) error {
	if resp.status != 200 {
		return fmt.Errorf("HTTP %d: %.200s", resp.status, resp.body)
	}
	for _, msg := range messages(resp) {
		var m struct {
			ID     sonic.NoCopyRawMessage `json:"id"`
			Result sonic.NoCopyRawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := sonic.Unmarshal(msg, &m); err != nil {
			return fmt.Errorf("undecodable answer %.200q: %w", msg, err)
		}
		if string(m.ID) != id {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
		}
		return sonic.Unmarshal(m.Result, result)
	}
	return fmt.Errorf("no answer with id %s in the %s reply: %.200q", id, resp.ctype, resp.body)
}

// messages returns the JSON-RPC messages of a 2xx reply.
func messages(resp *response) [][]byte {
	switch {
	case resp.ctype == "text/event-stream":
		return events(resp.body)
	case len(resp.body) > 0:
		return [][]byte{resp.body}
	}
	return nil
}

// Send hands frame to a connection that is free, opening one if none is.
func (c *Conn) Send(frame []byte) error {
	select {
	case <-c.dead:
		return c.failErr
	case <-c.closed:
		return errClosed
	default:
	}
	if c.head == nil {
		return errors.New("Send before Handshake")
	}
	b := getBuf()
	*b = append((*b)[:0], frame...)
	if c.pending.Add(1) > c.workers.Load() {
		c.workers.Add(1)
		go c.worker()
	}
	c.jobs <- job{frame: b}
	return nil
}

// Flush does nothing: Send hands each request on at once.
func (c *Conn) Flush() error { return nil }

// Recv returns the next message from any connection.
func (c *Conn) Recv() ([]byte, error) {
	if c.last != nil {
		putBuf(c.last)
		c.last = nil
	}
	select {
	case a := <-c.answers:
		c.last = a.buf
		return a.msg, nil
	case <-c.dead:
		return nil, c.failErr
	case <-c.closed:
		return nil, errClosed
	}
}

// Close ends every connection; a blocked Recv returns.
func (c *Conn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.mu.Lock()
		for _, w := range c.wires {
			w.shutdown()
		}
		c.mu.Unlock()
	})
	return nil
}

func (c *Conn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

func (c *Conn) fail(err error) {
	c.failMu.Do(func() { c.failErr = err; close(c.dead) })
}

// worker owns one connection and carries requests on it, one at a time.
func (c *Conn) worker() {
	var w *wire
	select {
	case w = <-c.spare:
	default:
		var err error
		if w, err = dialWire(c.addr); err != nil {
			c.fail(err)
			return
		}
		c.mu.Lock()
		c.wires = append(c.wires, w)
		closed := c.isClosed()
		c.mu.Unlock()
		if closed {
			w.shutdown()
			return
		}
	}
	for {
		select {
		case j := <-c.jobs:
			if !c.do(w, j) {
				return
			}
		case <-c.closed:
			return
		case <-c.dead:
			return
		}
	}
}

// do carries one request and queues what came back. It reports whether the
// worker should go on.
func (c *Conn) do(w *wire, j job) bool {
	frame := *j.frame
	resp, err := w.roundTrip(c.head, frame)
	if errors.Is(err, errRetry) {
		resp, err = w.roundTrip(c.head, frame)
	}
	if err != nil {
		select {
		case <-c.closed:
		default:
			c.fail(err)
		}
		putBuf(j.frame)
		return false
	}
	c.pending.Add(-1)
	switch resp.ctype {
	case "text/event-stream":
		c.sseReplies.Add(1)
	case "application/json":
		c.jsonReplies.Add(1)
	}
	var msgs [][]byte
	if resp.status/100 == 2 {
		msgs = messages(resp)
	}
	if len(msgs) == 0 {
		// Turn an HTTP error, or a reply without the answer, into an
		// error answer for the request, so the load counts it and frees
		// its slot.
		c.answers <- answer{msg: httpError(frame, resp), buf: resp.buf}
		putBuf(j.frame)
		return true
	}
	putBuf(j.frame)
	for i, m := range msgs {
		a := answer{msg: m}
		if i == len(msgs)-1 {
			a.buf = resp.buf
		}
		c.answers <- a
	}
	return true
}

// httpError makes a JSON-RPC error answer to frame that describes resp.
func httpError(frame []byte, resp *response) []byte {
	id := []byte("null")
	if node, err := sonic.Get(frame, "id"); err == nil {
		if raw, err := node.Raw(); err == nil {
			id = []byte(raw)
		}
	}
	why := fmt.Sprintf("HTTP %d %s reply without an answer: %.200q", resp.status, resp.ctype, resp.body)
	msg, _ := sonic.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": sonic.NoCopyRawMessage(id),
		"error": map[string]any{"code": -32000, "message": why},
	})
	return msg
}
