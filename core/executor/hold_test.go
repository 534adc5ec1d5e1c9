package executor

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdIn returns a job that holds itself and hands its Hold out on got.
func holdIn(got chan<- Hold) func(ctx context.Context) {
	return func(ctx context.Context) {
		h, ok := HoldJob(ctx)
		if !ok {
			panic("HoldJob refused a running job's context")
		}
		got <- h
	}
}

// A held job keeps its slot and its live context after Run returns, on a
// worker and inline alike; Release ends it with ErrFinished and gives the
// slot to the next queued job.
func TestHoldKeepsTheSlot(t *testing.T) {
	for _, inline := range []bool{false, true} {
		name := map[bool]string{false: "worker", true: "inline"}[inline]
		t.Run(name, func(t *testing.T) {
			e := newExecutor(t, Options{MaxConcurrency: 1})
			got := make(chan Hold, 1)
			var ctx context.Context
			if inline {
				c, run, err := e.SubmitInline(context.Background(), Func(holdIn(got)))
				require.NoError(t, err)
				run.Run() // returns at once: the job is held, not running here
				ctx = c
			} else {
				ctx, _ = submit(t, e, holdIn(got))
			}
			h := <-got
			require.True(t, h.Held())

			next := make(chan struct{})
			submit(t, e, func(context.Context) { close(next) })
			assert.Eventually(t, func() bool { return e.Stats() == Stats{Running: 1, Queued: 1} },
				waitTimeout, time.Millisecond, "the held job keeps its slot; the next one queues")
			assert.NoError(t, ctx.Err(), "the held job's context lives on")

			h.Release()
			waitDone(t, next, "the queued job, after Release")
			assert.ErrorIs(t, context.Cause(ctx), ErrFinished)
			h.Release() // a second Release does nothing
			assert.Eventually(t, func() bool { return e.Stats() == Stats{} }, waitTimeout, time.Millisecond)
		})
	}
}

// Released before its Run returns, a job ends when Run does, exactly once.
func TestHoldReleasedBeforeReturn(t *testing.T) {
	e := newExecutor(t, Options{MaxConcurrency: 1})
	ctx, _ := submit(t, e, func(ctx context.Context) {
		h, ok := HoldJob(ctx)
		require.True(t, ok)
		h.Release()
		assert.NoError(t, ctx.Err(), "still running: Run has not returned")
	})
	waitDone(t, ctx.Done(), "the job's end when Run returns")
	assert.ErrorIs(t, context.Cause(ctx), ErrFinished)
	ctx2, _ := submit(t, e, func(context.Context) {})
	waitDone(t, ctx2.Done(), "the slot handed on")
}

// HoldJob takes only the context of a job whose Run is running, once.
func TestHoldJobRefuses(t *testing.T) {
	_, ok := HoldJob(context.Background())
	assert.False(t, ok, "not a job's context")
	assert.False(t, Hold{}.Held())
	Hold{}.Release() // the zero Hold does nothing

	e := newExecutor(t, Options{MaxConcurrency: 1})
	done := make(chan struct{})
	var derived, twice bool
	submit(t, e, func(ctx context.Context) {
		defer close(done)
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		_, derived = HoldJob(c)
		h, ok := HoldJob(ctx)
		require.True(t, ok)
		_, twice = HoldJob(ctx)
		h.Release()
	})
	waitDone(t, done, "the job")
	assert.False(t, derived, "a context derived from the job's is not the job's")
	assert.False(t, twice, "a job is held once")
}

// The ends the executor makes itself reach held jobs as running ones: the
// deadline and Close cancel them and tell the Job; the slot stays taken
// until Release, and Wait waits for it.
func TestHeldJobEnds(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		end   func(e *Executor)
		cause error
	}{
		{"timeout", Options{MaxConcurrency: 1, Timeout: 20 * time.Millisecond}, func(*Executor) {}, ErrTimeout},
		{"close", Options{MaxConcurrency: 1}, func(e *Executor) { e.Close() }, ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecutor(t, tt.opts)
			got := make(chan Hold, 1)
			j := newEndedJob(holdIn(got))
			ctx, err := e.SubmitJob(context.Background(), j)
			require.NoError(t, err)
			h := <-got
			tt.end(e)
			waitDone(t, ctx.Done(), "the held job's end")
			assert.ErrorIs(t, context.Cause(ctx), tt.cause)
			select {
			case <-j.ended:
			case <-time.After(waitTimeout):
				require.FailNow(t, "Ended was not called")
			}
			assert.Equal(t, 1, e.Stats().Running, "the slot is the host's until Release")

			waited := make(chan error, 1)
			go func() { waited <- e.Wait(context.Background()) }()
			select {
			case <-waited:
				require.FailNow(t, "Wait returned while the job was held")
			case <-time.After(20 * time.Millisecond):
			}
			h.Release()
			select {
			case err := <-waited:
				assert.NoError(t, err)
			case <-time.After(waitTimeout):
				require.FailNow(t, "Wait did not return after Release")
			}
			assert.ErrorIs(t, context.Cause(ctx), tt.cause, "the first cause stays")
		})
	}
}

// A job that panics after holding itself is over: the panic is its cause,
// its slot is free, and the host's later Release does nothing.
func TestHeldJobPanics(t *testing.T) {
	e := newExecutor(t, Options{MaxConcurrency: 1})
	got := make(chan Hold, 1)
	ctx, _ := submit(t, e, func(ctx context.Context) {
		holdIn(got)(ctx)
		panic("boom")
	})
	h := <-got
	waitDone(t, ctx.Done(), "the panicked job's end")
	var pe *PanicError
	require.ErrorAs(t, context.Cause(ctx), &pe)
	assert.Eventually(t, func() bool { return e.Stats() == Stats{} }, waitTimeout, time.Millisecond)
	h.Release()
	ctx2, _ := submit(t, e, func(context.Context) {})
	waitDone(t, ctx2.Done(), "a job after the panicked one")
}

// Many jobs held and released from other goroutines, at any moment of
// their Run, never exceed the limit and all end.
func TestHoldStress(t *testing.T) {
	const jobs, limit = 500, 4
	e := newExecutor(t, Options{MaxConcurrency: limit, MaxQueue: jobs})
	var (
		mu      sync.Mutex
		running int
		peak    int
		wg      sync.WaitGroup
	)
	wg.Add(jobs)
	for i := range jobs {
		_, _, err := e.Submit(context.Background(), func(ctx context.Context) {
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			h, ok := HoldJob(ctx)
			if !ok {
				panic("not held")
			}
			finish := func() {
				mu.Lock()
				running--
				mu.Unlock()
				h.Release()
				wg.Done()
			}
			if i%3 == 0 {
				finish() // before Run returns
				return
			}
			go finish()
		})
		require.NoError(t, err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	waitDone(t, done, "every held job's release")
	assert.LessOrEqual(t, peak, limit)
	assert.Eventually(t, func() bool { return e.Stats() == Stats{} }, waitTimeout, time.Millisecond)
}
