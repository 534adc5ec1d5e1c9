package host

// Call kinds, equal to POLYMCP_KIND_* in polymcp.h.
const (
	KindTool       uint32 = 1 // tools/call: complete with a CallToolResult
	KindResource   uint32 = 2 // resources/read: complete with a ReadResourceResult
	KindPrompt     uint32 = 3 // prompts/get: complete with a GetPromptResult
	KindCompletion uint32 = 4 // completion/complete: complete with a CompleteResult
)

// Callbacks is the host's side of a server: the C library implements it
// with the function pointers of polymcp_server_callbacks. Methods are called
// from Go goroutines, several at once; params is borrowed for the duration
// of OnCall only. OnClosed is called exactly once, after every other call
// has returned, and nothing is called after it.
type Callbacks interface {
	OnCall(call uint64, kind uint32, tag uint64, params []byte)
	OnCancel(call uint64)
	OnLog(level int, msg []byte)
	OnClosed()
}

// Sender receives the messages of a host-owned session (polymcp_session_*),
// one JSON-RPC message per call, borrowed for the call's duration. Send is
// called from Go goroutines, several at once.
type Sender interface {
	Send(msg []byte)
}
