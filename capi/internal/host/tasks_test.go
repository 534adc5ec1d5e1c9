package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// modernCall dispatches msg on a session of its own, as each 2026-07-28
// HTTP request gets, and returns the answer.
func (f *fixture) modernCall(t *testing.T, msg string) map[string]any {
	t.Helper()
	in := make(inbox, 16)
	s, err := OpenSession(f.server, nil, in)
	require.NoError(t, err)
	defer CloseSession(s)
	require.NoError(t, Dispatch(s, []byte(msg)))
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(in.next(t)), &m))
	return m
}

func TestAddTaskToolDefinitions(t *testing.T) {
	f := newFixture(t, "", func(uint64, uint32, uint64, []byte) {})
	for _, bad := range []string{``, `{}`, `{"support":"sometimes"}`, `{"support":"optional","start":"later"}`, `{"support":"optional","x":1}`} {
		err := AddTaskTool(f.server, []byte(`{"name":"t"}`), []byte(bad), 20)
		assert.Equal(t, EInvalid, CodeOf(err), "task definition %q", bad)
	}
	for i, ok := range []string{`{"support":"forbidden"}`, `{"support":"optional"}`, `{"support":"required","start":"call"}`, `{"support":"required","start":"handler"}`} {
		assert.NoError(t, AddTaskTool(f.server, []byte(`{"name":"t`+string(rune('a'+i))+`"}`), []byte(ok), uint64(30+i)), ok)
	}
}

// A host's task: on_call runs once the task exists; the host asks for
// input, which waits for tasks/update (Input blocks, as on the legacy
// revisions), and completes; tasks/get shows each stage.
func TestHostTask(t *testing.T) {
	answered := make(chan string, 1)
	f := newFixture(t, "", func(call uint64, _ uint32, _ uint64, _ []byte) {
		go func() {
			got, err := Input(call, []byte(`{"ok":{"method":"elicitation/create","params":{"message":"Go on?"}}}`))
			if err != nil {
				answered <- err.Error()
				_ = Fail(call, 0, err.Error(), nil)
				return
			}
			answered <- string(got)
			_ = Complete(call, []byte(`{"content":[{"type":"text","text":"went on"}]}`))
		}()
	})
	require.NoError(t, AddTaskTool(f.server, []byte(`{"name":"job"}`), []byte(`{"support":"optional"}`), 40))
	m := f.modernCall(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job",`+taskMeta+`}}`)
	res, ok := m["result"].(map[string]any)
	require.True(t, ok, "%v", m)
	require.Equal(t, "task", res["resultType"])
	id := res["taskId"].(string)
	get := func() map[string]any {
		return f.modernCall(t, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+taskMeta+`}}`)["result"].(map[string]any)
	}
	waitFor(t, "input_required", func() bool { return get()["status"] == "input_required" })
	f.modernCall(t, `{"jsonrpc":"2.0","id":3,"method":"tasks/update","params":{"taskId":"`+id+`","inputResponses":{"ok":{"action":"accept"}},`+taskMeta+`}}`)
	assert.JSONEq(t, `{"ok":{"action":"accept"}}`, <-answered)
	waitFor(t, "completed", func() bool { return get()["status"] == "completed" })
	assert.Equal(t, "went on", get()["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
}

// StartTask: a handler-started task after a synchronous first answer;
// refused for a plain tool and once the call is over.
func TestHostStartTask(t *testing.T) {
	starts := make(chan error, 4)
	f := newFixture(t, "", func(call uint64, _ uint32, tag uint64, _ []byte) {
		starts <- StartTask(call)
		require.NoError(t, CompleteText(call, []byte("done")))
		starts <- StartTask(call)
	})
	require.NoError(t, AddTaskTool(f.server, []byte(`{"name":"later"}`), []byte(`{"support":"required","start":"handler"}`), 41))
	res := f.modernCall(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later",`+taskMeta+`}}`)["result"].(map[string]any)
	assert.NoError(t, <-starts)
	assert.Equal(t, EUnknownCall, CodeOf(<-starts), "the call is over")
	require.Equal(t, "task", res["resultType"])
	id := res["taskId"].(string)
	waitFor(t, "completed", func() bool {
		m := f.modernCall(t, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+taskMeta+`}}`)
		return m["result"].(map[string]any)["status"] == "completed"
	})

	// The echo tool has no task support: StartTask refuses, the call goes on.
	assert.Contains(t, f.in.next(t), "list_changed", "the legacy session heard of the new tool")
	f.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	err := <-starts
	assert.Equal(t, EInvalid, CodeOf(err))
	assert.True(t, strings.Contains(err.Error(), "cannot become a task"), err.Error())
	assert.Contains(t, f.in.next(t), `"text":"done"`)
	<-starts
}

// tasks/cancel reaches the host as on_cancel.
func TestHostTaskCancel(t *testing.T) {
	f := newFixture(t, "", func(uint64, uint32, uint64, []byte) {})
	require.NoError(t, AddTaskTool(f.server, []byte(`{"name":"job"}`), []byte(`{"support":"optional"}`), 40))
	id := f.modernCall(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job",`+taskMeta+`}}`)["result"].(map[string]any)["taskId"].(string)
	ack := f.modernCall(t, `{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"`+id+`",`+taskMeta+`}}`)
	assert.Equal(t, "complete", ack["result"].(map[string]any)["resultType"])
	waitFor(t, "on_cancel", func() bool { return f.host.count("cancel") == 1 })
}

// At the server's task limits StartTask says so with ELimit.
func TestHostStartTaskAtLimits(t *testing.T) {
	starts := make(chan error, 2)
	calls := make(chan uint64, 2)
	f := newFixture(t, `{"max_running_tasks":1}`, func(call uint64, _ uint32, _ uint64, _ []byte) {
		starts <- StartTask(call)
		calls <- call
	})
	require.NoError(t, AddTaskTool(f.server, []byte(`{"name":"later"}`), []byte(`{"support":"optional","start":"handler"}`), 41))
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later",` + taskMeta + `}}`
	assert.Equal(t, "task", f.modernCall(t, msg)["result"].(map[string]any)["resultType"])
	require.NoError(t, <-starts)
	first := <-calls
	s, err := OpenSession(f.server, nil, make(inbox, 4))
	require.NoError(t, err)
	defer CloseSession(s)
	require.NoError(t, Dispatch(s, []byte(msg)))
	err = <-starts
	assert.Equal(t, ELimit, CodeOf(err), "%v", err)
	assert.Contains(t, err.Error(), "too many tasks")
	require.NoError(t, CompleteText(<-calls, []byte("ordinary")))
	require.NoError(t, CompleteText(first, []byte("task")))
}
