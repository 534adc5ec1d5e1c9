//go:build !purego

package jsonrpc

import "golang.org/x/sys/cpu"

// vectorMin is the shortest input worth a call into assembly: one block.
const vectorMin = 32

// useAVX2 says the vector scans may run; tests turn it off to check the
// word loops alone.
var useAVX2 = cpu.X86.HasAVX2

// plainBlocks returns how many leading bytes of b plainLen accepts, looking
// at whole 32-byte blocks only: the offset of the first byte that needs a
// look, or where fewer than 32 bytes are left.
func plainBlocks(b []byte) int {
	if !useAVX2 {
		return 0
	}
	return plainBlocksAVX2(&b[0], len(b))
}

// asciiBlocks is plainBlocks for asciiPrefix: the first non-ASCII byte.
func asciiBlocks(b []byte) int {
	if !useAVX2 {
		return 0
	}
	return asciiBlocksAVX2(&b[0], len(b))
}

//go:noescape
func plainBlocksAVX2(p *byte, n int) int

//go:noescape
func asciiBlocksAVX2(p *byte, n int) int
