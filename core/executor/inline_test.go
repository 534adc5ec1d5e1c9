package executor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SubmitInline with a free slot hands the job back to run on the caller's
// goroutine: it has run when run returns, it held a slot from submission,
// and its context ends like any job's.
func TestSubmitInlineRunsOnTheCaller(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name  string
		fn    func(ctx context.Context)
		check func(t *testing.T, cause error)
	}{
		{"returns", func(context.Context) {}, func(t *testing.T, cause error) {
			assert.ErrorIs(t, cause, ErrFinished)
		}},
		{"panics", func(context.Context) { panic(errBoom) }, func(t *testing.T, cause error) {
			var pe *PanicError
			require.ErrorAs(t, cause, &pe)
			assert.ErrorIs(t, cause, errBoom)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecutor(t, Options{MaxConcurrency: 1})
			ran := false
			ctx, run, err := e.SubmitInline(context.Background(), Func(func(ctx context.Context) {
				ran = true // no synchronisation needed: same goroutine
				tt.fn(ctx)
			}))
			require.NoError(t, err)
			assert.Equal(t, Stats{Running: 1}, e.Stats(), "the slot is taken before run")
			assert.False(t, ran)
			run.Run()
			assert.True(t, ran)
			require.Error(t, ctx.Err(), "the context ends when fn does")
			tt.check(t, context.Cause(ctx))
			assert.Equal(t, Stats{}, e.Stats())
		})
	}
}

// Without a free slot the job is queued as by Submit, and its run waits for
// its turn, then runs it on the submitter's goroutine; Submit's queued jobs
// keep their place before and after it.
func TestSubmitInlineQueues(t *testing.T) {
	e := newExecutor(t, Options{MaxConcurrency: 1})
	release := make(chan struct{})
	_, run, err := e.SubmitInline(context.Background(), Func(func(context.Context) { <-release }))
	require.NoError(t, err)

	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	before := make(chan struct{})
	submit(t, e, func(context.Context) { note("before"); close(before) })
	_, run2, err := e.SubmitInline(context.Background(), Func(func(context.Context) { note("inline") }))
	require.NoError(t, err)
	require.NotNil(t, run2)
	after := make(chan struct{})
	submit(t, e, func(context.Context) { note("after"); close(after) })
	assert.Equal(t, Stats{Running: 1, Queued: 3}, e.Stats())

	ran := make(chan struct{})
	go func() { run2.Run(); close(ran) }()
	close(release)
	run.Run()
	waitDone(t, before, "the job queued first")
	waitDone(t, ran, "the inline job's turn")
	waitDone(t, after, "the job queued last")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"before", "inline", "after"}, order)
}

// A queued inline job whose context ends before its turn never runs, and
// its run returns; the slot goes to the next job.
func TestSubmitInlineQueuedCancel(t *testing.T) {
	e := newExecutor(t, Options{MaxConcurrency: 1})
	release := make(chan struct{})
	_, run, err := e.SubmitInline(context.Background(), Func(func(context.Context) { <-release }))
	require.NoError(t, err)
	ctx, run2, err := e.SubmitInline(context.Background(), Func(func(context.Context) { t.Error("a cancelled queued job ran") }))
	require.NoError(t, err)
	require.True(t, Cancel(ctx, errors.New("gone")))
	run2.Run()
	require.Error(t, ctx.Err())
	assert.Equal(t, Stats{Running: 1}, e.Stats(), "the cancelled job left the queue")
	close(release)
	run.Run()
	assert.Equal(t, Stats{}, e.Stats())
}

// An inline job is bound by the executor's deadline and cancel like any
// other: its context ends while fn still runs.
func TestSubmitInlineDeadlineAndCancel(t *testing.T) {
	errMine := errors.New("mine")
	tests := []struct {
		name   string
		opts   Options
		cancel bool
		want   error
	}{
		{"timeout", Options{Timeout: 20 * time.Millisecond}, false, ErrTimeout},
		{"cancel", Options{}, true, errMine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecutor(t, tt.opts)
			var seen error
			ctx, run, err := e.SubmitInline(context.Background(), Func(func(ctx context.Context) {
				<-ctx.Done()
				seen = context.Cause(ctx)
			}))
			require.NoError(t, err)
			if tt.cancel {
				Cancel(ctx, errMine) // before run, as a caller losing interest may
			}
			run.Run()
			assert.ErrorIs(t, seen, tt.want)
			assert.ErrorIs(t, context.Cause(ctx), tt.want)
		})
	}
}

// Close ends an inline job's context like a running job's.
func TestSubmitInlineClose(t *testing.T) {
	e := newExecutor(t, Options{})
	entered := make(chan struct{})
	var seen error
	_, run, err := e.SubmitInline(context.Background(), Func(func(ctx context.Context) {
		close(entered)
		<-ctx.Done()
		seen = context.Cause(ctx)
	}))
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { run.Run(); close(done) }()
	waitDone(t, entered, "the inline job to start")
	e.Close()
	waitDone(t, done, "the inline job to end")
	assert.ErrorIs(t, seen, ErrClosed)
}

// Hand gives a queued inline job back: the submitter returns at once and a
// worker runs the job when its turn comes, in FIFO order as ever; a job
// handed as it is promoted runs exactly once; a handed job whose context
// ends while queued never runs.
func TestTurnHand(t *testing.T) {
	e := newExecutor(t, Options{MaxConcurrency: 1})
	release := make(chan struct{})
	submit(t, e, func(context.Context) { <-release })
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	handed := make(chan struct{})
	_, turn, err := e.SubmitInline(context.Background(), Func(func(context.Context) { note("handed"); close(handed) }))
	require.NoError(t, err)
	require.True(t, turn.Queued())
	after := make(chan struct{})
	submit(t, e, func(context.Context) { note("after"); close(after) })
	turn.Hand() // returns without waiting for the slot
	cancelled, dropped, err := e.SubmitInline(context.Background(), Func(func(context.Context) { t.Error("a job dropped from the queue ran") }))
	require.NoError(t, err)
	dropped.Hand()
	Cancel(cancelled, errors.New("gone"))
	require.Error(t, cancelled.Err())
	close(release)
	waitDone(t, handed, "the handed job")
	waitDone(t, after, "the job queued after it")
	mu.Lock()
	assert.Equal(t, []string{"handed", "after"}, order)
	mu.Unlock()

	// Handed while the job ahead finishes: whichever wins, it runs once.
	for range 200 {
		done := make(chan struct{})
		submit(t, e, func(context.Context) {})
		var runs sync.WaitGroup
		runs.Add(1)
		_, turn, err := e.SubmitInline(context.Background(), Func(func(context.Context) { runs.Done() }))
		require.NoError(t, err)
		turn.Hand()
		go func() { runs.Wait(); close(done) }()
		waitDone(t, done, "the raced job")
	}
	require.NoError(t, e.Wait(context.Background()))
	assert.Equal(t, Stats{}, e.Stats())
}
