package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/polymcp/polymcp/core/executor"
	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/router"
	"github.com/polymcp/polymcp/core/spec"
)

// Defaults of the tasks extension's limits (Config).
const (
	DefaultTaskTTL          = time.Hour
	DefaultMaxTasks         = 1000
	DefaultTaskPollInterval = time.Second
)

// taskGrace is how long a task is kept past its TTL: its handler's
// deadline is the TTL, and a client polling at the suggested interval
// still sees how a task the TTL ended, ended.
const taskGrace = time.Minute

// taskTimeFormat writes createdAt and lastUpdatedAt: RFC 3339 in UTC, to
// the millisecond.
const taskTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// errTaskCancelled is the cause a tasks/cancel gives the task's handler.
var errTaskCancelled = errors.New("polymcp: task cancelled by the client (tasks/cancel)")

// errTooManyTasks refuses a task past MaxTasks or MaxRunningTasks.
func errTooManyTasks() *jsonrpc.Error {
	return execError(ReasonOverloaded, "server overloaded: too many tasks; retry later")
}

// taskStore holds a Runtime's tasks by id. Tasks are kept for their TTL
// from creation, plus taskGrace; expired ones are dropped by a sweep that store operations
// run at most once a second, so that the core needs no timer of its own.
type taskStore struct {
	ttl, poll       time.Duration
	max, maxRunning int

	mu      sync.Mutex
	byID    map[string]*task
	running int
	sweepAt time.Time
}

func (st *taskStore) init(cfg Config) {
	st.ttl, st.poll, st.max, st.maxRunning = cfg.TaskTTL, cfg.TaskPollInterval, cfg.MaxTasks, cfg.MaxRunningTasks
	if st.ttl <= 0 {
		st.ttl = DefaultTaskTTL
	}
	if st.poll <= 0 {
		st.poll = DefaultTaskPollInterval
	}
	if st.max <= 0 {
		st.max = DefaultMaxTasks
	}
	if st.maxRunning <= 0 {
		// Running tasks hold executor slots: half of them stay free for
		// ordinary requests.
		st.maxRunning = max(1, cfg.Executor.Options().MaxConcurrency/2)
	}
	st.byID = make(map[string]*task)
}

// add stores t, a running task, unless the limits are reached.
func (st *taskStore) add(t *task, now time.Time) error {
	st.mu.Lock()
	expired := st.sweepLocked(now)
	full := len(st.byID) >= st.max || st.running >= st.maxRunning
	if !full {
		st.byID[t.id] = t
		st.running++
	}
	st.mu.Unlock()
	stopExpired(expired)
	if full {
		return errTooManyTasks()
	}
	return nil
}

// get returns the task with id, nil when there is none (never was, or
// expired).
func (st *taskStore) get(id string, now time.Time) *task {
	st.mu.Lock()
	expired := st.sweepLocked(now)
	t := st.byID[id]
	st.mu.Unlock()
	stopExpired(expired)
	if t == nil || !now.Before(t.expires) {
		return nil
	}
	return t
}

// known returns those of ids that name a task kept now.
func (st *taskStore) known(ids []string, now time.Time) []string {
	var out []string
	for _, id := range ids {
		if st.get(id, now) != nil && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// remove forgets a task that never reached its client.
func (st *taskStore) remove(t *task) {
	st.mu.Lock()
	if st.byID[t.id] == t {
		delete(st.byID, t.id)
		st.running--
	}
	st.mu.Unlock()
}

// ended counts a task that reached a terminal status.
func (st *taskStore) ended() {
	st.mu.Lock()
	st.running--
	st.mu.Unlock()
}

// sweepLocked drops the tasks whose TTL and grace have passed and returns
// those still running, to be stopped outside the lock. A running task's
// deadline is its TTL, so it is normally failed by then.
func (st *taskStore) sweepLocked(now time.Time) []*task {
	if now.Before(st.sweepAt) {
		return nil
	}
	st.sweepAt = now.Add(time.Second)
	var running []*task
	for id, t := range st.byID {
		if now.Before(t.expires) {
			continue
		}
		delete(st.byID, id)
		if !t.terminal() {
			running = append(running, t)
		}
	}
	return running
}

func stopExpired(tasks []*task) {
	for _, t := range tasks {
		if c := t.running(); c != nil {
			c.abandon(executor.ErrTimeout)
		}
	}
}

// task is one task: the call it came from, whose handler goes on running,
// and what a client polling it sees.
type task struct {
	id      string
	rt      *Runtime
	created time.Time
	expires time.Time
	ttlMs   int64
	pollMs  int64

	mu sync.Mutex
	// c is the call whose handler runs the task, until the task ends:
	// a kept task must not keep its request alive.
	c       *call
	status  string
	message string
	updated time.Time
	// outcome is the result (completed) or the error object (failed).
	outcome json.RawMessage
	// pending are the input requests the handler waits on; answers are
	// what tasks/update delivered for them, kept for the task's life so
	// that a key is never asked twice.
	pending map[string]spec.InputRequest
	answers map[string]json.RawMessage
	// wake is closed, and replaced, when answers arrive.
	wake chan struct{}
	// changes counts the changes of status; notified is the last one
	// notifications/tasks told (guarded by notifyMu, which orders them).
	changes  uint64
	notifyMu sync.Mutex
	notified uint64
}

func newTask(c *call, now time.Time, st *taskStore) *task {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return &task{id: base64.RawURLEncoding.EncodeToString(b[:]), c: c, rt: c.s.rt, created: now, expires: now.Add(st.ttl + taskGrace),
		ttlMs: st.ttl.Milliseconds(), pollMs: max(1, st.poll.Milliseconds()), status: spec.TaskWorking,
		updated: now, wake: make(chan struct{})}
}

func (t *task) terminal() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return spec.TerminalTaskStatus(t.status)
}

// running returns the call of a task that has not ended, else nil.
func (t *task) running() *call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c
}

// stateLocked is the task as the wire shows it.
func (t *task) stateLocked() spec.Task {
	ttl := t.ttlMs
	return spec.Task{TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: t.created.UTC().Format(taskTimeFormat), LastUpdatedAt: t.updated.UTC().Format(taskTimeFormat),
		TTLMs: &ttl, PollIntervalMs: t.pollMs}
}

// created is the CreateTaskResult that answers the call.
func (t *task) createdResult() *spec.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	res := t.stateLocked()
	res.ResultType = spec.ResultTask
	return &res
}

// detailed answers tasks/get.
func (t *task) detailed() *spec.DetailedTask {
	d, _ := t.snapshot()
	return d
}

// snapshot is detailed with the count of changes it shows.
func (t *task) snapshot() (*spec.DetailedTask, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := &spec.DetailedTask{Task: t.stateLocked()}
	switch t.status {
	case spec.TaskCompleted:
		d.Result = t.outcome
	case spec.TaskFailed:
		d.Error = t.outcome
	case spec.TaskInputRequired:
		d.InputRequests = make(map[string]spec.InputRequest, len(t.pending))
		for k, q := range t.pending {
			d.InputRequests[k] = q
		}
	}
	return d, t.changes
}

// end puts the task in a terminal status, unless it is in one already, and
// returns its call if it did.
func (t *task) end(status string, outcome json.RawMessage, message string, now time.Time) *call {
	t.mu.Lock()
	defer t.mu.Unlock()
	if spec.TerminalTaskStatus(t.status) {
		return nil
	}
	c := t.c
	t.c, t.outcome, t.pending = nil, outcome, nil
	t.setStatusLocked(status, now)
	if message != "" {
		t.message = message
	}
	return c
}

// note sets the status message (a handler's progress message).
func (t *task) note(message string, now time.Time) {
	t.mu.Lock()
	if !spec.TerminalTaskStatus(t.status) {
		t.message, t.updated = message, now
	}
	t.mu.Unlock()
}

// answer takes a tasks/update: each response to a pending request is kept
// and the request leaves inputRequests; responses to anything else are
// ignored, as the extension asks. Once nothing is pending the task works
// again.
func (t *task) answer(responses map[string]json.RawMessage, now time.Time) {
	if t.take(responses, now) {
		t.rt.taskChanged(t)
	}
}

// take keeps the responses to pending requests and reports whether the
// task's status changed (back to working).
func (t *task) take(responses map[string]json.RawMessage, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	took := false
	for k, v := range responses {
		if _, ok := t.pending[k]; !ok {
			continue
		}
		delete(t.pending, k)
		if t.answers == nil {
			t.answers = make(map[string]json.RawMessage)
		}
		t.answers[k] = v
		took = true
	}
	if !took {
		return false
	}
	t.updated = now
	close(t.wake)
	t.wake = make(chan struct{})
	return t.resumeLocked(now)
}

// setStatusLocked moves the task to status, counting the change for
// notifications/tasks.
func (t *task) setStatusLocked(status string, now time.Time) {
	t.status, t.updated = status, now
	t.changes++
}

// resumeLocked puts an input_required task that waits on nothing more back
// to working, and reports whether it did.
func (t *task) resumeLocked(now time.Time) bool {
	if len(t.pending) > 0 || t.status != spec.TaskInputRequired {
		return false
	}
	t.setStatusLocked(spec.TaskWorking, now)
	return true
}

// await asks the client for reqs through the task's inputRequests and
// waits until tasks/update has answered every one, or ctx ends.
func (t *task) await(ctx context.Context, reqs map[string]spec.InputRequest, now func() time.Time) (map[string]json.RawMessage, error) {
	t.mu.Lock()
	if t.pending == nil {
		t.pending = make(map[string]spec.InputRequest)
	}
	for k, q := range reqs {
		if _, done := t.answers[k]; !done {
			t.pending[k] = q
		}
	}
	if len(t.pending) > MaxInputRequests {
		for k := range reqs {
			delete(t.pending, k)
		}
		t.mu.Unlock()
		return nil, invalidParams("polymcp: more than %d input requests pending on one task", MaxInputRequests)
	}
	if len(t.pending) > 0 && t.status == spec.TaskWorking {
		t.setStatusLocked(spec.TaskInputRequired, now())
		t.mu.Unlock()
		t.rt.taskChanged(t)
		t.mu.Lock()
	}
	for {
		out := make(map[string]json.RawMessage, len(reqs))
		for k := range reqs {
			if a, ok := t.answers[k]; ok {
				out[k] = a
			}
		}
		if len(out) == len(reqs) {
			t.mu.Unlock()
			return out, nil
		}
		wake := t.wake
		t.mu.Unlock()
		select {
		case <-wake:
			t.mu.Lock()
		case <-ctx.Done():
			t.withdraw(reqs, now())
			return nil, context.Cause(ctx)
		}
	}
}

// withdraw drops reqs from inputRequests after their asker gave up.
func (t *task) withdraw(reqs map[string]spec.InputRequest, now time.Time) {
	t.mu.Lock()
	for k := range reqs {
		delete(t.pending, k)
	}
	working := t.resumeLocked(now)
	t.mu.Unlock()
	if working {
		t.rt.taskChanged(t)
	}
}

// TasksDeclared implements router.Tasker.
func (c *call) TasksDeclared() bool { return declares(c.req.ClientCapabilities, spec.ExtensionTasks) }

// StartTask implements router.Tasker: the task is stored (so that a
// tasks/get for it resolves) before the CreateTaskResult is sent, the job
// gets the task's deadline, and the call leaves its session, whose end no
// longer cancels it.
func (c *call) StartTask() error {
	if c.task.Load() != nil {
		return nil
	}
	if c.jobCtx == nil {
		return router.ErrNoTask
	}
	rt := c.s.rt
	now := rt.now()
	t := newTask(c, now, &rt.tasks)
	if err := rt.tasks.add(t, now); err != nil {
		return err
	}
	if !executor.Extend(c.jobCtx, rt.tasks.ttl) {
		rt.tasks.remove(t)
		return errFinished // the job ended meanwhile
	}
	// The task is marked before the call is done, so that run, which may
	// look at the call only now, does not take it for abandoned.
	c.task.Store(t)
	if !c.settle() {
		// Abandoned meanwhile: the job is stopped here, or by run if it has
		// not got the job's cancel function yet.
		c.task.Store(nil)
		rt.tasks.remove(t)
		c.mu.Lock()
		job := c.job
		c.mu.Unlock()
		if job != nil {
			executor.Cancel(job, errCancelledByClient)
		}
		return errFinished
	}
	c.Detach()
	c.answer(t.createdResult())
	return nil
}

// mayBecomeTask reports whether a call may become a task, so that it is
// not run on the delivering goroutine, which would wait for the task.
func (c *call) mayBecomeTask() bool {
	raw := c.param(paramName)
	if c.req.Tasks == nil || !c.TasksDeclared() || raw == nil {
		return false
	}
	name, err := jsonrpc.StringValue(raw, "name")
	return err == nil && c.s.rt.cfg.Router.TaskSupport(name) != router.TaskForbidden
}

// settleTask gives t the outcome of its handler: what it returned, or why
// its context ended first.
func (c *call) settleTask(t *task, ctx context.Context, res spec.Result, err error) {
	rt := c.s.rt
	status, message := spec.TaskCompleted, ""
	var fail *jsonrpc.Error
	var outcome []byte
	switch {
	case ctx.Err() != nil:
		cause := context.Cause(ctx)
		var panicErr *executor.PanicError
		switch {
		case errors.Is(cause, executor.ErrFinished):
			return // the handler's own return settled it
		case errors.Is(cause, errTaskCancelled):
			status = spec.TaskCancelled
		case errors.Is(cause, executor.ErrTimeout):
			fail = execError(ReasonTimeout, fmt.Sprintf("task timed out after %s", rt.tasks.ttl))
		case errors.As(cause, &panicErr):
			fail = c.panicked(panicErr)
		case errors.Is(cause, executor.ErrClosed):
			fail = execError(ReasonShutdown, "server is shutting down")
		default:
			fail = execError(ReasonShutdown, "the task was stopped: "+cause.Error())
		}
	case err != nil:
		fail = rt.wireError(c.adm.dialect, err)
	default:
		c.shape(res)
		var merr error
		if outcome, merr = jsonrpc.Marshal(res); merr != nil {
			fail = execError(ReasonPanic, "cannot encode result: "+merr.Error())
		}
	}
	if fail != nil {
		status, message, outcome = spec.TaskFailed, fail.Message, jsonrpc.AppendErrorObject(nil, fail)
	}
	if t.end(status, outcome, message, rt.now()) != nil {
		rt.tasks.ended()
		rt.taskChanged(t)
	}
}

// lookupTask finds the task a tasks/* request names: -32602 for a missing
// or unknown taskId.
func lookupTask(c *call, id string) (*task, error) {
	if id == "" {
		return nil, invalidParams("%s needs params.taskId", c.method)
	}
	t := c.s.rt.tasks.get(id, c.s.rt.now())
	if t == nil {
		return nil, invalidParams("unknown task: %s", echoID(id)).WithData(map[string]any{"taskId": echoID(id)})
	}
	return t, nil
}

// taskOf decodes the params of tasks/get or tasks/cancel and finds their
// task.
func taskOf(c *call) (*task, error) {
	var p spec.TaskParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	return lookupTask(c, p.TaskID)
}

// echoID bounds a client's task id repeated in an error.
func echoID(id string) string {
	if len(id) > 128 {
		return id[:128] + "…"
	}
	return id
}

func getTask(_ context.Context, c *call) (spec.Result, error) {
	t, err := taskOf(c)
	if err != nil {
		return nil, err
	}
	return t.detailed(), nil
}

func updateTask(_ context.Context, c *call) (spec.Result, error) {
	var p spec.UpdateTaskParams
	if err := decodeParams(c, &p); err != nil {
		return nil, err
	}
	t, err := lookupTask(c, p.TaskID)
	if err != nil {
		return nil, err
	}
	if p.InputResponses == nil {
		return nil, invalidParams("tasks/update needs params.inputResponses, an object")
	}
	for k, v := range p.InputResponses {
		if len(v) == 0 || v[0] != '{' {
			return nil, invalidParams("params.inputResponses[%q] must be a result object", k)
		}
	}
	t.answer(p.InputResponses, c.s.rt.now())
	return &spec.EmptyResult{}, nil
}

// cancelTask acknowledges at once: a running task is cancelled (status
// cancelled, its handler's context ended with errTaskCancelled); a
// terminal one stays as it is.
func cancelTask(_ context.Context, c *call) (spec.Result, error) {
	t, err := taskOf(c)
	if err != nil {
		return nil, err
	}
	rt := c.s.rt
	if c := t.end(spec.TaskCancelled, nil, "cancelled by the client", rt.now()); c != nil {
		rt.tasks.ended()
		c.abandon(errTaskCancelled)
		rt.taskChanged(t)
	}
	return &spec.EmptyResult{}, nil
}
