package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// HTTPConn is a Conn over HTTP that behaves as a client of one revision
// would. On Streamable HTTP every message is POSTed; what the server answers
// in the POST's reply (a JSON body or an SSE stream) and, on the legacy
// revisions, on the session's GET stream, is received in arrival order. On
// 2024-11-05 it speaks HTTP+SSE: one GET /sse stream carries every answer.
//
// The transport's own artefacts stay out of the conversation: a 202 or an
// empty reply yields no message, and a reply whose body is not JSON-RPC is
// reported as an error by Recv.
type HTTPConn struct {
	client   *http.Client
	endpoint string // POST target: /mcp, or the 2024-11-05 message URL
	revision string
	modern   bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	in     chan []byte
	errs   chan error

	mu        sync.Mutex
	session   string // Mcp-Session-Id, once initialize minted one
	version   string // the negotiated revision, sent as MCP-Protocol-Version
	streaming bool   // the session's GET stream is open
}

// headerWait is how long Send waits for a reply's headers before it lets
// the next message go, so that messages reach the server in order without
// a slow call holding up the cancellation that follows it.
const headerWait = 200 * time.Millisecond

// DialHTTP connects to the MCP endpoint base (http://host:port/mcp) as a
// client of revision. For 2024-11-05 it opens base's sibling /sse stream and
// waits for its endpoint event.
func DialHTTP(ctx context.Context, base, revision string) (*HTTPConn, error) {
	ctx, cancel := context.WithCancel(ctx)
	c := &HTTPConn{client: &http.Client{}, endpoint: base, revision: revision, modern: revision >= "2026-07-28",
		ctx: ctx, cancel: cancel, in: make(chan []byte, 256), errs: make(chan error, 16)}
	if revision == "2024-11-05" {
		if err := c.openSSE(base); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Close ends every request and stream and waits for their readers.
func (c *HTTPConn) Close() {
	c.cancel()
	c.wg.Wait()
}

// Send POSTs msg. It returns once the reply's headers arrived or headerWait
// passed; initialize is awaited whole, since later messages need the
// session it mints.
func (c *HTTPConn) Send(msg []byte) error {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.mu.Lock()
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	c.mu.Unlock()
	env := peek(msg)
	if c.modern {
		modernHeaders(req.Header, env, c.revision)
	}
	headers, read := make(chan error, 1), make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(read)
		resp, err := c.client.Do(req)
		headers <- err
		if err != nil {
			return
		}
		defer resp.Body.Close()
		c.readReply(resp, env.Method == "initialize")
	}()
	if env.Method == "initialize" {
		if err := <-headers; err != nil {
			return err
		}
		<-read // the reply has been read: the session is known
		return c.openSessionStream()
	}
	select {
	case err := <-headers:
		return err
	case <-time.After(headerWait):
		return nil
	}
}

// Recv returns the next message from any reply or stream.
func (c *HTTPConn) Recv(ctx context.Context) ([]byte, error) {
	select {
	case msg := <-c.in:
		return msg, nil
	case err := <-c.errs:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *HTTPConn) fail(err error) {
	select {
	case c.errs <- err:
	default:
	}
}

// readReply delivers the messages of one POST reply.
func (c *HTTPConn) readReply(resp *http.Response, initialize bool) {
	if initialize {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			c.mu.Lock()
			c.session = id
			c.mu.Unlock()
		}
	}
	ctype := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ctype, "text/event-stream"):
		c.readEvents(resp.Body, func(_, data string) { c.deliver([]byte(data), initialize) })
	default:
		body, err := io.ReadAll(resp.Body)
		if err != nil && c.ctx.Err() == nil {
			c.fail(fmt.Errorf("reading the reply: %w", err))
			return
		}
		body = bytes.TrimSpace(body)
		switch {
		case len(body) == 0:
			// 202 Accepted, or a reply that ends without an answer.
		case strings.HasPrefix(ctype, "application/json"):
			c.deliver(body, initialize)
		default:
			c.fail(fmt.Errorf("HTTP %d with %q: %s", resp.StatusCode, ctype, body))
		}
	}
}

// deliver queues one message, noting the revision an initialize result
// negotiated.
func (c *HTTPConn) deliver(msg []byte, initialize bool) {
	if initialize {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &r) == nil && r.Result.ProtocolVersion != "" {
			c.mu.Lock()
			c.version = r.Result.ProtocolVersion
			c.mu.Unlock()
		}
	}
	select {
	case c.in <- msg:
	case <-c.ctx.Done():
	}
}

// readEvents calls fn for each SSE event of r until it ends.
func (c *HTTPConn) readEvents(r io.Reader, fn func(event, data string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var event string
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			// An event without data (the priming event that carries only an
			// id for resumption) is no message.
			if msg := strings.Join(data, "\n"); msg != "" {
				fn(event, msg)
			}
			event, data = "", nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil && c.ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		c.fail(fmt.Errorf("reading an event stream: %w", err))
	}
}

// openSessionStream opens the legacy session's GET stream, which carries
// the notifications tied to no request (list changes, resource updates).
func (c *HTTPConn) openSessionStream() error {
	c.mu.Lock()
	session, version, open := c.session, c.version, c.streaming
	c.streaming = c.streaming || session != ""
	c.mu.Unlock()
	if session == "" || open {
		return nil // initialize failed, or the stream is already open
	}
	return c.stream(c.endpoint, http.Header{"Mcp-Session-Id": {session}, "Mcp-Protocol-Version": {version}},
		func(_, data string) { c.deliver([]byte(data), false) })
}

// stream GETs the event stream at target and hands its events to fn on a
// reader goroutine until the stream or the Conn ends.
func (c *HTTPConn) stream(target string, h http.Header, fn func(event, data string)) error {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	req.Header = h
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fmt.Errorf("GET %s: HTTP %d", target, resp.StatusCode)
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer resp.Body.Close()
		c.readEvents(resp.Body, fn)
	}()
	return nil
}

// openSSE opens the 2024-11-05 stream and takes the message URL from its
// endpoint event; every later event is a message.
func (c *HTTPConn) openSSE(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	u.Path = "/sse"
	endpoint := make(chan string, 1)
	err = c.stream(u.String(), http.Header{}, func(event, data string) {
		if event == "endpoint" {
			endpoint <- data
			return
		}
		c.deliver([]byte(data), false)
	})
	if err != nil {
		return err
	}
	select {
	case e := <-endpoint:
		ref, err := url.Parse(e)
		if err != nil {
			return fmt.Errorf("endpoint event %q: %w", e, err)
		}
		c.endpoint = u.ResolveReference(ref).String()
		return nil
	case <-time.After(GroupTimeout):
		return errors.New("no endpoint event on /sse")
	}
}

// envelope is what a client reads of its own message to set headers.
type envelope struct {
	Method string `json:"method"`
	Params struct {
		Name   string `json:"name"`
		URI    string `json:"uri"`
		TaskID string `json:"taskId"`
		Meta   struct {
			ProtocolVersion json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// peek reads msg's envelope; a message that is not an object (a batch, bad
// JSON) yields the zero envelope.
func peek(msg []byte) envelope {
	var e envelope
	_ = json.Unmarshal(msg, &e)
	return e
}

// modernHeaders sets the 2026-07-28 request headers from the body, as a
// conforming client does; values that are not plain visible ASCII use the
// =?base64?…?= form. A body without a protocolVersion still goes out with
// the client's revision in MCP-Protocol-Version.
func modernHeaders(h http.Header, e envelope, revision string) {
	version := revision
	if e.Params.Meta.ProtocolVersion != nil {
		var v string
		if json.Unmarshal(e.Params.Meta.ProtocolVersion, &v) != nil {
			v = string(e.Params.Meta.ProtocolVersion) // a number, say: sent as written
		}
		version = v
	}
	if version != "" {
		h.Set("MCP-Protocol-Version", headerValue(version))
	}
	if e.Method == "" {
		return
	}
	h.Set("Mcp-Method", headerValue(e.Method))
	switch e.Method {
	case "tools/call", "prompts/get":
		if e.Params.Name != "" {
			h.Set("Mcp-Name", headerValue(e.Params.Name))
		}
	case "resources/read":
		if e.Params.URI != "" {
			h.Set("Mcp-Name", headerValue(e.Params.URI))
		}
	case "tasks/get", "tasks/update", "tasks/cancel":
		if e.Params.TaskID != "" {
			h.Set("Mcp-Name", headerValue(e.Params.TaskID))
		}
	}
}

func headerValue(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
		}
	}
	return s
}
