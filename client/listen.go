package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// ListenFilter says which change notifications a subscription asks for
// (2026-07-28's SubscriptionFilter).
type ListenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// Subscription is an open subscriptions/listen request (2026-07-28). Its
// notifications reach the Options callbacks (OnToolsChanged, ...,
// OnResourceUpdated) like any other.
type Subscription struct {
	// Honoured is what the server agreed to send: its acknowledgement.
	Honoured ListenFilter

	c        *Client
	id       int64
	ch       chan answer
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	err      error
}

// errListenLegacy: the legacy revisions have no subscriptions/listen.
var errListenLegacy = errors.New("client: subscriptions/listen is 2026-07-28's; legacy servers send list_changed unasked, and Subscribe asks for a resource's updates")

// Listen opens a subscription for the notifications f asks for and returns
// once the server has acknowledged it (within Options.Timeout). It lasts
// until Close, the server ending it, or the connection ending; ctx bounds
// the opening only.
func (c *Client) Listen(ctx context.Context, f ListenFilter) (*Subscription, error) {
	if !c.modern {
		return nil, errListenLegacy
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	s := &Subscription{c: c, id: c.nextID.Add(1), stop: make(chan struct{}), done: make(chan struct{})}
	ack := make(chan ListenFilter, 1)
	c.mu.Lock()
	c.acks[s.id] = ack
	c.listening[s.id] = true
	c.mu.Unlock()
	opened := false
	defer func() {
		c.mu.Lock()
		delete(c.acks, s.id)
		if !opened {
			delete(c.listening, s.id)
		}
		c.mu.Unlock()
	}()
	var err error
	if s.ch, err = c.start(ctx, s.id, "subscriptions/listen", map[string]any{"notifications": f}, nil); err != nil {
		return nil, err
	}
	select {
	case s.Honoured = <-ack:
	case a := <-s.ch:
		if a.err == nil {
			a.err = errors.New("client: the server ended the subscription before acknowledging it")
		}
		return nil, fmt.Errorf("client: subscriptions/listen: %w", a.err)
	case <-ctx.Done():
		if c.unregister(s.id) {
			c.cancelRequest(s.id, context.Cause(ctx))
		}
		return nil, context.Cause(ctx)
	}
	opened = true
	go s.watch()
	return s, nil
}

// watch waits for the subscription's end: the server's result or error,
// the connection's end, or Close.
func (s *Subscription) watch() {
	defer close(s.done)
	defer func() {
		s.c.mu.Lock()
		delete(s.c.listening, s.id)
		s.c.mu.Unlock()
	}()
	select {
	case a := <-s.ch:
		s.err = a.err
	case <-s.stop:
		if s.c.unregister(s.id) {
			s.c.cancelRequest(s.id, errors.New("subscription closed"))
		}
		s.err = context.Canceled
	}
}

// Close ends the subscription: on stdio with notifications/cancelled, on
// Streamable HTTP by closing its stream. It waits for the end.
func (s *Subscription) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
}

// Done is closed once the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err says why the subscription ended, once Done is closed: nil when the
// server ended it gracefully, context.Canceled after Close, ErrClosed when
// the connection ended.
func (s *Subscription) Err() error {
	<-s.done
	return s.err
}

// forClosedSubscription reports whether the notification params name, in
// _meta, a subscription that is no longer open.
func (c *Client) forClosedSubscription(params []byte) bool {
	meta, ok := jsonrpc.Member(params, "_meta")
	if !ok {
		return false
	}
	raw, ok := jsonrpc.Member(meta, spec.MetaSubscriptionID)
	if !ok {
		return false
	}
	id, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return false // not one of this client's ids
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.listening[id]
}

// acknowledged hands notifications/subscriptions/acknowledged to the
// Listen waiting for it.
func (c *Client) acknowledged(params []byte) error {
	var p struct {
		Notifications ListenFilter `json:"notifications"`
		Meta          spec.Meta    `json:"_meta"`
	}
	if err := jsonrpc.UnmarshalOwned(params, &p); err != nil {
		return err
	}
	id, ok := p.Meta[spec.MetaSubscriptionID].(float64)
	if !ok {
		return errors.New("no subscriptionId in _meta")
	}
	c.mu.Lock()
	ack := c.acks[int64(id)]
	delete(c.acks, int64(id))
	c.mu.Unlock()
	if ack != nil {
		ack <- p.Notifications
	}
	return nil
}
