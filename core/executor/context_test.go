package executor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The key the context package looks its cancelable contexts up with was
// found: without it every Value would make the job's context.
func TestCancelCtxKeyFound(t *testing.T) {
	require.NotNil(t, cancelCtxKey)
}

type ctxKey struct{}

// runInline submits fn inline under parent and runs it.
func runInline(t *testing.T, e *Executor, parent context.Context, fn func(ctx context.Context)) context.Context {
	t.Helper()
	ctx, run, err := e.SubmitInline(parent, Func(fn))
	require.NoError(t, err)
	run.Run()
	return ctx
}

// A job's context is made on first need, yet every observer sees what an
// eagerly made context would show it, whenever it asks.
func TestJobContextObservedLate(t *testing.T) {
	errMine := errors.New("mine")
	parentCause := errors.New("parent gone")
	tests := []struct {
		name      string
		opts      Options
		fn        func(ctx context.Context, parentCancel context.CancelCauseFunc)
		after     func(ctx context.Context, parentCancel context.CancelCauseFunc)
		wantErr   error
		wantCause error
	}{{
		name:      "finished, never watched",
		wantErr:   context.Canceled,
		wantCause: ErrFinished,
	}, {
		name:      "finished, then the parent ended",
		after:     func(_ context.Context, cancel context.CancelCauseFunc) { cancel(parentCause) },
		wantErr:   context.Canceled,
		wantCause: ErrFinished,
	}, {
		name:      "the parent ended while it ran",
		fn:        func(_ context.Context, cancel context.CancelCauseFunc) { cancel(parentCause) },
		wantErr:   context.Canceled,
		wantCause: parentCause,
	}, {
		name:      "cancelled while it ran",
		fn:        func(ctx context.Context, _ context.CancelCauseFunc) { Cancel(ctx, errMine) },
		wantErr:   context.Canceled,
		wantCause: errMine,
	}, {
		name: "timed out while it ran",
		opts: Options{Timeout: 10 * time.Millisecond},
		fn: func(ctx context.Context, _ context.CancelCauseFunc) {
			for ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
		},
		wantErr:   context.DeadlineExceeded,
		wantCause: ErrTimeout,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecutor(t, tt.opts)
			parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
			defer cancel(nil)
			ctx := runInline(t, e, parent, func(ctx context.Context) {
				assert.Equal(t, "v", ctx.Value(ctxKey{}), "values come from the parent")
				if tt.fn != nil {
					tt.fn(ctx, cancel)
				}
			})
			if tt.after != nil {
				tt.after(ctx, cancel)
			}
			assert.ErrorIs(t, ctx.Err(), tt.wantErr)
			assert.Equal(t, tt.wantCause, context.Cause(ctx))
			waitDone(t, ctx.Done(), "the ended job's Done")
			assert.ErrorIs(t, ctx.Err(), tt.wantErr, "the same once made")
		})
	}
}

// Contexts derived from a job's context, and watches on it, end with the
// job, whether they were made before it ended or after.
func TestJobContextDerived(t *testing.T) {
	e := newExecutor(t, Options{})
	var derived context.Context
	var stop context.CancelFunc
	fired := make(chan struct{})
	ctx := runInline(t, e, context.Background(), func(ctx context.Context) {
		derived, stop = context.WithTimeout(ctx, time.Hour)
		context.AfterFunc(ctx, func() { close(fired) })
		assert.NoError(t, derived.Err())
	})
	defer stop()
	waitDone(t, derived.Done(), "the derived context")
	waitDone(t, fired, "the AfterFunc")
	assert.Equal(t, ErrFinished, context.Cause(derived))

	late, cancel := context.WithCancel(ctx)
	defer cancel()
	waitDone(t, late.Done(), "a context derived after the end")
	assert.Equal(t, ErrFinished, context.Cause(late))
}

// A context made while its job runs gets the job's end, from whichever
// goroutine it comes, exactly once.
func TestJobContextRace(t *testing.T) {
	e := newExecutor(t, Options{})
	for range 200 {
		ctx, run, err := e.SubmitInline(context.Background(), Func(func(context.Context) {}))
		require.NoError(t, err)
		done := make(chan struct{})
		go func() { <-ctx.Done(); close(done) }()
		go Cancel(ctx, errors.New("racing"))
		run.Run()
		waitDone(t, done, "the job's end")
		assert.Error(t, context.Cause(ctx))
	}
}

// Cancel knows only job contexts.
func TestCancelOtherContext(t *testing.T) {
	assert.False(t, Cancel(context.Background(), nil))
}

// An inline job nobody watches costs one allocation: the job, whose
// context is part of it.
func TestInlineJobAllocations(t *testing.T) {
	e := newExecutor(t, Options{})
	job := Func(func(context.Context) {})
	allocs := testing.AllocsPerRun(200, func() {
		_, run, err := e.SubmitInline(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		run.Run()
	})
	assert.LessOrEqual(t, allocs, 1.0)
}
