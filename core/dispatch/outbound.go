package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// Server-to-client requests (2024-11-05 … 2025-11-25). A handler's Input
// sends each request on the stream of the call in progress (stdio: the one
// stream; Streamable HTTP: the POST's SSE stream) with an id from the
// session's own space, "polymcp:1", "polymcp:2", …, and waits for the
// client's response, which Session.handle routes here by id. Responses
// with ids the session did not issue are dropped.

// DefaultMaxClientRequests bounds the server-to-client requests awaiting
// an answer on one session (Config.MaxClientRequests).
const DefaultMaxClientRequests = 64

// ErrTooManyClientRequests is returned by Input when the session already
// has MaxClientRequests server-to-client requests awaiting an answer.
var ErrTooManyClientRequests = errors.New("polymcp: too many server-to-client requests awaiting an answer on this session")

// outbound is one server-to-client request awaiting its response.
type outbound struct {
	method string
	done   chan struct{}
	result []byte
	err    *jsonrpc.Error
}

const outboundPrefix = "polymcp:"

// ask sends reqs (already encoded, in key order) to the client and waits
// for every answer, the call's end or its deadline. On the call's end the
// requests still unanswered are cancelled with notifications/cancelled.
func (c *call) ask(ctx context.Context, keys []string, reqs []spec.InputRequest) (map[string]json.RawMessage, error) {
	for _, q := range reqs {
		if err := c.checkInput(q); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	c.asking++
	c.mu.Unlock()
	defer c.doneAsking()
	s := c.s
	ids := make([]jsonrpc.ID, len(reqs))
	obs := make([]*outbound, len(reqs))
	s.mu.Lock()
	if len(s.outbound)+len(reqs) > s.rt.maxClientRequests {
		s.mu.Unlock()
		return nil, ErrTooManyClientRequests
	}
	if s.outbound == nil {
		s.outbound = make(map[jsonrpc.ID]*outbound)
	}
	for i, q := range reqs {
		s.nextOut++
		ids[i] = jsonrpc.StringID(outboundPrefix + strconv.FormatUint(s.nextOut, 10))
		obs[i] = &outbound{method: q.Method, done: make(chan struct{})}
		s.outbound[ids[i]] = obs[i]
	}
	s.mu.Unlock()
	defer s.dropOutbound(ids)
	for i, q := range reqs {
		if err := c.send(jsonrpc.AppendRequest(nil, ids[i], q.Method, q.Params)); err != nil {
			return nil, err
		}
	}
	// The answers come in through the transport's reader, which must not be
	// this goroutine while it waits.
	c.Detach()
	out := make(map[string]json.RawMessage, len(reqs))
	for i, o := range obs {
		select {
		case <-o.done:
		case <-ctx.Done():
			c.cancelOutbound(ids[i:], obs[i:], context.Cause(ctx))
			return nil, context.Cause(ctx)
		}
		if o.err != nil {
			data, _ := jsonrpc.Marshal(o.err.Data)
			return nil, &router.ClientError{Method: o.method, Code: o.err.Code, Message: o.err.Message, Data: data}
		}
		if len(o.result) == 0 || o.result[0] != '{' {
			return nil, invalidParams("the client's answer to %s is not an object", o.method)
		}
		out[keys[i]] = o.result
	}
	return out, nil
}

// doneAsking ends one question to the client; see endReply.
func (c *call) doneAsking() {
	c.mu.Lock()
	c.asking--
	last := c.abandoned && c.asking == 0
	c.mu.Unlock()
	if last {
		c.endReply()
	}
}

// send writes a server-to-client message for the call unless it is over.
func (c *call) send(msg []byte) error {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done {
		return errFinished
	}
	c.s.send(c.directSink(), msg)
	return nil
}

func (c *call) directSink() transport.Sink {
	if b, ok := c.reply.(*batchSink); ok {
		return b.direct
	}
	return c.reply
}

// cancelOutbound tells the client to stop working on the requests not
// answered yet.
func (c *call) cancelOutbound(ids []jsonrpc.ID, obs []*outbound, cause error) {
	reason := "the request that asked for it ended"
	if cause != nil {
		reason = cause.Error()
	}
	for i, o := range obs {
		select {
		case <-o.done:
			continue
		default:
		}
		p := append([]byte(`{"requestId":`), jsonrpc.AppendID(nil, ids[i])...)
		p = append(p, `,"reason":`...)
		p = jsonrpc.AppendString(p, reason)
		p = append(p, '}')
		c.s.send(c.directSink(), jsonrpc.AppendNotification(nil, "notifications/cancelled", p))
	}
}

func (s *Session) dropOutbound(ids []jsonrpc.ID) {
	s.mu.Lock()
	for _, id := range ids {
		delete(s.outbound, id)
	}
	s.mu.Unlock()
}

// resolve completes the server-to-client request a response answers. It
// reports false for an id the session did not issue or no longer awaits.
func (s *Session) resolve(msg jsonrpc.Message) bool {
	if !msg.ID.IsString() {
		return false
	}
	s.mu.Lock()
	o := s.outbound[msg.ID]
	delete(s.outbound, msg.ID)
	s.mu.Unlock()
	if o == nil {
		return false
	}
	if msg.Kind == jsonrpc.KindError {
		o.err = msg.Error
		if o.err == nil {
			o.err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "error without details"}
		}
	} else {
		o.result = bytes.Clone(bytes.TrimSpace(msg.Result))
	}
	close(o.done)
	return true
}

// failOutbound ends every pending server-to-client request (session
// closed).
func (s *Session) failOutbound() {
	s.mu.Lock()
	pending := s.outbound
	s.outbound = nil
	s.mu.Unlock()
	for _, o := range pending {
		o.err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprint(errSessionClosed)}
		close(o.done)
	}
}
