package everything

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/polymcp/polymcp/mcp"
)

// The task tools exercise the 2026-07-28 tasks extension: a call whose
// request declares io.modelcontextprotocol/tasks is answered with a task
// handle, and the client polls tasks/get for the outcome. Everywhere else
// (older revisions, requests without the extension) the same handlers run
// as ordinary calls.

// ComputeInput are the arguments of slow_compute.
type ComputeInput struct {
	Seconds float64 `json:"seconds" jsonschema:"how long to work, in seconds (0: at once)"`
	Label   string  `json:"label,omitempty" jsonschema:"a name for the job, echoed in the result"`
}

// GreetInput are the arguments of greet.
type GreetInput struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// DeleteInput are the arguments of confirm_delete.
type DeleteInput struct {
	Filename string `json:"filename" jsonschema:"the file to delete once the user confirms"`
}

var (
	optionalTask = mcp.TaskOptions{Support: mcp.TaskOptional}
	requiredTask = mcp.TaskOptions{Support: mcp.TaskRequired}
)

func addTaskTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets by name at once (never a task)"},
		func(_ context.Context, _ *mcp.Request, in GreetInput) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})
	mcp.AddTaskTool(s, &mcp.Tool{Name: "slow_compute", Description: "Works for the given seconds, as a task when the client takes tasks"},
		optionalTask, slowCompute)
	mcp.AddTaskTool(s, &mcp.Tool{Name: "failing_job", Description: "A task that ends, after about a second, with a tool error", InputSchema: noArgs},
		requiredTask, func(ctx context.Context, _ *mcp.Request, _ struct{}) (*mcp.CallToolResult, error) {
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
			return nil, errors.New("failing_job failed, as it always does")
		})
	mcp.AddTaskTool(s, &mcp.Tool{Name: "protocol_error_job", Description: "A task whose handler panics: it fails with a JSON-RPC error", InputSchema: noArgs},
		optionalTask, func(context.Context, *mcp.Request, struct{}) (*mcp.CallToolResult, error) {
			panic("protocol_error_job panics, as it always does")
		})
	mcp.AddTaskTool(s, &mcp.Tool{Name: "confirm_delete", Description: "Asks the user to confirm (elicitation), then deletes the file"},
		optionalTask, confirmDelete)
	mcp.AddTaskTool(s, &mcp.Tool{Name: "multi_input", Description: "Asks two questions at once (elicitation), then joins the answers", InputSchema: noArgs},
		optionalTask, multiInput)
	mcp.AddTaskTool(s, &mcp.Tool{Name: "test_tool_with_task", Description: "Asks the user's name first, then goes on as a task that greets them", InputSchema: noArgs},
		mcp.TaskOptions{Support: mcp.TaskRequired, Start: mcp.TaskByHandler}, greetAsTask)
}

func slowCompute(ctx context.Context, _ *mcp.Request, in ComputeInput) (string, error) {
	if in.Seconds < 0 || in.Seconds > 3600 {
		return "", errors.New("seconds must be between 0 and 3600")
	}
	label := in.Label
	if label == "" {
		label = "job"
	}
	if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
		return "", err
	}
	return fmt.Sprintf("Computed %s in %ss", label, strconv.FormatFloat(in.Seconds, 'f', -1, 64)), nil
}

func confirmDelete(ctx context.Context, req *mcp.Request, in DeleteInput) (*mcp.CallToolResult, error) {
	res, err := req.Elicit(ctx, "confirm", &mcp.ElicitParams{Message: "Delete " + in.Filename + "?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)})
	if err != nil {
		return toolFailure(err)
	}
	if res.Action == "accept" && res.Content["confirm"] == true {
		return text("Deleted " + in.Filename), nil
	}
	return text("Kept " + in.Filename), nil
}

func multiInput(ctx context.Context, req *mcp.Request, _ struct{}) (*mcp.CallToolResult, error) {
	ask := stringForm("What should the first item be called?", "name")
	got, err := req.Input(ctx, map[string]mcp.InputRequest{
		"first":  mcp.Elicitation(ask),
		"second": mcp.Elicitation(stringForm("What should the second item be called?", "name")),
	})
	if err != nil {
		return toolFailure(err)
	}
	var first, second mcp.ElicitResult
	if err := errors.Join(json.Unmarshal(got["first"], &first), json.Unmarshal(got["second"], &second)); err != nil {
		return mcp.ErrorResult("malformed answer: " + err.Error()), nil
	}
	return text("Got " + field(&first, "name") + " and " + field(&second, "name")), nil
}

// greetAsTask settles its question synchronously (input_required on
// 2026-07-28), as the extension asks, and only then becomes a task.
func greetAsTask(ctx context.Context, req *mcp.Request, _ struct{}) (*mcp.CallToolResult, error) {
	res, err := req.Elicit(ctx, "user_name", stringForm(askNameMessage, "name"))
	if err != nil {
		return toolFailure(err)
	}
	// Where the call cannot become a task (an older revision, the server's
	// task limits), it answers as an ordinary call.
	_ = req.StartTask()
	if err := pause(ctx, 200*time.Millisecond); err != nil {
		return nil, err
	}
	return text("Hello, " + field(res, "name") + "! (greeted by a task)"), nil
}
