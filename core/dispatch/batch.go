package dispatch

import (
	"context"
	"sync"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/protocol"
	"github.com/polymcp/polymcp/transport"
)

// deliverBatch handles a JSON-RPC batch, which only sessions initialized at
// 2025-03-26 accept. The answers are written as one array once every
// request of the batch is answered; request-scoped notifications go
// directly to the transport meanwhile.
func (s *Session) deliverBatch(ctx context.Context, frame []byte, reply transport.Sink) {
	st := s.state.Load()
	if st == nil || !st.dialect.Batches() {
		rev := ""
		if st != nil {
			rev = st.dialect.Revision()
		}
		s.send(reply, jsonrpc.AppendError(nil, jsonrpc.NullID, jsonrpc.Errorf(jsonrpc.KindJSONRPC,
			jsonrpc.CodeInvalidRequest, "%s", protocol.BatchRefusal(rev))))
		return
	}
	items, _, err := jsonrpc.SplitBatch(frame, s.rt.cfg.Limits)
	if err != nil {
		s.send(reply, jsonrpc.AppendError(nil, jsonrpc.NullID, err))
		return
	}
	msgs := make([]jsonrpc.Message, len(items))
	errs := make([]*jsonrpc.Error, len(items))
	answers := 0
	for i, item := range items {
		msgs[i], errs[i] = jsonrpc.Decode(item, s.rt.cfg.Limits)
		if errs[i] == nil && msgs[i].Kind == jsonrpc.KindRequest && msgs[i].Method == "initialize" {
			errs[i] = jsonrpc.Errorf(jsonrpc.KindJSONRPC, jsonrpc.CodeInvalidRequest, "initialize must not be batched")
		}
		if (errs[i] != nil && !msgs[i].ID.IsAbsent()) || (errs[i] == nil && msgs[i].Kind == jsonrpc.KindRequest) {
			answers++
		}
	}
	b := &batchSink{s: s, direct: reply, pending: answers}
	for i := range msgs {
		s.handle(ctx, msgs[i], errs[i], b)
	}
}

// batchSink gathers the answers of one batch.
type batchSink struct {
	s      *Session
	direct transport.Sink

	mu      sync.Mutex
	pending int
	answers [][]byte
}

// Send collects one answer. It is called under the session's send guard,
// so the final write goes straight to the transport.
func (b *batchSink) Send(msg []byte) error {
	if out := b.settle(msg); out != nil {
		return b.direct.Send(out)
	}
	return nil
}

// Abandon implements transport.Abandoner: it accounts for a request that
// will never be answered (cancelled), so the array goes out without it.
func (b *batchSink) Abandon() {
	if out := b.settle(nil); out != nil {
		b.s.send(b.direct, out)
	}
}

// settle records one outcome and returns the array once all are in.
func (b *batchSink) settle(msg []byte) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if msg != nil {
		b.answers = append(b.answers, msg)
	}
	b.pending--
	if b.pending > 0 || len(b.answers) == 0 {
		return nil
	}
	out := []byte{'['}
	for i, a := range b.answers {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, a...)
	}
	return append(out, ']')
}
