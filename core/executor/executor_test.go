package executor

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitTimeout bounds every blocking wait in these tests so that a bug shows
// up as a failure rather than a hung test binary.
const waitTimeout = 5 * time.Second

func newExecutor(t testing.TB, opts Options) *Executor {
	t.Helper()
	e, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		e.Close()
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		assert.NoError(t, e.Wait(ctx), "executor did not drain")
	})
	return e
}

// waitDone fails the test if ch is not closed within waitTimeout.
func waitDone(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitTimeout):
		require.FailNow(t, "timed out waiting for "+what)
	}
}

func submit(t testing.TB, e *Executor, fn func(context.Context)) (context.Context, context.CancelCauseFunc) {
	t.Helper()
	ctx, cancel, err := e.Submit(context.Background(), fn)
	require.NoError(t, err)
	return ctx, cancel
}

// blocker returns a job that signals started and returns when release is
// closed, ignoring its context.
func blocker(started chan<- struct{}, release <-chan struct{}) func(context.Context) {
	return func(context.Context) {
		if started != nil {
			started <- struct{}{}
		}
		<-release
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		want    *Executor
		wantErr bool
	}{
		{"defaults", Options{}, &Executor{maxConcurrency: DefaultMaxConcurrency, maxQueue: DefaultMaxQueue, timeout: DefaultTimeout}, false},
		{"explicit", Options{MaxConcurrency: 3, MaxQueue: 4, Timeout: time.Second}, &Executor{maxConcurrency: 3, maxQueue: 4, timeout: time.Second}, false},
		{"no queue, no timeout", Options{MaxConcurrency: 1, MaxQueue: -1, Timeout: -1}, &Executor{maxConcurrency: 1, maxQueue: 0, timeout: -1}, false},
		{"negative concurrency", Options{MaxConcurrency: -1}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.opts)
			if tt.wantErr {
				require.Error(t, err)
				assert.Nil(t, e)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.maxConcurrency, e.maxConcurrency)
			assert.Equal(t, tt.want.maxQueue, e.maxQueue)
			assert.Equal(t, tt.want.timeout, e.timeout)
		})
	}
}

func TestSubmitNilArguments(t *testing.T) {
	e := newExecutor(t, Options{})
	//lint:ignore SA1012 deliberately nil
	_, _, err := e.Submit(nil, func(context.Context) {}) //nolint:staticcheck
	assert.Error(t, err)
	_, _, err = e.Submit(context.Background(), nil)
	assert.Error(t, err)
	assert.Equal(t, Stats{}, e.Stats())
}

// All 100 jobs must be inside fn at the same time before any may leave:
// this only completes if they really run concurrently.
func TestRealConcurrency(t *testing.T) {
	const n = 100
	e := newExecutor(t, Options{MaxConcurrency: n, MaxQueue: -1})
	var entered, left sync.WaitGroup
	entered.Add(n)
	left.Add(n)
	release := make(chan struct{})
	for range n {
		submit(t, e, func(context.Context) {
			defer left.Done()
			entered.Done()
			<-release
		})
	}
	allIn := make(chan struct{})
	go func() { entered.Wait(); close(allIn) }()
	waitDone(t, allIn, "all jobs to enter the barrier")
	assert.Equal(t, Stats{Running: n}, e.Stats())
	close(release)
	left.Wait()
}

func TestConcurrencyNeverExceedsLimit(t *testing.T) {
	tests := []struct{ limit, jobs int }{
		{1, 1000},
		{8, 1000},
		{64, 1000},
	}
	for _, tt := range tests {
		t.Run("", func(t *testing.T) {
			e := newExecutor(t, Options{MaxConcurrency: tt.limit, MaxQueue: tt.jobs})
			var cur, high, ran atomic.Int64
			for range tt.jobs {
				submit(t, e, func(context.Context) {
					c := cur.Add(1)
					for h := high.Load(); c > h && !high.CompareAndSwap(h, c); h = high.Load() {
					}
					runtime.Gosched()
					cur.Add(-1)
					ran.Add(1)
				})
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			require.NoError(t, e.Wait(ctx))
			assert.EqualValues(t, tt.jobs, ran.Load())
			assert.LessOrEqual(t, high.Load(), int64(tt.limit))
			assert.Positive(t, high.Load())
		})
	}
}

func TestQueueIsFIFO(t *testing.T) {
	const n = 50
	e := newExecutor(t, Options{MaxConcurrency: 1, MaxQueue: n})
	started, release := make(chan struct{}), make(chan struct{})
	submit(t, e, blocker(started, release))
	waitDone(t, started, "blocker to start")

	var order []int // appended by one goroutine at a time: concurrency is 1
	for i := range n {
		submit(t, e, func(context.Context) { order = append(order, i) })
	}
	assert.Equal(t, Stats{Running: 1, Queued: n}, e.Stats())
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	require.NoError(t, e.Wait(ctx))
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, order)
}

func TestOverload(t *testing.T) {
	tests := []struct {
		name             string
		opts             Options
		running, waiting int
	}{
		{"no queue", Options{MaxConcurrency: 1, MaxQueue: -1}, 1, 0},
		{"small", Options{MaxConcurrency: 2, MaxQueue: 3}, 2, 3},
		{"default queue", Options{MaxConcurrency: 4}, 4, DefaultMaxQueue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecutor(t, tt.opts)
			release := make(chan struct{})
			started := make(chan struct{}, tt.running+tt.waiting) // queued jobs signal too, later
			var ran atomic.Int64
			for i := range tt.running + tt.waiting {
				_, _, err := e.Submit(context.Background(), func(ctx context.Context) {
					ran.Add(1)
					blocker(started, release)(ctx)
				})
				require.NoError(t, err, "submit %d", i)
			}
			for range tt.running {
				waitDone(t, started, "running jobs to start")
			}
			assert.Equal(t, Stats{Running: tt.running, Queued: tt.waiting}, e.Stats())

			rejected := false
			ctx, cancel, err := e.Submit(context.Background(), func(context.Context) { rejected = true })
			require.ErrorIs(t, err, ErrOverloaded)
			assert.Nil(t, ctx)
			assert.Nil(t, cancel)

			close(release)
			wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
			defer wcancel()
			require.NoError(t, e.Wait(wctx))
			assert.EqualValues(t, tt.running+tt.waiting, ran.Load())
			assert.False(t, rejected, "rejected job ran")
			assert.Equal(t, Stats{}, e.Stats())
		})
	}
}

func TestDeadline(t *testing.T) {
	const timeout = time.Hour
	tests := []struct {
		name        string
		timeout     time.Duration
		parentIn    time.Duration // 0: parent without deadline
		wantIn      time.Duration // 0: no deadline expected
		fromTimeout bool
	}{
		{"executor timeout", timeout, 0, timeout, true},
		{"parent earlier", timeout, time.Minute, time.Minute, false},
		{"parent later", timeout, 2 * timeout, timeout, true},
		{"no executor timeout", -1, 0, 0, false},
		{"no executor timeout, parent deadline", -1, time.Minute, time.Minute, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecutor(t, Options{Timeout: tt.timeout})
			before := time.Now()
			parent := context.Background()
			if tt.parentIn > 0 {
				var cancel context.CancelFunc
				parent, cancel = context.WithTimeout(parent, tt.parentIn)
				defer cancel()
			}
			ctx, cancel, err := e.Submit(parent, func(context.Context) {})
			require.NoError(t, err)
			defer cancel(nil)
			dl, ok := ctx.Deadline()
			if tt.wantIn == 0 {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.WithinRange(t, dl, before.Add(tt.wantIn), time.Now().Add(tt.wantIn))
		})
	}
}

func TestTimeout(t *testing.T) {
	t.Run("running", func(t *testing.T) {
		e := newExecutor(t, Options{Timeout: 20 * time.Millisecond})
		done := make(chan struct{})
		var inside error
		ctx, _ := submit(t, e, func(ctx context.Context) {
			<-ctx.Done()
			inside = context.Cause(ctx)
			close(done)
		})
		waitDone(t, done, "job to see its timeout")
		assert.ErrorIs(t, inside, ErrTimeout)
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
		assert.ErrorIs(t, context.Cause(ctx), ErrTimeout, "later ErrFinished must not replace the cause")
	})

	t.Run("queue time counts", func(t *testing.T) {
		const timeout = 200 * time.Millisecond
		e := newExecutor(t, Options{MaxConcurrency: 1, Timeout: timeout})
		started, release := make(chan struct{}), make(chan struct{})
		submit(t, e, blocker(started, release))
		waitDone(t, started, "blocker to start")

		submitted := time.Now()
		var sawDeadline time.Time
		ran := make(chan struct{})
		ctx, _ := submit(t, e, func(ctx context.Context) {
			sawDeadline, _ = ctx.Deadline()
			close(ran)
		})
		time.Sleep(timeout / 2) // half the budget spent queued
		close(release)
		waitDone(t, ran, "queued job to run")
		assert.WithinRange(t, sawDeadline, submitted.Add(timeout), submitted.Add(timeout+timeout/4))
		<-ctx.Done()
		assert.ErrorIs(t, context.Cause(ctx), ErrFinished)
	})

	t.Run("expires while queued", func(t *testing.T) {
		e := newExecutor(t, Options{MaxConcurrency: 1, MaxQueue: 1, Timeout: 20 * time.Millisecond})
		started, release := make(chan struct{}), make(chan struct{})
		defer close(release)
		submit(t, e, blocker(started, release)) // ignores its own timeout
		waitDone(t, started, "blocker to start")

		var ran atomic.Bool
		ctx, _ := submit(t, e, func(context.Context) { ran.Store(true) })
		waitDone(t, ctx.Done(), "queued job to time out")
		assert.ErrorIs(t, context.Cause(ctx), ErrTimeout)
		// The queue place is freed by the watch, asynchronously but promptly.
		require.Eventually(t, func() bool { return e.Stats().Queued == 0 }, waitTimeout, time.Millisecond)
		_, cancel2, err := e.Submit(context.Background(), func(context.Context) {})
		require.NoError(t, err, "freed queue place must be reusable")
		cancel2(nil)
		assert.False(t, ran.Load())
	})
}

func TestCancel(t *testing.T) {
	errMine := errors.New("client went away")

	t.Run("while queued", func(t *testing.T) {
		e := newExecutor(t, Options{MaxConcurrency: 1, MaxQueue: 1})
		started, release := make(chan struct{}), make(chan struct{})
		submit(t, e, blocker(started, release))
		waitDone(t, started, "blocker to start")

		var ran atomic.Bool
		ctx, cancel := submit(t, e, func(context.Context) { ran.Store(true) })
		_, _, err := e.Submit(context.Background(), func(context.Context) {})
		require.ErrorIs(t, err, ErrOverloaded)

		cancel(errMine)
		// Freed synchronously: no waiting needed.
		assert.Equal(t, Stats{Running: 1}, e.Stats())
		assert.ErrorIs(t, context.Cause(ctx), errMine)
		later := make(chan struct{})
		submit(t, e, func(context.Context) { close(later) })

		close(release)
		waitDone(t, later, "later job to run")
		assert.False(t, ran.Load(), "cancelled queued job ran")
	})

	t.Run("parent cancelled while queued", func(t *testing.T) {
		e := newExecutor(t, Options{MaxConcurrency: 1, MaxQueue: 1})
		started, release := make(chan struct{}), make(chan struct{})
		submit(t, e, blocker(started, release))
		waitDone(t, started, "blocker to start")

		parent, cancelParent := context.WithCancelCause(context.Background())
		var ran atomic.Bool
		ctx, _, err := e.Submit(parent, func(context.Context) { ran.Store(true) })
		require.NoError(t, err)
		cancelParent(errMine)
		assert.ErrorIs(t, context.Cause(ctx), errMine)
		require.Eventually(t, func() bool { return e.Stats().Queued == 0 }, waitTimeout, time.Millisecond)
		close(release)
		wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
		defer wcancel()
		require.NoError(t, e.Wait(wctx))
		assert.False(t, ran.Load(), "cancelled queued job ran")
	})

	t.Run("while running", func(t *testing.T) {
		e := newExecutor(t, Options{})
		started := make(chan struct{})
		var inside error
		ctx, cancel := submit(t, e, func(ctx context.Context) {
			close(started)
			<-ctx.Done()
			inside = context.Cause(ctx)
		})
		waitDone(t, started, "job to start")
		cancel(errMine)
		wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
		defer wcancel()
		require.NoError(t, e.Wait(wctx))
		assert.ErrorIs(t, inside, errMine)
		assert.ErrorIs(t, context.Cause(ctx), errMine)
		cancel(errors.New("too late")) // harmless after the end
		assert.ErrorIs(t, context.Cause(ctx), errMine)
	})
}

func TestPanic(t *testing.T) {
	errBoom := errors.New("boom error")
	tests := []struct {
		name  string
		value any
	}{
		{"string", "boom"},
		{"error", errBoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Concurrency 1 so that the next jobs run on the goroutine that
			// recovered the panic.
			e := newExecutor(t, Options{MaxConcurrency: 1})
			started, release := make(chan struct{}), make(chan struct{})
			submit(t, e, blocker(started, release))
			waitDone(t, started, "blocker to start")

			ctx, _ := submit(t, e, func(context.Context) { panic(tt.value) })
			var after atomic.Int64
			for range 3 {
				submit(t, e, func(context.Context) { after.Add(1) })
			}
			close(release)
			waitDone(t, ctx.Done(), "panicking job to end")

			var pe *PanicError
			require.ErrorAs(t, context.Cause(ctx), &pe)
			assert.Equal(t, tt.value, pe.Value)
			assert.Contains(t, string(pe.Stack), "TestPanic", "stack should show the panic site")
			assert.Contains(t, pe.Error(), "panicked")
			if err, ok := tt.value.(error); ok {
				assert.ErrorIs(t, context.Cause(ctx), err)
			}

			wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
			defer wcancel()
			require.NoError(t, e.Wait(wctx))
			assert.EqualValues(t, 3, after.Load(), "jobs after the panic must run")
			assert.Equal(t, Stats{}, e.Stats())
		})
	}
}

func TestGoexit(t *testing.T) {
	e := newExecutor(t, Options{MaxConcurrency: 1})
	started, release := make(chan struct{}), make(chan struct{})
	submit(t, e, func(context.Context) {
		started <- struct{}{}
		<-release
		runtime.Goexit()
	})
	waitDone(t, started, "job to start")
	next := make(chan struct{})
	submit(t, e, func(context.Context) { close(next) })
	close(release)
	waitDone(t, next, "queued job after Goexit")
	require.Eventually(t, func() bool { return e.Stats() == Stats{} }, waitTimeout, time.Millisecond)
}

// Each scenario must end the job's context exactly once with the expected
// cause, as seen by a context.AfterFunc observer.
func TestTerminalCause(t *testing.T) {
	errMine := errors.New("mine")
	errParent := errors.New("parent")
	tests := []struct {
		name string
		opts Options
		fn   func(context.Context)
		// act runs after Submit; it may cancel the job or its parent.
		act  func(cancel, cancelParent context.CancelCauseFunc)
		want error
	}{
		{"finished", Options{}, func(context.Context) {}, nil, ErrFinished},
		{"timeout", Options{Timeout: time.Millisecond}, func(ctx context.Context) { <-ctx.Done() }, nil, ErrTimeout},
		{"panic", Options{}, func(context.Context) { panic(1) }, nil, &PanicError{}},
		{"cancel", Options{}, func(ctx context.Context) { <-ctx.Done() },
			func(cancel, _ context.CancelCauseFunc) { cancel(errMine) }, errMine},
		{"parent", Options{}, func(ctx context.Context) { <-ctx.Done() },
			func(_, cancelParent context.CancelCauseFunc) { cancelParent(errParent) }, errParent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecutor(t, tt.opts)
			parent, cancelParent := context.WithCancelCause(context.Background())
			defer cancelParent(nil)
			ctx, cancel, err := e.Submit(parent, tt.fn)
			require.NoError(t, err)
			var calls atomic.Int64
			var cause atomic.Value
			context.AfterFunc(ctx, func() {
				calls.Add(1)
				cause.Store(context.Cause(ctx))
			})
			if tt.act != nil {
				tt.act(cancel, cancelParent)
			}
			wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
			defer wcancel()
			require.NoError(t, e.Wait(wctx))
			require.Eventually(t, func() bool { return calls.Load() > 0 }, waitTimeout, time.Millisecond)
			time.Sleep(5 * time.Millisecond) // a second call would show up now
			assert.EqualValues(t, 1, calls.Load())
			got, _ := cause.Load().(error)
			if pe := (*PanicError)(nil); errors.As(tt.want, &pe) {
				assert.ErrorAs(t, got, &pe)
			} else {
				assert.ErrorIs(t, got, tt.want)
			}
		})
	}
}

func TestClose(t *testing.T) {
	e, err := New(Options{MaxConcurrency: 2, MaxQueue: 3})
	require.NoError(t, err)

	// Two running jobs: one honours its context, one ignores it for a while.
	started := make(chan struct{}, 2)
	honoured := make(chan error, 1)
	release := make(chan struct{})
	runCtx, _ := submit(t, e, func(ctx context.Context) {
		started <- struct{}{}
		<-ctx.Done()
		honoured <- context.Cause(ctx)
		<-release // hold the slot so that Stats below is deterministic
	})
	stubbornCtx, _ := submit(t, e, blocker(started, release))
	waitDone(t, started, "job 1 to start")
	waitDone(t, started, "job 2 to start")

	var queuedRan atomic.Bool
	var queued []context.Context
	for range 3 {
		ctx, _ := submit(t, e, func(context.Context) { queuedRan.Store(true) })
		queued = append(queued, ctx)
	}
	require.Equal(t, Stats{Running: 2, Queued: 3}, e.Stats())

	e.Close()
	e.Close() // idempotent

	for _, ctx := range queued {
		require.Error(t, ctx.Err(), "queued context must be cancelled by Close itself")
		assert.ErrorIs(t, context.Cause(ctx), ErrClosed)
	}
	assert.ErrorIs(t, context.Cause(runCtx), ErrClosed)
	assert.ErrorIs(t, context.Cause(stubbornCtx), ErrClosed)
	select {
	case err := <-honoured:
		assert.ErrorIs(t, err, ErrClosed)
	case <-time.After(waitTimeout):
		require.FailNow(t, "running job did not see Close")
	}
	assert.Equal(t, Stats{Running: 2}, e.Stats())

	ctx, cancel, err := e.Submit(context.Background(), func(context.Context) { t.Error("ran after Close") })
	assert.ErrorIs(t, err, ErrClosed)
	assert.Nil(t, ctx)
	assert.Nil(t, cancel)

	// The stubborn job keeps its slot: Wait cannot finish yet.
	short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelShort()
	assert.ErrorIs(t, e.Wait(short), context.DeadlineExceeded)

	close(release)
	wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer wcancel()
	require.NoError(t, e.Wait(wctx))
	assert.False(t, queuedRan.Load(), "queued job ran after Close")
	assert.Equal(t, Stats{}, e.Stats())
}

func TestWaitIdle(t *testing.T) {
	e := newExecutor(t, Options{})
	assert.NoError(t, e.Wait(context.Background()), "idle executor")

	// Several concurrent waiters are all released.
	release := make(chan struct{})
	submit(t, e, blocker(nil, release))
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { assert.NoError(t, e.Wait(context.Background())) })
	}
	close(release)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	waitDone(t, done, "waiters")
}

func TestNoGoroutineLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := New(Options{MaxConcurrency: 16, MaxQueue: 2000, Timeout: 50 * time.Millisecond})
	require.NoError(t, err)

	for i := range 2000 {
		var fn func(context.Context)
		switch i % 4 {
		case 0:
			fn = func(context.Context) {}
		case 1:
			fn = func(context.Context) { panic("x") }
		case 2:
			fn = func(ctx context.Context) { <-ctx.Done() } // times out
		case 3:
			fn = func(context.Context) { time.Sleep(time.Microsecond) }
		}
		_, cancel, err := e.Submit(context.Background(), fn)
		require.NoError(t, err)
		if i%10 == 0 {
			cancel(nil) // some while queued, some while running
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	require.NoError(t, e.Wait(ctx))
	e.Close()
	assert.Equal(t, Stats{}, e.Stats())

	deadline := time.Now().Add(waitTimeout)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), base, "goroutines leaked")
}

// Hammer every entry point at once; meaningful mainly under -race.
func TestConcurrentStress(t *testing.T) {
	e, err := New(Options{MaxConcurrency: 4, MaxQueue: 16, Timeout: 5 * time.Millisecond})
	require.NoError(t, err)
	var ran, rejected atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 500 {
				_, cancel, err := e.Submit(context.Background(), func(ctx context.Context) {
					ran.Add(1)
					if i%7 == 0 {
						<-ctx.Done()
					}
				})
				if err != nil {
					rejected.Add(1)
					continue
				}
				if (i+w)%3 == 0 {
					cancel(nil)
				}
				_ = e.Stats()
			}
		})
	}
	wg.Wait()
	e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	require.NoError(t, e.Wait(ctx))
	assert.Equal(t, Stats{}, e.Stats())
	t.Logf("ran %d, rejected %d of %d", ran.Load(), rejected.Load(), 8*500)
}

// BenchmarkSubmit measures Submit plus execution of trivial jobs submitted
// from GOMAXPROCS goroutines. An overloaded Submit yields and retries;
// rejections are reported per op.
func BenchmarkSubmit(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts Options
	}{
		// Every job gets a slot at once: the spawn path alone.
		{"spawn", Options{MaxConcurrency: 1 << 30, MaxQueue: -1}},
		// Submitters outpace 64 slots, so most jobs pass through the queue
		// and run on recycled goroutines.
		{"timeout", Options{MaxConcurrency: 64, MaxQueue: 4096}},
		{"no-timeout", Options{MaxConcurrency: 64, MaxQueue: 4096, Timeout: -1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e, err := New(bc.opts)
			require.NoError(b, err)
			var rejects atomic.Int64
			fn := func(context.Context) {}
			parent := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					for {
						_, _, err := e.Submit(parent, fn)
						if err == nil {
							break
						}
						rejects.Add(1)
						runtime.Gosched()
					}
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			require.NoError(b, e.Wait(ctx))
			b.StopTimer()
			b.ReportMetric(float64(rejects.Load())/float64(b.N), "rejects/op")
			e.Close()
		})
	}
}

// A worker that finished parks and runs the next job that arrives instead
// of a fresh goroutine starting; idle workers leave on Close.
func TestWorkersAreReused(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := New(Options{MaxConcurrency: 4})
	require.NoError(t, err)
	ids := make(chan int64, 2)
	workerID := func(context.Context) {
		var buf [64]byte
		n := runtime.Stack(buf[:], false) // "goroutine 123 [running]:..."
		var id int64
		for _, c := range buf[len("goroutine "):n] {
			if c < '0' || c > '9' {
				break
			}
			id = id*10 + int64(c-'0')
		}
		ids <- id
	}
	seen := map[int64]bool{}
	reused := false
	deadline := time.Now().Add(waitTimeout)
	// One job at a time: each finds the previous job's worker parked (or,
	// on a loaded machine, not parked yet; then a new one starts).
	for i := 0; i < 50 && !reused; i++ {
		submit(t, e, workerID)
		id := <-ids
		reused = seen[id]
		seen[id] = true
		time.Sleep(2 * time.Millisecond)
	}
	assert.True(t, reused, "a parked worker ran a later job")
	e.Close()
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), base, "parked workers left on Close")
}

// TestTimeoutSweep holds the one deadline timer to every job: staggered
// jobs each time out on their own deadline, the timer re-arms for jobs
// submitted after it fired, and a job that finishes first is left alone.
func TestTimeoutSweep(t *testing.T) {
	const timeout = 60 * time.Millisecond
	e := newExecutor(t, Options{Timeout: timeout})
	ended := make(chan time.Duration, 3)
	start := time.Now()
	hang := func(ctx context.Context) {
		<-ctx.Done()
		assert.ErrorIs(t, context.Cause(ctx), ErrTimeout)
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
		assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded, "ErrTimeout matches DeadlineExceeded")
		ended <- time.Since(start)
	}
	submit(t, e, hang)
	quick, _ := submit(t, e, func(context.Context) {})
	time.Sleep(timeout / 2)
	submit(t, e, hang)
	first, second := <-ended, <-ended
	assert.GreaterOrEqual(t, first, timeout)
	assert.GreaterOrEqual(t, second, timeout+timeout/2, "the second job keeps its own, later deadline")
	<-quick.Done()
	assert.ErrorIs(t, context.Cause(quick), ErrFinished)

	// After the sweep found nothing left it is disarmed; a new job re-arms it.
	time.Sleep(timeout)
	submitted := time.Since(start)
	submit(t, e, hang)
	assert.GreaterOrEqual(t, <-ended, submitted+timeout)
}

// slotted is a SlottedJob that waits for release.
type slotted struct {
	slot    Slot
	release chan struct{}
	runs    atomic.Int32
}

func (s *slotted) Slot() *Slot { return &s.slot }
func (s *slotted) Run(context.Context) {
	s.runs.Add(1)
	<-s.release
}
func (*slotted) Ended(context.Context) {}

// A SlottedJob's record is its Slot: one allocation fewer than a Job's. A
// second submission while the first runs gets a record of its own.
func TestSlottedJob(t *testing.T) {
	e, err := New(Options{})
	require.NoError(t, err)
	defer e.Close()
	closed := make(chan struct{})
	close(closed)
	plain := testing.AllocsPerRun(100, func() {
		ctx, run, err := e.SubmitInline(context.Background(), Func(func(context.Context) {}))
		require.NoError(t, err)
		run.Run()
		<-ctx.Done()
	})
	inSlot := testing.AllocsPerRun(100, func() {
		s := &slotted{release: closed}
		ctx, run, err := e.SubmitInline(context.Background(), s)
		require.NoError(t, err)
		run.Run()
		<-ctx.Done()
	})
	assert.Equal(t, plain, inSlot, "the slotted job's own allocation replaces the record's")

	s := &slotted{release: make(chan struct{})}
	first, err := e.SubmitJob(context.Background(), s)
	require.NoError(t, err)
	second, err := e.SubmitJob(context.Background(), s)
	require.NoError(t, err)
	assert.NotSame(t, first, second, "two records")
	close(s.release)
	<-first.Done()
	<-second.Done()
	assert.Equal(t, int32(2), s.runs.Load())
}
