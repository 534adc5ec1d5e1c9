//go:build !amd64 || purego

package jsonrpc

// vectorMin is past any length: there are no vector scans here.
const vectorMin = int(^uint(0) >> 1)

func plainBlocks([]byte) int { return 0 }
func asciiBlocks([]byte) int { return 0 }
