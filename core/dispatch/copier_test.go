package dispatch

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/transport"
)

// keeper holds every message as given (transport.Sink allows it).
type keeper struct {
	mu   sync.Mutex
	kept [][]byte
}

func (k *keeper) Send(msg []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept = append(k.kept, msg)
	return nil
}

// copier copies each message and says so (transport.Copier).
type copier struct{ *inbox }

func (copier) CopiesMessages() {}

// Answers go to a transport.Copier in a buffer the dispatcher recycles, and
// to any other sink in one it never touches again: 64 concurrent calls,
// each answer intact afterwards in both.
func TestAnswersLentToCopiers(t *testing.T) {
	const calls = 64
	want := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"t%d"}]}}`, i, i)
	}
	call := func(s *Session, i int, sink transport.Sink) {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t%d"}}}`, i, i)
		s.Deliver(context.Background(), []byte(frame), sink)
	}
	for _, tc := range []struct {
		name string
		sink func() (transport.Sink, func() []string)
	}{
		{"copier", func() (transport.Sink, func() []string) {
			in := newInbox()
			return copier{in}, func() []string {
				for range calls {
					<-in.ch
				}
				in.mu.Lock()
				defer in.mu.Unlock()
				return in.msgs
			}
		}},
		{"sink that keeps", func() (transport.Sink, func() []string) {
			k := &keeper{}
			return k, func() []string {
				require.Eventually(t, func() bool { k.mu.Lock(); defer k.mu.Unlock(); return len(k.kept) == calls }, 5*time.Second, time.Millisecond)
				k.mu.Lock()
				defer k.mu.Unlock()
				got := make([]string, len(k.kept))
				for i, m := range k.kept {
					got[i] = string(m)
				}
				return got
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, executor.Options{})
			s, _ := f.session(transport.Info{Name: "test"})
			init := newInbox()
			s.Deliver(context.Background(), []byte(initMsg), init)
			init.next(t)
			sink, collect := tc.sink()
			var wg sync.WaitGroup
			for i := range calls {
				wg.Go(func() { call(s, i+1, sink) })
			}
			wg.Wait()
			wants := make([]string, calls)
			for i := range calls {
				wants[i] = want(i + 1)
			}
			assert.ElementsMatch(t, wants, collect())
		})
	}
}
