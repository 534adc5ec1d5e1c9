package sse

import (
	"bytes"
	"sync"
)

// queue is the bounded FIFO between a session's sinks and its stream. Send
// never blocks: the dispatcher calls it under the session's send lock.
type queue struct {
	max  int
	wake chan struct{}

	mu     sync.Mutex
	msgs   [][]byte
	bytes  int
	ended  bool
	reason error // why the queue ended early; nil for a normal end
}

func newQueue(max int) *queue { return &queue{max: max, wake: make(chan struct{}, 1)} }

// Send implements transport.Sink. A client that falls more than max bytes
// behind loses the stream: the queue ends with ErrSlowClient and its
// backlog is dropped.
func (q *queue) Send(msg []byte) error {
	q.mu.Lock()
	switch {
	case q.ended:
		q.mu.Unlock()
		return errEnded
	case q.bytes+len(msg) > q.max && len(q.msgs) > 0:
		q.endLocked(ErrSlowClient)
		q.mu.Unlock()
		q.poke()
		return ErrSlowClient
	}
	q.msgs = append(q.msgs, bytes.Clone(msg))
	q.bytes += len(msg)
	q.mu.Unlock()
	q.poke()
	return nil
}

func (q *queue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the queued messages, and whether the queue ended and why.
// An early end (reason != nil) returns no messages: the stream is lost.
func (q *queue) take() (msgs [][]byte, ended bool, reason error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs = q.msgs
	q.msgs, q.bytes = nil, 0
	return msgs, q.ended, q.reason
}

// end stops the queue; the first reason given is kept.
func (q *queue) end(reason error) {
	q.mu.Lock()
	q.endLocked(reason)
	q.mu.Unlock()
	q.poke()
}

func (q *queue) endLocked(reason error) {
	if !q.ended {
		q.ended, q.reason = true, reason
	}
	if reason != nil {
		q.msgs, q.bytes = nil, 0
	}
}

func (q *queue) isEnded() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ended
}
