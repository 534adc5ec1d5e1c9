package executor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults applied by [New] to zero-valued [Options] fields.
const (
	DefaultMaxConcurrency = 32
	DefaultMaxQueue       = 256
	DefaultTimeout        = 30 * time.Second
)

// Sentinel errors. Those that are terminal causes (see the package
// documentation) are read with [context.Cause]; the others are returned by
// [Executor.Submit].
var (
	// ErrOverloaded is returned by Submit when every slot is busy and the
	// queue is full. The job was not run and will not be.
	ErrOverloaded = errors.New("executor: overloaded")
	// ErrClosed is returned by Submit after Close, and is the cause of jobs
	// cancelled by Close.
	ErrClosed = errors.New("executor: closed")
	// ErrTimeout is the cause of a job whose executor Timeout elapsed. It
	// matches context.DeadlineExceeded under errors.Is.
	ErrTimeout error = timeoutError{}
	// ErrFinished is the cause with which a job's context is cancelled once
	// its function has returned.
	ErrFinished = errors.New("executor: job finished")
)

type timeoutError struct{}

func (timeoutError) Error() string        { return "executor: timeout" }
func (timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// errNilArgument is returned by Submit for a nil context or function; it is
// a programming error, reported rather than panicking so that a bad caller
// cannot crash the process.
var errNilArgument = errors.New("executor: nil context or function")

// PanicError is the terminal cause of a job whose function panicked.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the panicking goroutine's stack, as by debug.Stack
}

// Error implements error.
func (p *PanicError) Error() string {
	return fmt.Sprintf("executor: job panicked: %v", p.Value)
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see through a panic(err).
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Options configures an [Executor]. The zero value of each field selects its
// default.
type Options struct {
	// MaxConcurrency is the number of jobs that may run at once
	// (default DefaultMaxConcurrency). Negative values are invalid.
	MaxConcurrency int
	// MaxQueue is the number of jobs that may wait for a slot
	// (default DefaultMaxQueue). A negative value disables the queue: Submit
	// rejects as soon as all slots are busy.
	MaxQueue int
	// Timeout bounds each job from its submission, queue time included
	// (default DefaultTimeout). A negative value means no executor deadline;
	// the parent context's deadline, if any, still applies.
	Timeout time.Duration
}

// Stats is a snapshot of an executor's load.
type Stats struct {
	Running int // jobs whose function is executing
	Queued  int // jobs waiting for a slot
}

// Executor runs submitted functions; see the package documentation. It must
// be created with [New]. All methods are safe for concurrent use.
type Executor struct {
	maxConcurrency int
	maxQueue       int
	timeout        time.Duration // <= 0: none

	mu     sync.Mutex
	closed bool
	active jobList       // running jobs, for Close
	queue  jobList       // waiting jobs, FIFO
	idle   chan struct{} // closed when the executor becomes idle; lazily made by Wait

	// sweep is the one timer that enforces every job's deadline; armed
	// (swept true) while any job has one. A timer per job cost a tenth of
	// a small call's CPU (its allocation, registration and stop).
	sweep   *time.Timer
	swept   bool
	sweepAt instant // when the armed sweep fires

	// handoff passes a job to a parked worker. Reusing goroutines keeps
	// their grown stacks: a fresh goroutine per job paid a stack copy on
	// every call (JSON codecs need deep stacks), a tenth of a small call.
	handoff chan *job
	done    chan struct{} // closed by Close: parked workers exit
	epoch   time.Time     // New's time.Now, the origin of instants
}

// workerIdle is how long a worker with nothing to do waits for a job
// before its goroutine exits.
const workerIdle = time.Second

// New returns an executor configured by opts, after applying defaults.
func New(opts Options) (*Executor, error) {
	if opts.MaxConcurrency == 0 {
		opts.MaxConcurrency = DefaultMaxConcurrency
	}
	if opts.MaxConcurrency <= 0 {
		return nil, fmt.Errorf("executor: MaxConcurrency must be positive, got %d", opts.MaxConcurrency)
	}
	switch {
	case opts.MaxQueue == 0:
		opts.MaxQueue = DefaultMaxQueue
	case opts.MaxQueue < 0:
		opts.MaxQueue = 0
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Executor{
		maxConcurrency: opts.MaxConcurrency,
		maxQueue:       opts.MaxQueue,
		timeout:        opts.Timeout,
		handoff:        make(chan *job),
		done:           make(chan struct{}),
		epoch:          time.Now(),
	}, nil
}

// instant is a time on the monotonic clock, as the time since the
// executor's epoch; 0 is none (every deadline is later). A deadline is
// taken for every job: one monotonic clock read and integer arithmetic,
// where a time.Time cost its Add, IsZero and UnixNano besides. The wall
// time follows from the epoch's (time): a clock step since then shifts only
// what Deadline reports, not when a job times out.
type instant time.Duration

// now is the current instant.
func (e *Executor) now() instant { return instant(time.Since(e.epoch)) }

// time is i as a time.Time.
func (e *Executor) time(i instant) time.Time { return e.epoch.Add(time.Duration(i)) }

// Job is what the executor runs. Submit takes a plain function (Func);
// SubmitJob and SubmitInline take a Job, which can also learn of the ends
// the executor makes itself without a context.AfterFunc on the job's
// context (one was a third of the allocations of running a small job).
type Job interface {
	// Run does the work under ctx, the job's context.
	Run(ctx context.Context)
	// Ended is called, on a goroutine of its own and at most once, when
	// the executor itself ends the job's context with ErrTimeout, ErrClosed
	// or a *PanicError, whether Run was running, had returned or never ran.
	// Ends that come from the parent or the job's cancel function are not
	// reported: the submitter watches those itself if it must.
	Ended(ctx context.Context)
}

// A SlottedJob holds the executor's record of it, a Slot it embeds: the
// executor fills that in rather than allocating a record, so that a job and
// its record are one allocation (a request's call and its job, say). A Slot
// serves one submission; a job submitted again gets a record of its own.
type SlottedJob interface {
	Job
	Slot() *Slot
}

// Slot is the executor's record of a SlottedJob; its zero value is unused.
type Slot struct{ j job }

// Func is a Job of a plain function; its Ended does nothing.
type Func func(ctx context.Context)

// Run calls f(ctx).
func (f Func) Run(ctx context.Context) { f(ctx) }

// Ended implements Job.
func (Func) Ended(context.Context) {}

// Job states, guarded by Executor.mu (read atomically as a hint by cancel).
const (
	stateQueued uint32 = iota + 1
	stateRunning
	stateDone // finished, or dropped from the queue
)

// job is one submitted function. It is linked into exactly one of the
// executor's lists (active or queue) while running or queued.
type job struct {
	e        *Executor
	job      Job
	ctx      context.Context // what fn receives and Submit returns: &jc
	jc       jobContext
	deadline instant // the executor's deadline; 0 without Timeout
	// unwatch deregisters the context.AfterFunc that drops a queued job
	// whose context ends; set only while queued.
	unwatch func() bool
	// turn, for a queued job of SubmitInline, is closed when it gets a slot:
	// its submitter then runs it.
	turn chan struct{}

	state      atomic.Uint32
	told       atomic.Bool   // Job.Ended was called
	hold       atomic.Uint32 // see Hold
	prev, next *job
}

// end cancels the job's context with cause (a no-op if already cancelled).
// A cause of the executor's own making is told to the job (Job.Ended).
func (j *job) end(cause error) {
	j.jc.cancel(cause)
	_, panicked := cause.(*PanicError)
	if (cause == ErrTimeout || cause == ErrClosed || panicked) && j.told.CompareAndSwap(false, true) {
		go j.job.Ended(j.ctx)
	}
}

// cancel is the job's cancel function (Submit, Cancel). The end is the
// submitter's, so the job is not told of it (Job.Ended), whatever the
// cause.
func (j *job) cancel(cause error) { j.stop(cause, false) }

// stop ends the job with cause, told to it as end does if tell is set. A
// still-queued job is removed from the queue synchronously, so its place
// is free as soon as stop returns.
func (j *job) stop(cause error, tell bool) {
	if j.state.Load() == stateQueued && j.e.dropQueued(j, cause, tell) {
		return
	}
	j.endAs(cause, tell)
}

// endAs is end, or for tell false a plain cancellation.
func (j *job) endAs(cause error, tell bool) {
	if tell {
		j.end(cause)
	} else {
		j.jc.cancel(cause)
	}
}

// Submit schedules fn and returns the context fn will receive and a function
// to cancel it. fn runs at once if a slot is free, later (FIFO) if the queue
// has room; otherwise Submit returns ErrOverloaded, or ErrClosed after Close,
// and fn is never run. On error ctx and cancel are nil.
//
// ctx is a child of parent whose deadline is the earlier of parent's and now
// plus the executor's Timeout. It is always cancelled eventually, with one of
// the terminal causes listed in the package documentation; cancel(cause)
// ends it early, and if the job is still queued, fn will not run. (A job
// that gets a slot at once is started even if parent has already ended; fn
// then sees an ended context.) Callers should call cancel when they lose
// interest; doing so after the job has ended is harmless.
func (e *Executor) Submit(parent context.Context, fn func(ctx context.Context)) (ctx context.Context, cancel context.CancelCauseFunc, err error) {
	if fn == nil {
		return nil, nil, errNilArgument
	}
	j, err := e.submit(parent, Func(fn), false)
	if err != nil {
		return nil, nil, err
	}
	return j.ctx, j.cancel, nil
}

// SubmitJob is Submit for a Job. It returns no cancel function: Cancel(ctx,
// cause) is that function (a function value per job was an allocation).
func (e *Executor) SubmitJob(parent context.Context, job Job) (ctx context.Context, err error) {
	j, err := e.submit(parent, job, false)
	if err != nil {
		return nil, err
	}
	return j.ctx, nil
}

// SubmitInline is SubmitJob for a caller that waits for the job anyway,
// such as the goroutine of an HTTP request: handing the job to a worker and
// its answer back costs two goroutine switches a call. The job is admitted
// (a slot, else the queue, else ErrOverloaded) exactly as by SubmitJob, but
// it runs on the caller's goroutine: the caller must call run.Run exactly
// once, there. With a slot free, Run runs the job at once; a queued job's
// Run waits for its turn in the queue (FIFO, as ever) and then runs it, or
// returns without running it if the job's context ends first (a queued job
// that ends never runs). The job gets the same context, deadline, panic
// capture and terminal causes as one the executor starts itself, and Cancel
// works before Run as after.
func (e *Executor) SubmitInline(parent context.Context, job Job) (ctx context.Context, run Turn, err error) {
	j, err := e.submit(parent, job, true)
	if err != nil {
		return nil, Turn{}, err
	}
	return j.ctx, Turn{j}, nil
}

// Cancel ends the job whose context is ctx, as Submit's cancel function
// does: its context ends with cause (context.Canceled if nil), and a job
// still queued never runs. It reports whether ctx is a job's context.
// Cancelling a job that has ended is harmless.
func Cancel(ctx context.Context, cause error) bool {
	jc, ok := ctx.(*jobContext)
	if ok {
		jc.j.cancel(cause)
	}
	return ok
}

// Turn is a job admitted by SubmitInline, for its submitter to run. It is
// a value rather than a function: a closure per job was an allocation.
type Turn struct{ j *job }

// Queued reports whether the job was queued when admitted: Run would wait
// for its turn.
func (t Turn) Queued() bool { return t.j.turn != nil }

// Hand is Run for a submitter that must not wait for a queued job's turn
// (a host's event-loop thread, which the jobs ahead may need): the job
// runs on a worker when its turn comes, as if SubmitJob had admitted it.
// Call Hand or Run, once.
func (t Turn) Hand() {
	j, e := t.j, t.j.e
	e.mu.Lock()
	state := j.state.Load()
	if state == stateQueued {
		j.turn = nil // next starts it like any queued job
	}
	e.mu.Unlock()
	if state == stateRunning { // promoted meanwhile: nobody runs it but us
		e.start(j)
	}
}

// Run runs the job on the caller's goroutine (see SubmitInline).
func (t Turn) Run() {
	if t.j.turn != nil {
		t.j.e.awaitTurn(t.j)
	} else {
		t.j.e.runInline(t.j)
	}
}

func (e *Executor) submit(parent context.Context, work Job, inline bool) (*job, error) {
	if parent == nil || work == nil {
		return nil, errNilArgument
	}
	// The deadline counts from here.
	var j *job
	if sj, ok := work.(SlottedJob); ok && sj.Slot().j.e == nil {
		j = &sj.Slot().j
		j.e, j.job = e, work
	} else {
		j = &job{e: e, job: work}
	}
	j.jc.parent, j.jc.j = parent, j
	if e.timeout > 0 {
		j.deadline = e.now() + instant(e.timeout)
		j.jc.deadline.Store(int64(j.deadline))
	}
	j.ctx = &j.jc // one allocation with the job

	var err error
	e.mu.Lock()
	if !e.closed && j.deadline != 0 && !e.swept {
		e.armSweepLocked(e.timeout)
	}
	switch {
	case e.closed:
		err = ErrClosed
	case e.active.n < e.maxConcurrency:
		// Fast path: start now on a fresh goroutine, no handoff.
		j.state.Store(stateRunning)
		e.active.pushBack(j)
		e.mu.Unlock()
		if !inline {
			e.start(j)
		}
		return j, nil
	case e.queue.n < e.maxQueue:
		j.state.Store(stateQueued)
		e.queue.pushBack(j)
		// Drop the job as soon as its context ends for any reason (parent,
		// timeout). Registered under the lock so that a worker dequeuing j
		// always sees unwatch set. AfterFunc never calls back synchronously.
		// It makes the job's cancelable context, which registers with the
		// parent's: a lock of the parent's under e.mu, on this path only.
		j.unwatch = context.AfterFunc(j.ctx, func() { e.dropQueued(j, nil, false) })
		if inline {
			j.turn = make(chan struct{})
		}
		e.mu.Unlock()
		return j, nil
	default:
		err = ErrOverloaded
	}
	e.mu.Unlock()
	j.jc.cancel(err) // the job is not told
	return nil, err
}

// start runs j, already in the active list, on a parked worker or a new
// goroutine.
func (e *Executor) start(j *job) {
	select {
	case e.handoff <- j:
	default:
		go e.run(j)
	}
}

// awaitTurn waits until the queued inline job j gets a slot (next closes
// its turn) and runs it, unless its context ends while it is still queued.
func (e *Executor) awaitTurn(j *job) {
	select {
	case <-j.turn:
	case <-j.ctx.Done():
		// Dropped from the queue, by us or by whoever ended it, it never
		// runs; promoted at the same moment, it runs like a started job
		// whose context has ended.
		if e.dropQueued(j, nil, false) || j.state.Load() != stateRunning {
			return
		}
		<-j.turn
	}
	e.runInline(j)
}

// runInline executes j on the caller's goroutine; the next queued job, if
// any, goes to a worker, since the caller has its own work to go back to.
func (e *Executor) runInline(j *job) {
	if e.execute(j) != ran {
		return // held, or runtime.Goexit: execute already handed the slot on
	}
	if n := e.next(j); n != nil {
		e.start(n)
	}
}

// armSweepLocked sets the sweep to run after d.
func (e *Executor) armSweepLocked(d time.Duration) {
	e.swept = true
	e.sweepAt = e.now() + instant(d)
	if e.sweep == nil {
		e.sweep = time.AfterFunc(d, e.expire)
	} else {
		e.sweep.Reset(d)
	}
}

// expire ends every job whose deadline has passed with ErrTimeout and sets
// the sweep for the next deadline. Deadlines grow with submission order, so
// in steady load it runs about once per Timeout, not once per job.
func (e *Executor) expire() {
	now := e.now()
	var expired []*job
	var next instant
	e.mu.Lock()
	for _, l := range [...]*jobList{&e.active, &e.queue} {
		for j := l.head; j != nil; j = j.next {
			switch {
			case j.deadline == 0: // Extend took it away
			case j.deadline <= now:
				expired = append(expired, j)
			case next == 0 || j.deadline < next:
				next = j.deadline
			}
		}
	}
	e.swept = false
	if next != 0 && !e.closed {
		e.armSweepLocked(time.Duration(next - now))
	}
	e.mu.Unlock()
	// Outside the lock, as everywhere: cancelling may call into the parent.
	for _, j := range expired {
		j.stop(ErrTimeout, true)
	}
}

// dropQueued removes j from the queue if it is still there, ends its
// context with cause (a no-op when the context has already ended), told to
// the job as end does if tell is set, and reports whether it did so.
//
// Contexts are never cancelled while e.mu is held: cancelling may call into
// a user-defined parent context (its AfterFunc stop function).
func (e *Executor) dropQueued(j *job, cause error, tell bool) bool {
	e.mu.Lock()
	if j.state.Load() != stateQueued {
		e.mu.Unlock()
		return false
	}
	e.queue.remove(j)
	j.state.Store(stateDone)
	j.unwatch() // false if the watch is what called us; harmless
	e.notifyIfIdleLocked()
	e.mu.Unlock()
	j.endAs(cause, tell)
	return true
}

// run executes j, then keeps taking queued jobs on the same goroutine until
// the queue is empty.
func (e *Executor) run(j *job) {
	var idle *time.Timer
	for j != nil {
		switch e.execute(j) {
		case exited:
			return // execute already handed the slot on
		case held:
			j = nil // its Release hands the slot on
		default:
			j = e.next(j)
		}
		if j == nil {
			j, idle = e.park(idle)
		}
	}
}

// park waits for a job handed off by Submit; nil when none came within
// workerIdle or the executor closed. idle is the worker's timer, made on
// first use and reused.
func (e *Executor) park(idle *time.Timer) (*job, *time.Timer) {
	if idle == nil {
		idle = time.NewTimer(workerIdle)
	} else {
		idle.Reset(workerIdle)
	}
	select {
	case j := <-e.handoff:
		idle.Stop()
		return j, idle
	case <-idle.C:
	case <-e.done:
		idle.Stop()
	}
	return nil, idle
}

// How execute left a job.
type outcome uint8

const (
	ran    outcome = iota // over: the caller retires it (next)
	held                  // Run returned under a Hold: Release retires it
	exited                // runtime.Goexit: the slot was handed on already
)

func (e *Executor) execute(j *job) (out outcome) {
	returned := false
	defer func() {
		if returned {
			if j.hold.CompareAndSwap(holdRunning, holdParked) {
				out = held
				return
			}
			j.end(ErrFinished)
			return
		}
		// A job that panicked or exited is over, held or not: a later
		// Release does nothing.
		j.hold.Store(holdReleased)
		if r := recover(); r != nil {
			// debug.Stack inside the deferred call still shows the frames
			// of the panicking function.
			j.end(&PanicError{Value: r, Stack: debug.Stack()})
			out = ran
			return
		}
		// Neither returned nor panicked: runtime.Goexit. Treat it as a
		// return, but this goroutine cannot continue the loop.
		j.end(ErrFinished)
		if n := e.next(j); n != nil {
			go e.run(n)
		}
		out = exited
	}()
	j.job.Run(j.ctx)
	returned = true
	return ran
}

// Hold states of a job.
const (
	holdNone     uint32 = iota
	holdRunning         // held, and Run has not returned yet
	holdParked          // held after Run returned: the slot waits for Release
	holdReleased        // released, or the job is over
)

// Hold is a running job's claim on its slot past the return of its Run,
// for work that finishes elsewhere (a handler whose answer a C ABI host
// gives later, from its own thread): the goroutine that ran the job goes
// back to other work, and the job stays running — counted against
// MaxConcurrency, under its deadline, its context alive — until Release.
type Hold struct{ j *job }

// HoldJob holds the job whose context is ctx, which must be the context
// its Run received, while Run has not returned. It reports false for any
// other context and for a job held before.
func HoldJob(ctx context.Context) (Hold, bool) {
	jc, ok := ctx.(*jobContext)
	if !ok || jc.j.state.Load() != stateRunning || !jc.j.hold.CompareAndSwap(holdNone, holdRunning) {
		return Hold{}, false
	}
	return Hold{jc.j}, true
}

// Extend gives the running job whose context is ctx a new deadline of
// the executor's own, d from now (d <= 0: none), in place of the one it
// got from Timeout, and reports whether it found such a job. It is for
// work that turns out to be longer than a request, such as a tools/call
// the server made a task. A parent's deadline still applies, and a job
// that has already timed out stays so.
func Extend(ctx context.Context, d time.Duration) bool {
	jc, ok := ctx.(*jobContext)
	if !ok {
		return false
	}
	j, e := jc.j, jc.j.e
	var at instant
	if d > 0 {
		at = e.now() + instant(d)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if j.state.Load() != stateRunning || ctx.Err() != nil {
		return false
	}
	j.deadline = at
	jc.deadline.Store(int64(at))
	if at == 0 {
		return true
	}
	// A later deadline is found by the sweep already armed (it re-arms for
	// the next one); an earlier one must bring the sweep forward.
	if !e.closed && (!e.swept || at < e.sweepAt) {
		e.armSweepLocked(time.Duration(at - e.now()))
	}
	return true
}

// Held reports whether h holds a job (the zero Hold holds none).
func (h Hold) Held() bool { return h.j != nil }

// Release ends the held job as if its Run returned now: its context is
// cancelled with ErrFinished and its slot goes to the next queued job.
// Released before Run returns, the job ends when Run does. Only the first
// Release counts; one after a panic in Run, or on the zero Hold, does
// nothing.
func (h Hold) Release() {
	j := h.j
	if j == nil {
		return
	}
	for {
		switch j.hold.Load() {
		case holdRunning:
			if j.hold.CompareAndSwap(holdRunning, holdReleased) {
				return // execute retires it when Run returns
			}
		case holdParked:
			if j.hold.CompareAndSwap(holdParked, holdReleased) {
				j.end(ErrFinished)
				if n := j.e.next(j); n != nil {
					j.e.start(n)
				}
				return
			}
		default:
			return
		}
	}
}

// next retires the finished job j and returns the next queued job to run on
// the caller's goroutine, already moved to the active list, or nil after
// freeing j's slot if the queue is empty.
func (e *Executor) next(j *job) *job {
	var dropped jobList // queued jobs found already ended, to release unlocked
	e.mu.Lock()
	e.active.remove(j)
	j.state.Store(stateDone)
	n := e.queue.popFront()
	// A false unwatch means the watch has fired: the context has ended and
	// its dropQueued will find the job no longer queued. Checking Err as well
	// closes the window between cancellation and the watch firing.
	for n != nil && (!n.unwatch() || n.ctx.Err() != nil) {
		n.state.Store(stateDone)
		dropped.pushBack(n)
		n = e.queue.popFront()
	}
	var turn chan struct{} // read under the lock: Hand may clear it
	if n != nil {
		n.unwatch = nil
		n.state.Store(stateRunning)
		e.active.pushBack(n)
		turn = n.turn
	} else {
		e.notifyIfIdleLocked()
	}
	e.mu.Unlock()
	for d := dropped.popFront(); d != nil; d = dropped.popFront() {
		d.end(nil) // unlinks from the parent
	}
	if turn != nil {
		// An inline job runs on its submitter's goroutine, which waits.
		close(turn)
		return nil
	}
	return n
}

// notifyIfIdleLocked wakes Wait callers if nothing runs or waits.
func (e *Executor) notifyIfIdleLocked() {
	if e.idle != nil && e.active.n == 0 && e.queue.n == 0 {
		close(e.idle)
		e.idle = nil
	}
}

// Close stops the executor: later Submit calls return ErrClosed, queued jobs
// are dropped (their functions never run) and the contexts of queued and
// running jobs are cancelled with cause ErrClosed. Close does not wait for
// running functions to return; use Wait for that. Close is idempotent.
func (e *Executor) Close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	close(e.done)
	if e.sweep != nil {
		e.sweep.Stop()
		e.swept = false
	}
	dropped := e.queue
	e.queue = jobList{}
	for j := dropped.head; j != nil; j = j.next {
		j.unwatch()
		j.state.Store(stateDone)
	}
	running := make([]*job, 0, e.active.n)
	for j := e.active.head; j != nil; j = j.next {
		running = append(running, j)
	}
	e.notifyIfIdleLocked()
	e.mu.Unlock()

	// Cancel outside the lock (see dropQueued). A running job may finish
	// meanwhile; ending an ended job is a no-op, and jobs are never reused.
	for j := dropped.popFront(); j != nil; j = dropped.popFront() {
		j.end(ErrClosed)
	}
	for _, j := range running {
		j.end(ErrClosed)
	}
}

// Wait blocks until no job is running or queued, or ctx ends, in which case
// it returns ctx's error. It is meant for a graceful drain after Close;
// before Close, jobs submitted meanwhile extend the wait. Calling Wait from
// inside a job waits for that job too and so can only end with ctx.
func (e *Executor) Wait(ctx context.Context) error {
	e.mu.Lock()
	if e.active.n == 0 && e.queue.n == 0 {
		e.mu.Unlock()
		return nil
	}
	if e.idle == nil {
		e.idle = make(chan struct{})
	}
	idle := e.idle
	e.mu.Unlock()

	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns the current number of running and queued jobs.
func (e *Executor) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Stats{Running: e.active.n, Queued: e.queue.n}
}

// jobList is an intrusive doubly linked list of jobs: linking needs no
// allocation and removing a cancelled queued job is O(1).
type jobList struct {
	head, tail *job
	n          int
}

func (l *jobList) pushBack(j *job) {
	j.prev, j.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = j
	} else {
		l.head = j
	}
	l.tail = j
	l.n++
}

func (l *jobList) remove(j *job) {
	if j.prev != nil {
		j.prev.next = j.next
	} else {
		l.head = j.next
	}
	if j.next != nil {
		j.next.prev = j.prev
	} else {
		l.tail = j.prev
	}
	j.prev, j.next = nil, nil
	l.n--
}

func (l *jobList) popFront() *job {
	j := l.head
	if j != nil {
		l.remove(j)
	}
	return j
}

// Options returns the options in force, defaults applied.
func (e *Executor) Options() Options {
	return Options{MaxConcurrency: e.maxConcurrency, MaxQueue: e.maxQueue, Timeout: e.timeout}
}
