package spec

import "encoding/json"

// ExtensionTasks names the tasks extension of 2026-07-28 (SEP-2663): a
// tools/call may be answered with a task handle that the client polls with
// tasks/get, feeds with tasks/update and stops with tasks/cancel. Both
// sides declare it under capabilities.extensions; the client does so per
// request, in _meta.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ResultTask is the resultType of a CreateTaskResult.
const ResultTask = "task"

// Task statuses. The last three are terminal: a task in one of them never
// changes again.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TerminalTaskStatus reports whether status is completed, failed or
// cancelled.
func TerminalTaskStatus(status string) bool {
	return status == TaskCompleted || status == TaskFailed || status == TaskCancelled
}

// Values of ToolExecution.TaskSupport.
const (
	TaskSupportForbidden = "forbidden"
	TaskSupportOptional  = "optional"
	TaskSupportRequired  = "required"
)

// Task is the state of a task, and as a result the CreateTaskResult that
// answers a tools/call the server turned into a task (resultType "task").
// Its members sit at the top level of the result, next to resultType: the
// extension has no nested "task" object. TTLMs shadows ResultBase's cache
// hint of the same wire name, which a task never carries.
type Task struct {
	ResultBase
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are RFC 3339 times in UTC.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is how long, in milliseconds from its creation, the server
	// keeps the task; null would mean for ever, which polymcp never says.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs is how often the server suggests polling tasks/get.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
}

// DetailedTask answers tasks/get: the task, with the underlying result
// inlined once it completed, the JSON-RPC error once it failed, and the
// requests the task waits on while it is input_required.
type DetailedTask struct {
	Task
	Result        json.RawMessage         `json:"result,omitempty"`
	Error         json.RawMessage         `json:"error,omitempty"`
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
}

// TaskParams are the params of tasks/get and tasks/cancel.
type TaskParams struct {
	TaskID string `json:"taskId"`
	Meta   Meta   `json:"_meta,omitempty"`
}

// UpdateTaskParams are the params of tasks/update: the client's results
// for some or all of the task's inputRequests, under the same keys.
type UpdateTaskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	Meta           Meta                       `json:"_meta,omitempty"`
}
