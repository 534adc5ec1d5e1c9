// Package executor runs handler functions (tools, resources, prompts) with
// bounded concurrency, a bounded FIFO queue and a per-job deadline. It is
// transport-neutral: it knows nothing of JSON-RPC and reports everything
// through the job's context.
//
// # Model
//
// An [Executor] has MaxConcurrency slots and a queue of MaxQueue places.
// [Executor.Submit] starts the job at once on a new goroutine when a slot is
// free, otherwise appends it to the queue, otherwise rejects it with
// [ErrOverloaded] without running it. When a job returns, its goroutine takes
// the next queued job itself, so a busy executor does not spawn a goroutine
// per job. [Executor.SubmitInline] is Submit for a caller that would wait for
// the job anyway: given a free slot, the job runs on the caller's goroutine,
// with the same context, deadline and panic capture.
//
// Every job gets its own context, a child of the context passed to Submit
// (never of anything executor-global). The cancelable context behind it is
// made when something first needs it (Done, Cause, a context derived from
// it, the parent's end), so a job that nobody watches costs no more than
// its own allocation; what an observer sees is the same either way. Its deadline is the earlier of the
// parent's deadline and the submission time plus Timeout: time spent waiting
// in the queue counts. A job whose context ends while it is still queued is
// removed from the queue at once and its function is never called.
//
// One timer per executor enforces every job's deadline (a timer per job
// cost a tenth of a small call's CPU). A timed-out job's Err is
// context.DeadlineExceeded and its cause [ErrTimeout], which also matches
// context.DeadlineExceeded; contexts derived from it report
// context.Canceled with that cause.
//
// # Terminal causes
//
// Every job context is cancelled exactly once, and [context.Cause] then
// reports why. A caller watching with [context.AfterFunc] therefore sees one
// of:
//
//   - [ErrFinished]: the function returned (also after runtime.Goexit);
//   - [ErrTimeout]: the executor's Timeout elapsed (queued or running);
//   - *[PanicError]: the function panicked; the executor recovered;
//   - [ErrClosed]: [Executor.Close] was called before the job finished;
//   - the cause given to the job's cancel function ([Cancel] for a job of
//     SubmitJob or SubmitInline);
//   - the parent context's cause (for example the parent's deadline).
//
// A job whose context ended before it left the queue never runs, whatever
// the cause; the caller learns of it only through the context.
//
// A [Job] given to [Executor.SubmitJob] or [Executor.SubmitInline] is also
// told of the ends the executor makes itself ([ErrTimeout], *[PanicError],
// [ErrClosed]) by [Job.Ended], so that it needs no watch on its context for
// them.
//
// # Holding a slot
//
// A job whose work finishes elsewhere — a handler answered later by a C
// ABI host, from the host's own thread — need not keep a goroutine blocked
// for it: [HoldJob], called from its Run, keeps the job running after Run
// returns (its slot taken, its deadline and context alive, Close and
// timeouts ending it as any running job) until [Hold.Release], from any
// goroutine, ends it with [ErrFinished] and hands its slot on.
//
// # Limits
//
// Goroutines cannot be killed. Cancelling a job's context — by timeout,
// cancel, Close or the parent — only asks the function to stop; a function
// that ignores its context keeps its concurrency slot until it really
// returns, and [Executor.Wait] waits for it too.
package executor
