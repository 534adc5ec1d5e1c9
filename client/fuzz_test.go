package client

import (
	"context"
	"testing"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// discard is a conn that takes every message and never says anything.
type discard struct{}

func (discard) Send(context.Context, []byte) error { return nil }
func (discard) Recv(ctx context.Context) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (discard) Close() error { return nil }

// FuzzHandle feeds what a server may send to a client with a request in
// flight and every handler and callback set: nothing panics, and the
// request gets at most one answer.
func FuzzHandle(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x","data":[1]}}`,
		`{"jsonrpc":"2.0","id":"q","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"?"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":null}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q"}}`,
		`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":7}}`,
		`[]`, `null`, `{"jsonrpc":"2.0","id":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		o := (&Options{
			Sampling:    func(context.Context, *spec.CreateMessageParams) (*spec.CreateMessageResult, error) { return nil, nil },
			Elicitation: func(context.Context, *spec.ElicitParams) (*spec.ElicitResult, error) { return nil, nil },
			Roots:       func(context.Context) ([]spec.Root, error) { return nil, nil },
			OnLog:       func(spec.LoggingMessageParams) {}, OnResourceUpdated: func(string) {},
		}).withDefaults()
		c := &Client{conn: discard{}, o: o, pending: map[int64]chan answer{}, progress: map[string]func(spec.ProgressParams){"t": func(spec.ProgressParams) {}},
			asked: map[jsonrpc.ID]context.CancelFunc{}, acks: map[int64]chan ListenFilter{1: make(chan ListenFilter, 1)}, done: make(chan struct{})}
		c.ctx, c.cancel = context.WithCancel(context.Background())
		defer c.cancel()
		ch := make(chan answer, 1)
		c.pending[1] = ch
		c.handle(msg)
		c.handle(msg) // a second copy finds the request answered
	})
}
