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

// endedJob records the calls of Ended; run is its work.
type endedJob struct {
	run func(ctx context.Context)

	mu    sync.Mutex
	calls []error // the job context's cause at each Ended
	ended chan struct{}
}

func newEndedJob(run func(ctx context.Context)) *endedJob {
	return &endedJob{run: run, ended: make(chan struct{}, 8)}
}

func (j *endedJob) Run(ctx context.Context) { j.run(ctx) }

func (j *endedJob) Ended(ctx context.Context) {
	j.mu.Lock()
	j.calls = append(j.calls, context.Cause(ctx))
	j.mu.Unlock()
	j.ended <- struct{}{}
}

func (j *endedJob) causes() []error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]error(nil), j.calls...)
}

// A Job learns, once, of the ends the executor makes itself (a timeout,
// Close, a panic), running or queued; not of its return, its cancel
// function or its parent's end.
func TestJobEnded(t *testing.T) {
	errMine := errors.New("mine")
	tests := []struct {
		name string
		opts Options
		// queued submits the job behind a blocker holding the one slot.
		queued bool
		run    func(ctx context.Context)
		// act ends the job once it runs (or is queued); e is its executor.
		act  func(e *Executor, cancel context.CancelCauseFunc, parentCancel context.CancelFunc)
		want error // the cause told to Ended; nil: Ended is never called
	}{
		{name: "returns", run: func(context.Context) {}},
		{name: "timeout while running", opts: Options{Timeout: 20 * time.Millisecond},
			run: func(ctx context.Context) { <-ctx.Done() }, want: ErrTimeout},
		{name: "timeout while queued", opts: Options{Timeout: 20 * time.Millisecond}, queued: true,
			run: func(context.Context) { t.Error("a timed-out queued job ran") }, want: ErrTimeout},
		{name: "close while running", run: func(ctx context.Context) { <-ctx.Done() },
			act: func(e *Executor, _ context.CancelCauseFunc, _ context.CancelFunc) { e.Close() }, want: ErrClosed},
		{name: "close while queued", queued: true, run: func(context.Context) { t.Error("a closed queued job ran") },
			act: func(e *Executor, _ context.CancelCauseFunc, _ context.CancelFunc) { e.Close() }, want: ErrClosed},
		{name: "panic", run: func(context.Context) { panic(errMine) }, want: errMine},
		{name: "its cancel function", run: func(ctx context.Context) { <-ctx.Done() },
			act: func(_ *Executor, cancel context.CancelCauseFunc, _ context.CancelFunc) { cancel(errMine) }},
		{name: "its cancel function, with the executor's own cause", run: func(ctx context.Context) { <-ctx.Done() },
			act: func(_ *Executor, cancel context.CancelCauseFunc, _ context.CancelFunc) { cancel(ErrTimeout) }},
		{name: "its cancel function while queued, with the executor's own cause", queued: true,
			run: func(context.Context) { t.Error("a cancelled queued job ran") },
			act: func(_ *Executor, cancel context.CancelCauseFunc, _ context.CancelFunc) { cancel(ErrClosed) }},
		{name: "its parent", run: func(ctx context.Context) { <-ctx.Done() },
			act: func(_ *Executor, _ context.CancelCauseFunc, parentCancel context.CancelFunc) { parentCancel() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.MaxConcurrency = 1
			e := newExecutor(t, opts)
			release := make(chan struct{})
			defer close(release)
			if tc.queued {
				started := make(chan struct{}, 1)
				submit(t, e, blocker(started, release))
				<-started
			}
			parent, parentCancel := context.WithCancel(context.Background())
			defer parentCancel()
			job := newEndedJob(tc.run)
			ctx, err := e.SubmitJob(parent, job)
			require.NoError(t, err)
			cancel := func(cause error) { Cancel(ctx, cause) }
			if tc.act != nil {
				tc.act(e, cancel, parentCancel)
			}
			waitDone(t, ctx.Done(), "the job's context to end")
			if tc.want == nil {
				// Ended would come on a goroutine of its own: give it time.
				time.Sleep(20 * time.Millisecond)
				assert.Empty(t, job.causes())
				return
			}
			select {
			case <-job.ended:
			case <-time.After(2 * time.Second):
				t.Fatal("Ended was not called")
			}
			causes := job.causes()
			require.Len(t, causes, 1)
			assert.ErrorIs(t, causes[0], tc.want)
		})
	}
}

// A job refused at submission is not told of it: the submitter has the error.
func TestJobEndedNotForRefused(t *testing.T) {
	e := newExecutor(t, Options{MaxConcurrency: 1, MaxQueue: -1})
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	submit(t, e, blocker(started, release))
	<-started
	job := newEndedJob(func(context.Context) { t.Error("a refused job ran") })
	_, err := e.SubmitJob(context.Background(), job)
	require.ErrorIs(t, err, ErrOverloaded)
	e.Close()
	_, err = e.SubmitJob(context.Background(), job)
	require.ErrorIs(t, err, ErrClosed)
	time.Sleep(20 * time.Millisecond)
	assert.Empty(t, job.causes())
}
