package main

/*
#include "shim.h"
*/
import "C"

import (
	"unicode/utf8"
	"unsafe"

	"github.com/polymcp/polymcp/capi/internal/host"
)

// cClientCallbacks implements host.ClientCallbacks with a host's function
// pointers: the library's malloc'd copy, freed after on_closed.
type cClientCallbacks struct {
	cb *C.polymcp_client_callbacks
}

func strPtr(s string) *C.char { return (*C.char)(unsafe.Pointer(unsafe.StringData(s))) }

func (c cClientCallbacks) OnResponse(tag uint64, rc host.Code, body []byte) {
	C.pmcp_client_response(c.cb, C.uint64_t(tag), C.int(rc), bytesPtr(body), C.size_t(len(body)))
}

func (c cClientCallbacks) OnNotification(method string, params []byte) {
	C.pmcp_client_notification(c.cb, strPtr(method), C.size_t(len(method)), bytesPtr(params), C.size_t(len(params)))
}

func (c cClientCallbacks) OnProgress(tag uint64, params []byte) {
	C.pmcp_client_progress(c.cb, C.uint64_t(tag), bytesPtr(params), C.size_t(len(params)))
}

func (c cClientCallbacks) OnQuestion(q uint64, method string, params []byte) {
	C.pmcp_client_question(c.cb, C.uint64_t(q), strPtr(method), C.size_t(len(method)), bytesPtr(params), C.size_t(len(params)))
}

func (c cClientCallbacks) OnQuestionCancel(q uint64) {
	C.pmcp_client_question_cancel(c.cb, C.uint64_t(q))
}

func (c cClientCallbacks) OnClosed(rc host.Code, msg string) {
	C.pmcp_client_closed(c.cb, C.int(rc), strPtr(msg), C.size_t(len(msg)))
	C.free(unsafe.Pointer(c.cb))
}

func (c cClientCallbacks) Answers() bool { return c.cb.on_question != nil }

//export pmcpgo_client_connect
func pmcpgo_client_connect(p *C.char, n C.size_t, cb *C.polymcp_client_callbacks, tag C.uint64_t, out *C.uint64_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	h, err := host.Connect(input(p, n), cClientCallbacks{cb: cb}, uint64(tag))
	if err != nil {
		return fail(err)
	}
	*out = C.uint64_t(h)
	return 0
}

//export pmcpgo_client_request
func pmcpgo_client_request(c C.uint64_t, m *C.char, mn C.size_t, p *C.char, pn C.size_t, o *C.char, on C.size_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	if mn > maxInput || pn > maxInput || on > maxInput {
		return fail(tooLong(max(mn, pn, on)))
	}
	method := input(m, mn)
	if !utf8.Valid(method) {
		return fail(&host.Error{Code: host.EInvalid, Msg: "method is not UTF-8"})
	}
	return result(host.Request(uint64(c), string(method), input(p, pn), input(o, on), uint64(tag)))
}

//export pmcpgo_client_cancel
func pmcpgo_client_cancel(c C.uint64_t, tag C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.Cancel(uint64(c), uint64(tag)))
}

//export pmcpgo_client_answer
func pmcpgo_client_answer(q C.uint64_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	return result(host.Answer(uint64(q), input(p, n)))
}

//export pmcpgo_client_answer_error
func pmcpgo_client_answer_error(q C.uint64_t, code C.int32_t, p *C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if err := tooLong(n); err != nil {
		return fail(err)
	}
	msg := input(p, n)
	if !utf8.Valid(msg) {
		return fail(&host.Error{Code: host.EInvalid, Msg: "message is not UTF-8"})
	}
	return result(host.AnswerError(uint64(q), int32(code), string(msg)))
}

//export pmcpgo_client_close
func pmcpgo_client_close(c C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.CloseClient(uint64(c)))
}

//export pmcpgo_client_free
func pmcpgo_client_free(c C.uint64_t) (rc C.int) {
	defer guard(&rc)
	return result(host.FreeClient(uint64(c)))
}
