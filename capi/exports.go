package main

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/polymcp/polymcp/capi/internal/host"
	"github.com/polymcp/polymcp/core/jsonrpc"
)

// Every export has a named result rc and `defer guard(&rc)`, so a panic
// anywhere below becomes POLYMCP_E_INTERNAL instead of killing the host.
func guard(rc *C.int) {
	if r := recover(); r != nil {
		*rc = fail(&host.Error{Code: host.EInternal, Msg: fmt.Sprintf("polymcp internal error: %v", r)})
	}
}

// fail records err as the thread's last error and returns its code.
func fail(err error) C.int {
	msg := err.Error()
	return C.pmcp_set_error(C.int(host.CodeOf(err)), (*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
}

func result(err error) C.int {
	if err == nil {
		return 0
	}
	return fail(err)
}

// input copies a borrowed C buffer into Go memory (the caller may free it
// as soon as we return; decoders may keep references into what they read).
func input(p *C.char, n C.size_t) []byte {
	if n == 0 {
		return nil
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(n))
}

// maxInput bounds one input: C.GoBytes takes an int32 length.
const maxInput = 1<<31 - 1

func tooLong(n C.size_t) error {
	if n > maxInput {
		return &host.Error{Code: host.EInvalid, Msg: "input longer than 2 GiB"}
	}
	return nil
}

// output hands b to the caller as a malloc'd, NUL-terminated buffer.
func output(b []byte, p **C.char, n *C.size_t) C.int {
	buf := C.pmcp_dup(bytesPtr(b), C.size_t(len(b)))
	if buf == nil {
		return fail(&host.Error{Code: host.EInternal, Msg: "out of memory"})
	}
	*p, *n = buf, C.size_t(len(b))
	return 0
}

//export pmcpgo_configure
func pmcpgo_configure(p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.Configure(input(p, n)))
}

//export pmcpgo_stats
func pmcpgo_stats(p **C.char, n *C.size_t) (rc C.int) {
	defer guard(&rc)
	b, err := jsonrpc.Marshal(host.CurrentStats())
	if err != nil {
		return fail(err)
	}
	return output(b, p, n)
}

//export pmcpgo_server_new
func pmcpgo_server_new(p *C.char, n C.size_t, cb *C.polymcp_server_callbacks, out *C.uint64_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	h, err := host.NewServer(input(p, n), cCallbacks{cb: cb})
	if err != nil {
		return fail(err)
	}
	*out = C.uint64_t(h)
	return 0
}

func add(fn func(uint64, []byte, uint64) error, s C.uint64_t, p *C.char, n C.size_t, tag C.uint64_t) C.int {
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(fn(uint64(s), input(p, n), uint64(tag)))
}

//export pmcpgo_server_add_tool
func pmcpgo_server_add_tool(s C.uint64_t, p *C.char, n C.size_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return add(host.AddTool, s, p, n, tag)
}

//export pmcpgo_server_add_task_tool
func pmcpgo_server_add_task_tool(s C.uint64_t, p *C.char, n C.size_t, tp *C.char, tn C.size_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	if n > maxInput || tn > maxInput {
		return fail(tooLong(max(n, tn)))
	}
	return result(host.AddTaskTool(uint64(s), input(p, n), input(tp, tn), uint64(tag)))
}

//export pmcpgo_server_add_resource
func pmcpgo_server_add_resource(s C.uint64_t, p *C.char, n C.size_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return add(host.AddResource, s, p, n, tag)
}

//export pmcpgo_server_add_resource_template
func pmcpgo_server_add_resource_template(s C.uint64_t, p *C.char, n C.size_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return add(host.AddResourceTemplate, s, p, n, tag)
}

//export pmcpgo_server_add_prompt
func pmcpgo_server_add_prompt(s C.uint64_t, p *C.char, n C.size_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return add(host.AddPrompt, s, p, n, tag)
}

//export pmcpgo_server_set_completer
func pmcpgo_server_set_completer(s C.uint64_t, p *C.char, n C.size_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return add(host.SetCompleter, s, p, n, tag)
}

//export pmcpgo_server_remove
func pmcpgo_server_remove(s C.uint64_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.Remove(uint64(s), uint64(tag)))
}

//export pmcpgo_server_notify
func pmcpgo_server_notify(s C.uint64_t, m *C.char, mn C.size_t, p *C.char, pn C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(max(mn, pn)); err != nil {
		return fail(err)
	}
	method := input(m, mn)
	if !utf8.Valid(method) {
		return fail(&host.Error{Code: host.EInvalid, Msg: "method is not UTF-8"})
	}
	return result(host.Notify(uint64(s), string(method), input(p, pn)))
}

//export pmcpgo_server_serve_stdio
func pmcpgo_server_serve_stdio(s C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	err := host.ServeStdio(uint64(s), input(p, n))
	if err == nil {
		releaseStartupPages()
	}
	return result(err)
}

//export pmcpgo_server_serve_http
func pmcpgo_server_serve_http(s C.uint64_t, p *C.char, n C.size_t, url **C.char, urlLen *C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	u, err := host.ServeHTTP(uint64(s), input(p, n))
	if err != nil {
		return fail(err)
	}
	releaseStartupPages()
	return output([]byte(u), url, urlLen)
}

//export pmcpgo_server_http
func pmcpgo_server_http(s C.uint64_t, p *C.char, n C.size_t, body *C.char, bodyLen C.size_t, cb *C.polymcp_http_callbacks, out *C.uint64_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(max(n, bodyLen)); err != nil {
		return fail(err)
	}
	h, err := host.HTTP(uint64(s), input(p, n), input(body, bodyLen), cHTTP{cb: cb})
	if err != nil {
		return fail(err)
	}
	*out = C.uint64_t(h)
	return 0
}

//export pmcpgo_http_cancel
func pmcpgo_http_cancel(h C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.CancelHTTP(uint64(h)))
}

//export pmcpgo_server_wait
func pmcpgo_server_wait(s C.uint64_t, timeoutMs C.int32_t) (rc C.int) {
	defer guard(&rc)
	return result(host.Wait(uint64(s), int32(timeoutMs)))
}

//export pmcpgo_server_close
func pmcpgo_server_close(s C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.Close(uint64(s)))
}

//export pmcpgo_server_free
func pmcpgo_server_free(s C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.Free(uint64(s)))
}

//export pmcpgo_session_open
func pmcpgo_session_open(s C.uint64_t, p *C.char, n C.size_t, send C.polymcp_send_fn, user unsafe.Pointer, out *C.uint64_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	h, err := host.OpenSession(uint64(s), input(p, n), cSender{fn: send, user: user})
	if err != nil {
		return fail(err)
	}
	*out = C.uint64_t(h)
	return 0
}

//export pmcpgo_session_dispatch
func pmcpgo_session_dispatch(ss C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.Dispatch(uint64(ss), input(p, n)))
}

//export pmcpgo_session_close
func pmcpgo_session_close(ss C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.CloseSession(uint64(ss)))
}

//export pmcpgo_call_complete
func pmcpgo_call_complete(c C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.Complete(uint64(c), input(p, n)))
}

//export pmcpgo_call_complete_text
func pmcpgo_call_complete_text(c C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.CompleteText(uint64(c), input(p, n)))
}

//export pmcpgo_call_fail_data
func pmcpgo_call_fail_data(c C.uint64_t, code C.int32_t, p *C.char, n C.size_t, d *C.char, dn C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	if err := tooLong(dn); err != nil {
		return fail(err)
	}
	msg := input(p, n)
	if !utf8.Valid(msg) {
		return fail(&host.Error{Code: host.EInvalid, Msg: "message is not UTF-8"})
	}
	return result(host.Fail(uint64(c), int32(code), string(msg), input(d, dn)))
}

//export pmcpgo_call_progress
func pmcpgo_call_progress(c C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.Progress(uint64(c), input(p, n)))
}

//export pmcpgo_call_log
func pmcpgo_call_log(c C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.Log(uint64(c), input(p, n)))
}

//export pmcpgo_call_info
func pmcpgo_call_info(c C.uint64_t, p **C.char, n *C.size_t) (rc C.int) {
	defer guard(&rc)
	b, err := host.Info(uint64(c))
	if err != nil {
		return fail(err)
	}
	return output(b, p, n)
}

//export pmcpgo_call_input
func pmcpgo_call_input(c C.uint64_t, p *C.char, n C.size_t, out **C.char, outLen *C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	b, err := host.Input(uint64(c), input(p, n))
	if err != nil {
		return fail(err)
	}
	return output(b, out, outLen)
}

//export pmcpgo_call_input_state
func pmcpgo_call_input_state(c C.uint64_t, out **C.char, outLen *C.size_t) (rc C.int) {
	defer guard(&rc)
	b, err := host.InputState(uint64(c))
	if err != nil {
		return fail(err)
	}
	return output(b, out, outLen)
}

//export pmcpgo_call_start_task
func pmcpgo_call_start_task(c C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.StartTask(uint64(c)))
}

//export pmcpgo_server_batch
func pmcpgo_server_batch(s C.uint64_t, begin C.int) (rc C.int) {
	defer guard(&rc)
	return result(host.Batch(uint64(s), begin != 0))
}

//export pmcpgo_server_stdio_pump
func pmcpgo_server_stdio_pump(s C.uint64_t) (rc C.int) {
	defer guard(&rc)
	more, err := host.PumpStdio(uint64(s))
	if more {
		return C.POLYMCP_PUMP_MORE
	}
	return result(err)
}

//export pmcpgo_call_cancelled
func pmcpgo_call_cancelled(c C.uint64_t) (rc C.int) {
	defer guard(&rc)
	ended, err := host.Cancelled(uint64(c))
	if err != nil {
		return fail(err)
	}
	if ended {
		return 1
	}
	return 0
}

//export pmcpgo_call_set_input_state
func pmcpgo_call_set_input_state(c C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.SetInputState(uint64(c), input(p, n)))
}
