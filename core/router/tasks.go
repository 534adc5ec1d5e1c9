package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// TaskSupport says whether calls of a tool may become tasks: answered at
// once with a task handle that the client polls (the 2026-07-28 tasks
// extension, io.modelcontextprotocol/tasks). Whether a task is made is the
// server's choice per call; the client only says it can take one, in the
// request's capabilities. The older revisions have no tasks: there every
// tool runs as an ordinary call.
type TaskSupport uint8

const (
	// TaskForbidden: calls never become tasks (the zero value).
	TaskForbidden TaskSupport = iota
	// TaskOptional: a call becomes a task when its request declares the
	// extension, and runs as an ordinary call otherwise.
	TaskOptional
	// TaskRequired: a call becomes a task; a 2026-07-28 request that does
	// not declare the extension gets -32021 before the handler runs.
	TaskRequired
)

// TaskStart says when a call that may become a task becomes one.
type TaskStart uint8

const (
	// TaskAtStart: before the handler runs (the zero value).
	TaskAtStart TaskStart = iota
	// TaskByHandler: when the handler calls Request.StartTask, after any
	// input_required rounds it wants answered first (the extension asks
	// servers to settle those synchronously, before the task exists). A
	// handler that never calls it answers as an ordinary call.
	TaskByHandler
)

// TaskOptions are a tool's task settings; the zero value means no tasks.
type TaskOptions struct {
	Support TaskSupport
	Start   TaskStart
}

func (o TaskOptions) check() error {
	if o.Support > TaskRequired {
		return fmt.Errorf("unknown TaskSupport %d", o.Support)
	}
	if o.Start > TaskByHandler {
		return fmt.Errorf("unknown TaskStart %d", o.Start)
	}
	return nil
}

// Tasker is implemented by the dispatcher for a tools/call on 2026-07-28:
// the request's side of the tasks extension.
type Tasker interface {
	// TasksDeclared reports whether the request declared the extension.
	TasksDeclared() bool
	// StartTask makes the call a task: it answers the request with a
	// CreateTaskResult at once, and whatever the handler later returns
	// becomes the task's outcome. It fails when the server's task limits
	// are reached or the request is over.
	StartTask() error
}

// ErrNoTask is what Request.StartTask returns for a call that cannot
// become a task.
var ErrNoTask = errors.New("polymcp: this call cannot become a task (a tools/call on 2026-07-28 of a tool with task support, whose request declares " + spec.ExtensionTasks + ")")

// StartTask makes the running tools/call a task: the client gets a task
// handle now and polls for the outcome the handler returns later; meanwhile
// the handler's context stays alive, under the server's task deadline
// instead of the request's. Input asked for from then on waits for the
// client's tasks/update instead of answering input_required. It returns
// ErrNoTask unless the tool has task support and the request declared the
// extension (never on the older revisions), and the dispatcher's error
// when the server's task limits are reached; the call then goes on as an
// ordinary one. Calling it on a call that is already a task does nothing.
func (r *Request) StartTask() error {
	if r == nil || r.Tasks == nil || r.tool == nil || r.tool.task.Support == TaskForbidden || !r.Tasks.TasksDeclared() {
		return ErrNoTask
	}
	return r.Tasks.StartTask()
}

// MissingExtension is the -32021 error of a 2026-07-28 request that needs
// extension ext, which its client capabilities do not declare:
// data.requiredCapabilities is {"extensions":{ext:{}}}.
func MissingExtension(method, ext string) *jsonrpc.Error {
	return (&MissingCapabilityError{Method: method, Modern: true,
		Required: json.RawMessage(`{"extensions":{` + strconv.Quote(ext) + `:{}}}`)}).RPCError()
}

// taskGate applies t's task settings to a call before its handler runs:
// -32021 for a required task the request cannot take, and the start of a
// task that begins with the call.
func (t *tool) taskGate(req *Request) *jsonrpc.Error {
	if req == nil || req.Tasks == nil {
		return nil // not 2026-07-28: an ordinary call
	}
	declared := req.Tasks.TasksDeclared()
	switch {
	case !declared && t.task.Support == TaskRequired:
		return MissingExtension("tools/call "+t.def.Name, spec.ExtensionTasks)
	case !declared || t.task.Start != TaskAtStart:
		return nil
	}
	if err := req.Tasks.StartTask(); err != nil && t.task.Support == TaskRequired {
		// An optional task that cannot start runs as an ordinary call.
		return handlerError(err)
	}
	return nil
}

// TaskSupport returns the task support of the named tool (TaskForbidden
// for an unknown one).
func (r *Router) TaskSupport(name string) TaskSupport {
	t, ok := r.tools.lookup(name)
	if !ok {
		return TaskForbidden
	}
	return t.task.Support
}

// Tasks reports whether any tool was ever registered with task support: the
// server then advertises the extension.
func (r *Router) Tasks() bool { return r.caps.Load()&capTasks != 0 }
