package main

/*
#include "shim.h"
*/
import "C"

import (
	"sync"
	"time"
	"unsafe"

	"github.com/polymcp/polymcp/capi/internal/host"
)

// cCallbacks implements host.Callbacks with a host's function pointers.
// cb is the library's own malloc'd copy of the struct, freed after
// on_closed, the last use.
type cCallbacks struct {
	cb *C.polymcp_server_callbacks
}

// bytesPtr passes a Go byte slice to C for the duration of one call, which
// cgo allows for memory without Go pointers.
func bytesPtr(b []byte) *C.char { return (*C.char)(unsafe.Pointer(unsafe.SliceData(b))) }

func (c cCallbacks) OnCall(call uint64, kind uint32, tag uint64, params []byte) {
	C.pmcp_on_call(c.cb, C.uint64_t(call), C.uint32_t(kind), C.uint64_t(tag), bytesPtr(params), C.size_t(len(params)))
}

func (c cCallbacks) OnCancel(call uint64) { C.pmcp_on_cancel(c.cb, C.uint64_t(call)) }

func (c cCallbacks) OnLog(level int, msg []byte) {
	C.pmcp_on_log(c.cb, C.int(level), bytesPtr(msg), C.size_t(len(msg)))
}

func (c cCallbacks) OnClosed() {
	C.pmcp_on_closed(c.cb)
	C.free(unsafe.Pointer(c.cb))
}

// cSender implements host.Sender with a session's send function.
type cSender struct {
	fn   C.polymcp_send_fn
	user unsafe.Pointer // the host's, never dereferenced here
}

func (s cSender) Send(msg []byte) { C.pmcp_send(s.fn, s.user, bytesPtr(msg), C.size_t(len(msg))) }

// cHTTP implements host.HTTPOutput with an exchange's callbacks, the
// library's own copy, which End frees.
type cHTTP struct {
	cb *C.polymcp_http_callbacks
}

func (h cHTTP) Start(status int, headers []byte) {
	C.pmcp_http_start(h.cb, C.int(status), bytesPtr(headers), C.size_t(len(headers)))
}

func (h cHTTP) Write(chunk []byte) { C.pmcp_http_write(h.cb, bytesPtr(chunk), C.size_t(len(chunk))) }

func (h cHTTP) Flush() { C.pmcp_http_flush(h.cb) }

func (h cHTTP) End(code host.Code) { C.pmcp_http_end(h.cb, C.int(code)) }

// startupPagesAfter is how long after the process first serves the
// library hands back the pages of its code and read-only data a second
// time (the first is as it starts serving, after registration): long
// enough for the first calls to be over.
const startupPagesAfter = time.Second

var startupPages sync.Once

// releaseStartupPages runs pmcp_release_readonly (relocs.c) now and again
// startupPagesAfter from now, once per process.
func releaseStartupPages() {
	startupPages.Do(func() {
		C.pmcp_release_readonly()
		time.AfterFunc(startupPagesAfter, func() { C.pmcp_release_readonly() })
	})
}
