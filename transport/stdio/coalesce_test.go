package stdio

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedWriter records each Write call; the first one waits for open.
type gatedWriter struct {
	open    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	writes  []string
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	first := len(g.writes) == 0
	g.writes = append(g.writes, string(p))
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.open
	}
	return len(p), nil
}

// Messages sent while a write is under way leave together in the next
// write, in the order they were sent; a lone message leaves at once.
func TestWriterCoalescesInOrder(t *testing.T) {
	g := &gatedWriter{open: make(chan struct{}), entered: make(chan struct{})}
	w := newWriter(g, time.Minute)
	require.NoError(t, w.Send([]byte(`{"id":1}`)))
	<-g.entered // the writer is inside the first write
	for _, m := range []string{`{"id":2}`, `{"id":3}`, `{"id":4}`} {
		require.NoError(t, w.Send([]byte(m)))
	}
	close(g.open)
	w.close()
	<-w.finished
	require.NoError(t, w.result())
	assert.Equal(t, []string{"{\"id\":1}\n", "{\"id\":2}\n{\"id\":3}\n{\"id\":4}\n"}, g.writes)
}
