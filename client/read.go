package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// read is the goroutine that receives the server's messages until the
// connection ends.
func (c *Client) read() {
	defer close(c.done)
	for {
		msg, err := c.conn.Recv(c.ctx)
		if err != nil {
			var re *transport.RequestError
			if errors.As(err, &re) {
				c.requestFailed(re)
				continue
			}
			if errors.Is(err, transport.ErrClosed) || c.ctx.Err() != nil {
				err = ErrClosed
			} else {
				err = fmt.Errorf("%w: %w", ErrClosed, err) // the end, and why
			}
			c.end(err)
			return
		}
		c.handle(msg)
	}
}

// requestFailed fails the request the transport could not carry.
func (c *Client) requestFailed(re *transport.RequestError) {
	id, perr := jsonrpc.ParseID(re.ID, limits)
	if perr != nil {
		c.o.Logger.Debug("client: a transport failure for an unreadable id", "err", re)
		return
	}
	c.resolve(id, answer{err: re.Err})
}

// handle dispatches one message from the server.
func (c *Client) handle(frame []byte) {
	msg, err := jsonrpc.Decode(frame, limits)
	if err != nil {
		if msg.ID.IsValid() && msg.Kind != jsonrpc.KindRequest {
			c.resolve(msg.ID, answer{err: fmt.Errorf("client: malformed answer: %w", err)})
			return
		}
		c.o.Logger.Warn("client: a message from the server could not be decoded", "err", err)
		return
	}
	switch msg.Kind {
	case jsonrpc.KindResponse:
		c.resolve(msg.ID, answer{result: msg.Result})
	case jsonrpc.KindError:
		c.resolve(msg.ID, answer{err: msg.Error})
	case jsonrpc.KindNotification:
		c.notification(msg.Method, msg.Params)
	case jsonrpc.KindRequest:
		c.question(msg)
	}
}

// notification runs the callback of a server notification.
func (c *Client) notification(method string, params []byte) {
	var err error
	switch method {
	case "notifications/resources/updated", "notifications/tools/list_changed",
		"notifications/prompts/list_changed", "notifications/resources/list_changed":
		if c.modern && c.forClosedSubscription(params) {
			return
		}
	}
	switch method {
	case "notifications/progress":
		var p spec.ProgressParams
		if err = jsonrpc.UnmarshalOwned(params, &p); err == nil {
			c.progressed(p)
		}
	case "notifications/message":
		var p spec.LoggingMessageParams
		if err = jsonrpc.UnmarshalOwned(params, &p); err == nil && c.o.OnLog != nil {
			c.o.OnLog(p)
		}
	case "notifications/resources/updated":
		var p spec.ResourceUpdatedParams
		if err = jsonrpc.UnmarshalOwned(params, &p); err == nil && c.o.OnResourceUpdated != nil {
			c.o.OnResourceUpdated(p.URI)
		}
	case "notifications/tools/list_changed":
		call(c.o.OnToolsChanged)
	case "notifications/prompts/list_changed":
		call(c.o.OnPromptsChanged)
	case "notifications/resources/list_changed":
		call(c.o.OnResourcesChanged)
	case "notifications/cancelled":
		c.questionCancelled(params)
	case "notifications/subscriptions/acknowledged":
		err = c.acknowledged(params)
	}
	if err != nil {
		c.o.Logger.Warn("client: a notification with bad params", "method", method, "err", err)
	}
}

func call(f func()) {
	if f != nil {
		f()
	}
}

// progressed hands a progress notification to its call.
func (c *Client) progressed(p spec.ProgressParams) {
	c.mu.Lock()
	f := c.progress[tokenKey(p.ProgressToken)]
	c.mu.Unlock()
	if f != nil {
		f(p)
	}
}

// tokenKey is the map key of a progress token: the client's own tokens
// are strings, and a server echoes them unchanged.
func tokenKey(token any) string {
	s, _ := token.(string)
	return s
}

// question answers a server-to-client request (legacy revisions) on a
// goroutine of its own: a user may take minutes to answer.
func (c *Client) question(msg jsonrpc.Message) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	busy := len(c.asked) >= c.o.MaxQuestions
	if !busy {
		c.asked[msg.ID] = cancel
	}
	c.mu.Unlock()
	if busy {
		cancel()
		go c.reply(msg, nil, errTooManyQuestions) // an HTTP answer waits for its 202
		return
	}
	params := append([]byte(nil), msg.Params...)
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.asked, msg.ID)
			c.mu.Unlock()
			cancel()
		}()
		result, err := c.fulfil(ctx, msg.Method, params)
		if ctx.Err() != nil {
			return // cancelled by the server, or the client closed: no answer
		}
		c.reply(msg, result, err)
	}()
}

// errTooManyQuestions refuses a question over Options.MaxQuestions.
var errTooManyQuestions = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many requests in flight"}

// reply answers the server's question msg with result or err.
func (c *Client) reply(msg jsonrpc.Message, result []byte, err error) {
	var answer []byte
	if err != nil {
		answer = jsonrpc.AppendError(nil, msg.ID, wireError(err))
	} else {
		answer = jsonrpc.AppendResponse(nil, msg.ID, result)
	}
	if err := c.conn.Send(c.ctx, answer); err != nil {
		c.o.Logger.Debug("client: answering the server", "method", msg.Method, "err", err)
	}
}

// questionCancelled cancels the answering of a question the server has
// withdrawn.
func (c *Client) questionCancelled(params []byte) {
	var p spec.CancelledParams
	if err := jsonrpc.UnmarshalOwned(params, &p); err != nil {
		return
	}
	id, err := jsonrpc.ParseID(p.RequestID, limits)
	if err != nil {
		return
	}
	c.mu.Lock()
	cancel := c.asked[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// wireError is the JSON-RPC error answering a question whose handler
// failed: its own *jsonrpc.Error, or an internal error with its text.
func wireError(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}
