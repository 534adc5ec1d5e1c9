//go:build amd64 && !purego

package jsonrpc

// withoutVectors turns the vector scans off until the returned func runs.
func withoutVectors() (restore func()) {
	was := useAVX2
	useAVX2 = false
	return func() { useAVX2 = was }
}
