package router

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// Readers call and list while writers churn the catalogue. Run with -race:
// the point is that snapshots are never written after publication.
func TestConcurrentCallsDuringChanges(t *testing.T) {
	var changed atomic.Int64
	r := New(Options{PageSize: 7, OnListChanged: func(List) { changed.Add(1) }})
	require.NoError(t, r.AddTool(spec.Tool{Name: "echo", InputSchema: echoSchema}, echoHandler))
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "p", Arguments: []spec.PromptArgument{{Name: "a"}}}, okPrompt))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "db://{id}", Name: "t"}, okResource("x")))

	const writers, readers, rounds = 2, 4, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range rounds {
				name := fmt.Sprintf("w%d_%d", w, i%20)
				assert.NoError(t, r.AddTool(spec.Tool{Name: name}, okTool(name)))
				if i%3 == 0 {
					r.RemoveTools(name, fmt.Sprintf("w%d_%d", w, (i+7)%20))
				}
				if i%10 == 0 {
					assert.NoError(t, r.SetCompleter(spec.CompleteRef{Type: spec.RefPrompt, Name: "p"}, fixed(nil, nil)))
					assert.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: "db://{id}", Name: "t"}, okResource("x")))
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			ctx := context.Background()
			p := &spec.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}
			for i := range rounds {
				res, err := r.CallTool(ctx, nil, p)
				// assert, not require: this is not the test's goroutine.
				if assert.Nil(t, err) && assert.Len(t, res.Content, 1) {
					assert.Equal(t, "hi", *res.Content[0].Text)
				}
				readPages(t, r)
				if i%5 == 0 {
					_, err := r.Complete(ctx, nil, &spec.CompleteParams{Ref: spec.CompleteRef{Type: spec.RefPrompt, Name: "p"}, Argument: spec.CompleteArgument{Name: "a"}})
					assert.Nil(t, err)
					_, rerr := r.ReadResource(ctx, nil, "db://1")
					assert.NoError(t, rerr)
				}
			}
		})
	}
	wg.Wait()
	assert.Positive(t, changed.Load())
}

// readPages lists tools page by page; a concurrent change may expire the
// cursor, which is the only error allowed.
func readPages(t *testing.T, r *Router) {
	var cur *string
	for {
		res, err := r.ListTools(cur)
		if err != nil {
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), err.Code)
			assert.Contains(t, err.Message, "expired")
			return
		}
		if res.NextCursor == "" {
			return
		}
		cur = &res.NextCursor
	}
}

// Many readers racing for the first snapshot after a change all get the
// same one.
func TestConcurrentSnapshotBuild(t *testing.T) {
	r := New(Options{})
	addTools(t, r, 50)
	var wg sync.WaitGroup
	views := make([]*view[tool], 8)
	for i := range views {
		wg.Go(func() { views[i] = r.tools.load() })
	}
	wg.Wait()
	for _, v := range views[1:] {
		assert.Same(t, views[0], v)
	}
}
