//go:build !amd64 || purego

package jsonrpc

// withoutVectors: there are none here.
func withoutVectors() (restore func()) { return func() {} }
