package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
)

// Polling bounds of a task (the server suggests pollIntervalMs).
const (
	minTaskPoll     = 50 * time.Millisecond
	defaultTaskPoll = time.Second
	maxTaskPoll     = 30 * time.Second
)

// isTask reports whether a tools/call result is a task handle.
func isTask(raw []byte) bool {
	rt, _, err := jsonrpc.StringMember(raw, "resultType")
	return err == nil && rt == spec.ResultTask
}

// awaitTask follows the task a tools/call became (the 2026-07-28 tasks
// extension) to its end: it polls tasks/get at the pace the server
// suggests, answers the task's questions with the handlers through
// tasks/update, and returns the tool's result. A task that failed is its
// JSON-RPC error; one cancelled elsewhere is ErrTaskCancelled. When ctx
// ends first, the task is cancelled (tasks/cancel) on the way out.
func (c *Client) awaitTask(ctx context.Context, handle []byte) ([]byte, error) {
	var t spec.DetailedTask
	if err := jsonrpc.UnmarshalOwned(handle, &t); err != nil || t.TaskID == "" {
		return nil, fmt.Errorf("client: bad task handle: %s", handle)
	}
	for {
		switch t.Status {
		case spec.TaskCompleted:
			if len(t.Result) == 0 {
				return nil, fmt.Errorf("client: task %s completed without a result", t.TaskID)
			}
			return t.Result, nil
		case spec.TaskFailed:
			return nil, taskError(t)
		case spec.TaskCancelled:
			return nil, fmt.Errorf("%w: %s", ErrTaskCancelled, t.TaskID)
		case spec.TaskInputRequired:
			if err := c.updateTask(ctx, t); err != nil {
				return nil, c.cancelTask(t.TaskID, err)
			}
		default:
			if err := transport.Wait(ctx, pollOf(t.PollIntervalMs)); err != nil {
				return nil, c.cancelTask(t.TaskID, err)
			}
		}
		raw, err := c.request(ctx, "tasks/get", map[string]any{"taskId": t.TaskID}, nil)
		if err != nil {
			return nil, c.cancelTask(t.TaskID, err)
		}
		t = spec.DetailedTask{}
		if err := jsonrpc.UnmarshalOwned(raw, &t); err != nil {
			return nil, fmt.Errorf("client: bad tasks/get result: %w", err)
		}
	}
}

// ErrTaskCancelled is CallTool's error when the task its call became was
// cancelled by someone else.
var ErrTaskCancelled = errors.New("client: the task was cancelled")

// updateTask answers the task's input requests with the handlers.
func (c *Client) updateTask(ctx context.Context, t spec.DetailedTask) error {
	responses, err := c.answerInputs(ctx, t.InputRequests)
	if err != nil {
		return err
	}
	_, err = c.request(ctx, "tasks/update", map[string]any{"taskId": t.TaskID, "inputResponses": responses}, nil)
	return err
}

// cancelTask stops a task the client gives up on (its context ended, a
// question could not be answered) and returns why it gave up.
func (c *Client) cancelTask(id string, cause error) error {
	ctx, cancel := context.WithTimeout(c.ctx, c.o.ProbeTimeout)
	defer cancel()
	if _, err := c.request(ctx, "tasks/cancel", map[string]any{"taskId": id}, nil); err != nil {
		c.o.Logger.Debug("client: cancelling a task", "task", id, "err", err)
	}
	return cause
}

// taskError is the JSON-RPC error a failed task carries.
func taskError(t spec.DetailedTask) error {
	var e struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    jsonrpc.RawJSON `json:"data"`
	}
	if err := jsonrpc.UnmarshalOwned(t.Error, &e); err != nil || e.Message == "" {
		return fmt.Errorf("client: task %s failed", t.TaskID)
	}
	je := &jsonrpc.Error{Code: e.Code, Message: e.Message}
	if len(e.Data) > 0 {
		je.Data = e.Data
	}
	return je
}

// pollOf is the server's suggested interval, within bounds.
func pollOf(ms int64) time.Duration {
	if ms <= 0 {
		return defaultTaskPoll
	}
	return min(max(time.Duration(ms)*time.Millisecond, minTaskPoll), maxTaskPoll)
}
