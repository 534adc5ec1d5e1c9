package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"
	"unicode"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// checkParams refuses at once params that cannot be a JSON object; the
// rest of the check is send's, on the request's own goroutine, so that the
// host's thread does not wait for a large argument to be read.
func checkParams(params []byte) error {
	if i := bytes.IndexFunc(params, func(r rune) bool { return !unicode.IsSpace(r) }); i >= 0 && params[i] != '{' {
		return errorf(EInvalid, "params must be a JSON object")
	}
	return nil
}

// send runs one request on the connection. A few methods go through the
// client's typed calls, which do more than send (see polymcp.h); those that
// take no CallOptions get the request's timeout through their context.
func (c *Client) send(ctx context.Context, method string, params []byte, timeout time.Duration, opts []client.CallOption) ([]byte, error) {
	var members map[string]json.RawMessage
	if len(bytes.TrimSpace(params)) > 0 {
		// Checked and split once (the values stay raw, pointing into
		// params, which is the library's own copy).
		if err := jsonrpc.UnmarshalOwned(params, &members); err != nil {
			return nil, errorf(EInvalid, "params must be a JSON object: %v", err)
		}
	}
	if meta, ok := members["_meta"]; ok {
		// The client writes _meta itself (the revision's members first).
		delete(members, "_meta")
		var m map[string]json.RawMessage
		if json.Unmarshal(meta, &m) != nil {
			return nil, errorf(EInvalid, "params._meta must be a JSON object")
		}
		opts = append(opts, client.WithMeta(rawMeta(m)))
	}
	conn := c.conn
	_, cursor := members["cursor"]
	if method == "tools/call" {
		return callTool(ctx, conn, members, opts)
	}
	typedCtx := ctx // the typed calls below take no CallOptions
	if timeout > 0 {
		var cancel context.CancelFunc
		typedCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	switch {
	case method == "notifications/roots/list_changed":
		return []byte("{}"), conn.RootsChanged(typedCtx)
	case method == "ping":
		return []byte("{}"), conn.Ping(typedCtx)
	case method == "logging/setLevel":
		var level spec.LoggingLevel
		if json.Unmarshal(members["level"], &level) != nil {
			return nil, errorf(EInvalid, "logging/setLevel params need a level")
		}
		return []byte("{}"), conn.SetLogLevel(typedCtx, level)
	case method == "resources/subscribe" || method == "resources/unsubscribe":
		var uri string
		if json.Unmarshal(members["uri"], &uri) != nil || uri == "" {
			return nil, errorf(EInvalid, "%s params need a uri", method)
		}
		if method == "resources/subscribe" {
			return []byte("{}"), conn.Subscribe(typedCtx, uri)
		}
		return []byte("{}"), conn.Unsubscribe(typedCtx, uri)
	case !cursor && listAll[method] != nil:
		return listAll[method](typedCtx, conn)
	}
	var p any
	if members != nil {
		p = members
	}
	return conn.Request(ctx, method, p, opts...)
}

// rawMeta is a _meta object's members as the client's Meta, kept raw so
// that numbers keep every digit.
func rawMeta(members map[string]json.RawMessage) spec.Meta {
	meta := make(spec.Meta, len(members))
	for k, v := range members {
		meta[k] = v
	}
	return meta
}

func callTool(ctx context.Context, conn *client.Client, members map[string]json.RawMessage, opts []client.CallOption) ([]byte, error) {
	var name string
	if json.Unmarshal(members["name"], &name) != nil || name == "" {
		return nil, errorf(EInvalid, "tools/call params need a name")
	}
	var args any
	if raw := members["arguments"]; len(raw) > 0 && string(raw) != "null" {
		if raw[0] != '{' {
			return nil, errorf(EInvalid, "tools/call arguments must be a JSON object")
		}
		args = raw
	}
	return conn.CallToolRaw(ctx, name, args, opts...)
}

// listAll are the list methods that follow every page when the host gives
// no cursor.
var listAll = map[string]func(context.Context, *client.Client) ([]byte, error){
	"tools/list": func(ctx context.Context, c *client.Client) ([]byte, error) {
		return listed(c.ListTools(ctx))("tools")
	},
	"resources/list": func(ctx context.Context, c *client.Client) ([]byte, error) {
		return listed(c.ListResources(ctx))("resources")
	},
	"resources/templates/list": func(ctx context.Context, c *client.Client) ([]byte, error) {
		return listed(c.ListResourceTemplates(ctx))("resourceTemplates")
	},
	"prompts/list": func(ctx context.Context, c *client.Client) ([]byte, error) {
		return listed(c.ListPrompts(ctx))("prompts")
	},
}

// listed encodes a List call's items as a result object under key.
func listed[T any](items []T, err error) func(key string) ([]byte, error) {
	return func(key string) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		if items == nil {
			items = []T{}
		}
		return jsonrpc.Marshal(map[string]any{key: items})
	}
}

// listen opens a 2026-07-28 subscription for the request of tag. Its
// acknowledgement is the on_response; the tag stays pending while the
// subscription lasts, so that cancelling it (or closing the client) ends it.
func (c *Client) listen(ctx context.Context, r *request, tag uint64, params []byte) {
	var p struct {
		Notifications client.ListenFilter `json:"notifications"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			c.respond(tag, r, nil, errorf(EInvalid, "subscriptions/listen params: %v", err))
			return
		}
	}
	sub, err := c.conn.Listen(ctx, p.Notifications)
	if err != nil {
		c.respond(tag, r, nil, causeOf(ctx, err))
		return
	}
	body, err := jsonrpc.Marshal(map[string]any{"notifications": sub.Honoured})
	if err != nil {
		sub.Close()
		c.respond(tag, r, nil, err)
		return
	}
	c.cb.OnResponse(tag, OK, body)
	select {
	case <-ctx.Done(): // the host's cancel, or the client's close
	case <-sub.Done():
	}
	sub.Close()
	c.forget(tag, r)
	if ctx.Err() != nil {
		return // the host ended it (perhaps as the server did): it knows
	}
	// The server ended it (or its stream broke): the host is told, with
	// the tag free again.
	ended := subscriptionEnded{Tag: tag}
	if err := sub.Err(); err != nil {
		ended.Code, ended.Error = errorBody(err)
	}
	c.notifyJSON(SubscriptionEnded, ended)
}

// SubscriptionEnded is the notification of the library's own that tells
// the host a subscription it did not end has ended.
const SubscriptionEnded = "polymcp/subscription_ended"

// subscriptionEnded is its params: the listen request's tag and, when it
// was not the server's graceful end, why, as on_response would say it (its
// code and error object).
type subscriptionEnded struct {
	Tag   uint64          `json:"tag"`
	Code  Code            `json:"code,omitempty"`
	Error json.RawMessage `json:"error,omitempty"`
}

// progress passes a request's progress on, without its token (the tag
// names the request).
func (c *Client) progress(tag uint64, p spec.ProgressParams) {
	body, err := jsonrpc.Marshal(struct {
		Progress float64  `json:"progress"`
		Total    *float64 `json:"total,omitempty"`
		Message  string   `json:"message,omitempty"`
	}{p.Progress, p.Total, p.Message})
	if err != nil {
		return
	}
	c.unlessClosed(func() { c.cb.OnProgress(tag, body) })
}

func (c *Client) notifyJSON(method string, params any) {
	if body, err := jsonrpc.Marshal(params); err == nil {
		c.notify(method, body)
	}
}

// question is one polymcp_question_t: a server's request waiting for the
// host's answer.
type question struct {
	decode func([]byte) (any, error) // checks an answer for the method
	answer chan questionAnswer       // one place: the answer, given once
}

type questionAnswer struct {
	result any
	err    error
}

// ask puts a question of the server to the host and waits for the answer,
// the question's end (ctx) or the client's.
func ask[R any](ctx context.Context, c *Client, method string, params any) (*R, error) {
	body, err := jsonrpc.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil, client.ErrClosed
	}
	c.work.Add(1)
	c.mu.Unlock()
	defer c.work.Done()
	q := &question{answer: make(chan questionAnswer, 1), decode: func(b []byte) (any, error) {
		r := new(R)
		return r, jsonrpc.UnmarshalOwned(b, r)
	}}
	h := questions.add(q)
	c.cb.OnQuestion(h, method, body)
	var a questionAnswer
	select {
	case a = <-q.answer:
	case <-ctx.Done():
		err = ctx.Err()
	case <-c.ctx.Done():
		err = client.ErrClosed
	}
	if err != nil {
		if questions.remove(h) {
			c.cb.OnQuestionCancel(h)
			return nil, err
		}
		a = <-q.answer // answered as it ended: the answer won
	}
	if a.err != nil {
		return nil, a.err
	}
	return a.result.(*R), nil
}

// Answer answers question h with its result (polymcp_client_answer).
func Answer(h uint64, result []byte) error {
	q, err := questions.get(h, EUnknownCall, "was answered or is no longer wanted")
	if err != nil {
		return err
	}
	r, err := q.decode(result)
	if err != nil {
		return errorf(EInvalid, "answer: %v", err)
	}
	return q.give(h, questionAnswer{result: r})
}

// AnswerError fails question h (polymcp_client_answer_error).
func AnswerError(h uint64, code int32, msg string) error {
	q, err := questions.get(h, EUnknownCall, "was answered or is no longer wanted")
	if err != nil {
		return err
	}
	if code == 0 {
		code = jsonrpc.CodeInternalError
	}
	return q.give(h, questionAnswer{err: &jsonrpc.Error{Code: int64(code), Message: msg}})
}

// give hands the answer over, unless the question ended first.
func (q *question) give(h uint64, a questionAnswer) error {
	if !questions.remove(h) {
		return errorf(EUnknownCall, "question %#x was answered or is no longer wanted", h)
	}
	q.answer <- a
	return nil
}

// CodeOfClient is the C code of a client error.
func CodeOfClient(err error) Code {
	var (
		je *jsonrpc.Error
		oe *client.OutputError
		ve *client.UnsupportedVersionError
		he *Error
	)
	switch {
	case errors.As(err, &he):
		return he.Code
	case errors.As(err, &je):
		return ERPC
	case errors.As(err, &oe):
		return EOutput
	case errors.Is(err, errCancelled):
		return ECancelled
	case errors.Is(err, context.DeadlineExceeded):
		return ETimeout
	case errors.Is(err, client.ErrClosed), errors.Is(err, transport.ErrClosed):
		return EClosed
	case errors.As(err, &ve):
		return EInvalid
	}
	return EIO
}

// errorBody is on_response's code and error object for err.
func errorBody(err error) (Code, []byte) {
	code := CodeOfClient(err)
	body := map[string]any{"message": err.Error()}
	var (
		je *jsonrpc.Error
		oe *client.OutputError
	)
	switch {
	case code == ERPC && errors.As(err, &je):
		body["code"], body["message"] = je.Code, je.Message
		if je.Data != nil {
			body["data"] = je.Data
		}
	case code == EOutput && errors.As(err, &oe) && len(oe.Result) > 0:
		body["data"] = oe.Result
	}
	b, merr := jsonrpc.Marshal(body)
	if merr != nil {
		b, _ = jsonrpc.Marshal(map[string]any{"message": err.Error()})
	}
	return code, b
}
