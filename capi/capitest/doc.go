// Package capitest tests libpolymcp from the outside, as a C host sees it:
// it builds the shared library (or takes the one in $POLYMCP_CAPI_BUILD,
// which make test-capi sets), compiles the C test program
// (testdata/abi_test.c) and the C example (examples/c) against the
// installed header, and runs them. A Go test binary cannot load the library
// itself: one process holds one Go runtime.
package capitest
