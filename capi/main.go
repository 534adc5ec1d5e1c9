// Command capi is libpolymcp, the C ABI of polymcp, built with
// -buildmode=c-shared (see mk/capi.mk). include/polymcp.h is its manual.
//
// The layers, from the host down:
//
//	polymcp_* (abi.c: fork and misuse checks, last error, callback trampolines)
//	  ─► pmcpgo_* (exports.go: C types to Go, panics to POLYMCP_E_INTERNAL)
//	    ─► capi/internal/host (handle tables, servers, calls, sessions)
//	      ─► mcp, core/dispatch, transport/stdio
package main

func main() {}
